/* Unit tests: the trace writer's clock (src/preload/trace/trace_clock.c) — the
 * TSC-to-nanoseconds arithmetic on a made-up 3 GHz counter and on this
 * machine's clocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include <sys/prctl.h>

#include "trace_clock.h"

#define GHZ3_RATE 1431655765u /* (1 << 32) / 3: 1/3 ns per tick */

static void rate(void **state)
{
    (void)state;
    assert_int_equal(st_tsc_rate(3000000, 1000000), GHZ3_RATE);
    assert_int_equal(st_tsc_rate(30000000000ull, 10000000000ull), GHZ3_RATE);
    /* 2.096021 GHz over 1 ms, this test machine's counter. */
    assert_int_equal(st_tsc_rate(2096021, 1000000), 2049105088u);
    /* Too short a baseline, no ticks, or not a plausible counter. */
    assert_int_equal(st_tsc_rate(2999999, 999999), 0);
    assert_int_equal(st_tsc_rate(0, 1000000), 0);
    assert_int_equal(st_tsc_rate(1000, 1000000), 0);              /* 1 MHz */
    assert_int_equal(st_tsc_rate(1000000000000ull, 1000000), 0);  /* 1 THz */
    assert_int_not_equal(st_tsc_rate(10000, 1000000), 0);         /* 10 MHz */
    assert_int_not_equal(st_tsc_rate(100000000, 1000000), 0);     /* 100 GHz */
}

static void predict(void **state)
{
    (void)state;
    struct st_tsc_fit f;
    st_tsc_anchor(&f, 1000, 5000000000ull, GHZ3_RATE);
    assert_int_equal(f.tsc, 1000);
    assert_int_equal(f.ns, 5000000000ull);
    /* The span: ST_TSC_SPAN_NS of ticks. */
    assert_int_equal(f.span, 3000000);
    uint64_t ns = 0;
    assert_true(st_tsc_predict(&f, 1000, &ns));
    assert_int_equal(ns, 5000000000ull);
    assert_true(st_tsc_predict(&f, 1000 + 300000, &ns));
    assert_int_equal(ns, 5000000000ull + 99999); /* rounded down: 1/3 is a hair under */
    assert_true(st_tsc_predict(&f, 1000 + 2999999, &ns));
    assert_int_equal(ns, 5000000000ull + 999999);
    /* Past the span, and before the anchor (a huge unsigned distance). */
    assert_false(st_tsc_predict(&f, 1000 + 3000000, &ns));
    assert_false(st_tsc_predict(&f, 999, &ns));
    /* No rate: never usable. */
    st_tsc_anchor(&f, 1000, 5000000000ull, 0);
    assert_int_equal(f.span, 0);
    assert_false(st_tsc_predict(&f, 1000, &ns));
    /* A counter that wrapped since the anchor. */
    st_tsc_anchor(&f, UINT64_MAX - 2, 7, GHZ3_RATE);
    assert_true(st_tsc_predict(&f, 27, &ns));
    assert_int_equal(ns, 7 + 9); /* 30 ticks */
}

/* A rate measured over the shortest baseline, between pairs each off by up
 * to half of trace_clock.c's widest pair (1000 ticks at 2.096 GHz: 238 ns),
 * errs within a span by at most 1.5 times that width. */
static void error_bound(void **state)
{
    (void)state;
    const double ghz = 2.096021;
    uint64_t dns = 1000000, jitter = 238;
    uint64_t dtsc = (uint64_t)((double)(dns + 2 * jitter) * ghz); /* worst: both pairs off */
    uint64_t r = st_tsc_rate(dtsc, dns);
    assert_int_not_equal(r, 0);
    struct st_tsc_fit f;
    st_tsc_anchor(&f, 0, jitter, r); /* the anchor itself off by jitter */
    uint64_t ns = 0;
    uint64_t last = (uint64_t)((double)ST_TSC_SPAN_NS * ghz) - 1;
    assert_true(st_tsc_predict(&f, last, &ns));
    double truth = (double)last / ghz;
    double err = (double)ns - truth;
    assert_true(err < 0 ? -err <= 1.5 * 2 * jitter : err <= 1.5 * 2 * jitter);
}

static void agrees(void **state)
{
    (void)state;
    struct st_tsc_fit f;
    st_tsc_anchor(&f, 3000000000ull, 1000000000ull, GHZ3_RATE);
    /* 1 s later, to the nanosecond and off by less than 1 ms + 1/1024 s. */
    assert_true(st_tsc_agrees(&f, 6000000000ull, 2000000000ull));
    assert_true(st_tsc_agrees(&f, 6000000000ull, 2000000000ull + 1900000));
    assert_false(st_tsc_agrees(&f, 6000000000ull, 2000000000ull + 2000000));
    assert_false(st_tsc_agrees(&f, 6000000000ull, 2000000000ull - 2000000));
    /* 10 ms later, 2 ms off: turned off. */
    assert_false(st_tsc_agrees(&f, 3030000000ull, 1012000000ull));
    /* The counter went back a little (another CPU's): fine; a lot: not. */
    assert_true(st_tsc_agrees(&f, 3000000000ull - 300, 1000000000ull + 50));
    assert_false(st_tsc_agrees(&f, 3000000000ull - 30000000, 1000000000ull + 50));
    /* A thread idle for an hour whose rate was 500 ppm off. */
    uint64_t hour = 3600000000000ull;
    assert_true(st_tsc_agrees(&f, 3000000000ull + 3 * hour, 1000000000ull + hour + hour / 2000));
    /* No rate yet: nothing to compare. */
    st_tsc_anchor(&f, 0, 0, 0);
    assert_true(st_tsc_agrees(&f, 123, 456789));
}

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The real clocks: whichever source the machine allows, every reading lies
 * between the clock's before and after, give or take the skew that would
 * turn the TSC off; past the first baseline it is no longer calibrating. */
static void live(void **state)
{
    (void)state;
    st_trace_clock_init(1);
    uint64_t first = mono();
    for (int i = 0; i < 20000; i++) {
        uint64_t a = mono(), t = st_trace_clock_ns(), b = mono();
        assert_true(t + ST_TSC_MAX_SKEW_NS >= a);
        assert_true(t <= b + ST_TSC_MAX_SKEW_NS);
        if (i % 1000 == 0)
            assert_true(st_trace_clock_anchor() >= a);
    }
    while (mono() - first < 3 * ST_TSC_MIN_BASELINE_NS)
        st_trace_clock_ns();
    st_trace_clock_anchor();
    const char *src = st_trace_clock_source();
    assert_true(src[0] == 'm' || (src[0] == 't' && src[3] == '\0'));
}

/* What the prctl wrapper (src/preload/wrap/wrap_process.c) does before
 * the syscall: a PR_SET_TSC turns the TSC off before rdtsc could fault,
 * any other option leaves the clock as it is. Runs after `live`: the TSC
 * may be on. */
static void set_tsc_turns_it_off(void **state)
{
    (void)state;
    st_trace_clock_init(1);
    const char *before = st_trace_clock_source();
    st_trace_clock_prctl(PR_GET_TSC);
    st_trace_clock_prctl(PR_SET_NAME);
    assert_string_equal(st_trace_clock_source(), before);
    st_trace_clock_prctl(PR_SET_TSC);
    assert_string_equal(st_trace_clock_source(), "monotonic");
    /* The clock keeps time. */
    uint64_t a = mono(), t = st_trace_clock_ns();
    assert_true(t >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rate),
        cmocka_unit_test(predict),
        cmocka_unit_test(error_bound),
        cmocka_unit_test(agrees),
        cmocka_unit_test(live),
        cmocka_unit_test(set_tsc_turns_it_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
