/* trace_clock.c — see trace_clock.h.
 *
 * State: the process's reference pair (taken once at start-up) and the
 * shared rate (one 64-bit word, stored whole by whichever thread
 * re-anchors: every value stored was measured over >= 1 ms, so a reader
 * never sees a torn or unmeasured rate and no lock is needed); per thread,
 * its fit, guarded against its own signal handlers by a sequence number
 * (odd while the fit is being changed). */
#define _GNU_SOURCE 1
#include "trace_clock.h"

#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>
#endif

/* ---- the arithmetic ------------------------------------------------------ */

uint64_t st_tsc_rate(uint64_t dtsc, uint64_t dns)
{
    if (dns < ST_TSC_MIN_BASELINE_NS || dtsc == 0)
        return 0;
    unsigned __int128 rate = ((unsigned __int128)dns << ST_TSC_SHIFT) / dtsc;
    /* 100 GHz: 0.01 ns per tick; 10 MHz: 100 ns per tick. */
    if (rate < ((1ull << ST_TSC_SHIFT) / 100) || rate > (100ull << ST_TSC_SHIFT))
        return 0;
    return (uint64_t)rate;
}

void st_tsc_anchor(struct st_tsc_fit *f, uint64_t tsc, uint64_t ns, uint64_t rate)
{
    f->tsc = tsc;
    f->ns = ns;
    f->rate = rate;
    f->span = rate ? ((uint64_t)ST_TSC_SPAN_NS << ST_TSC_SHIFT) / rate : 0;
}

int st_tsc_agrees(const struct st_tsc_fit *f, uint64_t tsc, uint64_t ns)
{
    if (!f->rate)
        return 1;
    /* Signed: the TSC may have gone back (another CPU's counter). */
    __int128 ticks = (__int128)(int64_t)(tsc - f->tsc);
    __int128 predicted = (__int128)f->ns + ((ticks * (__int128)f->rate) >> ST_TSC_SHIFT);
    __int128 off = predicted - (__int128)ns;
    if (off < 0)
        off = -off;
    /* A thread idle for long re-anchors late: allow the rate's error to
     * have grown with the time since its anchor (1/1024, ~1000 ppm). */
    uint64_t since = ns > f->ns ? ns - f->ns : 0;
    return off <= (__int128)(ST_TSC_MAX_SKEW_NS + (since >> 10));
}

/* ---- the clocks -------------------------------------------------------- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)

enum { TSC_OFF, TSC_ON };

static int tsc_state; /* TSC_ON: the TSC may be used (atomic) */

static struct {
    uint64_t tsc, ns;
} ref;                   /* set before tsc_state is first stored */
static uint64_t shared_rate; /* atomic; 0 until measured */

static __thread struct {
    unsigned seq;
    unsigned unpaired; /* re-anchors in a row without a usable pair */
    struct st_tsc_fit fit;
} tc __attribute__((tls_model("initial-exec")));

/* A pair whose two TSC readings are this many ticks apart or more was
 * interrupted (a preemption, a VM exit) or the clock is slow to read: not
 * used to anchor. Its midpoint is within half of this of the clock's
 * reading: ~0.25 us at 2 GHz, where a pair takes ~40-100 ns. */
#define PAIR_MAX_TICKS 1000u
/* Pairs tried per re-anchor, and failed re-anchors after which a thread
 * that never had a rate gives the TSC up (a clock this slow to read,
 * e.g. one without a vDSO, cannot calibrate it). */
#define PAIR_TRIES 3
#define MAX_UNPAIRED 64

/* An invariant TSC, which this process may read: one whose rdtsc raises
 * SIGSEGV (prctl PR_SET_TSC, as some sandboxes set) must never be read. */
static int usable_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __cpuid(0x80000007u, a, b, c, d);
    int mode = 0, saved = errno;
    int ok = ((d >> 8) & 1u) && syscall(SYS_prctl, PR_GET_TSC, &mode, 0, 0, 0) == 0 &&
             mode == PR_TSC_ENABLE;
    errno = saved;
    return ok;
}

static uint64_t tsc_now(void)
{
    return __rdtsc();
}

/* Changes the thread's fit as one step, to its signal handlers: one that
 * interrupts the change sees an odd seq and leaves the fit alone. */
static void set_fit(uint64_t tsc, uint64_t ns, uint64_t rate)
{
    __atomic_store_n(&tc.seq, tc.seq + 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    st_tsc_anchor(&tc.fit, tsc, ns, rate);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&tc.seq, tc.seq + 1, __ATOMIC_RELAXED);
}

/* The clock, and the TSC at the middle of its reading; 0 when the pair is
 * too wide to trust (the clock's reading is still returned in *ns). */
static int read_pair(uint64_t *tsc, uint64_t *ns)
{
    for (int tries = 0; tries < PAIR_TRIES; tries++) {
        __builtin_ia32_lfence();
        uint64_t t0 = __rdtsc();
        *ns = mono_ns();
        __builtin_ia32_lfence();
        uint64_t t1 = __rdtsc();
        *tsc = t0 + (t1 - t0) / 2;
        if (t1 >= t0 && t1 - t0 < PAIR_MAX_TICKS)
            return 1;
    }
    return 0;
}

static void tsc_off(void)
{
    __atomic_store_n(&tsc_state, TSC_OFF, __ATOMIC_RELEASE);
    set_fit(0, 0, 0);
}

static uint64_t reanchor(void)
{
    uint64_t tsc, ns;
    int paired = read_pair(&tsc, &ns);
    if (__atomic_load_n(&tc.seq, __ATOMIC_RELAXED) & 1)
        return ns; /* a signal handler that interrupted set_fit: leave the fit */
    if (__atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) != TSC_ON) {
        if (tc.fit.span)
            set_fit(0, 0, 0);
        return ns;
    }
    if (!paired) {
        if (++tc.unpaired >= MAX_UNPAIRED && !tc.fit.rate)
            tsc_off();
        return ns;
    }
    tc.unpaired = 0;
    if (!st_tsc_agrees(&tc.fit, tsc, ns)) {
        tsc_off();
        return ns;
    }
    /* The rate over the process's life so far: the longer the baseline,
     * the less the pairs' jitter weighs. */
    uint64_t rate = st_tsc_rate(tsc - ref.tsc, ns - ref.ns);
    if (rate)
        __atomic_store_n(&shared_rate, rate, __ATOMIC_RELAXED);
    else
        rate = __atomic_load_n(&shared_rate, __ATOMIC_RELAXED);
    set_fit(tsc, ns, rate);
    return ns;
}

void st_trace_clock_init(int use_tsc)
{
    if (!use_tsc || !usable_tsc())
        return;
    if (read_pair(&ref.tsc, &ref.ns))
        __atomic_store_n(&tsc_state, TSC_ON, __ATOMIC_RELEASE);
}

uint64_t st_trace_clock_ns(void)
{
    unsigned seq = __atomic_load_n(&tc.seq, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    struct st_tsc_fit f = tc.fit;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t ns;
    if (__builtin_expect(f.span != 0, 1) && !(seq & 1) &&
        __atomic_load_n(&tc.seq, __ATOMIC_RELAXED) == seq && st_tsc_predict(&f, tsc_now(), &ns))
        return ns;
    if (!f.span) {
        if (__atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) != TSC_ON)
            return mono_ns();
        /* Calibrating: no pair is worth taking before the first baseline. */
        if (!__atomic_load_n(&shared_rate, __ATOMIC_RELAXED)) {
            ns = mono_ns();
            if (ns - ref.ns < ST_TSC_MIN_BASELINE_NS)
                return ns;
        }
    }
    return reanchor();
}

uint64_t st_trace_clock_anchor(void)
{
    if (__atomic_load_n(&tsc_state, __ATOMIC_RELAXED) != TSC_ON && !tc.fit.span)
        return mono_ns();
    return reanchor();
}

/* A thread that asks for rdtsc to fault (PR_SET_TSC with PR_TSC_SIGSEGV:
 * record-and-replay tools and sandboxes do) would die at its next event.
 * usable_tsc saw the setting at start-up; one made later turns the TSC off
 * for the process here, before it takes effect. Any PR_SET_TSC does: the
 * flag is the thread's own and passes to the threads it starts, and
 * turning off is only ever a little slower. */
void st_trace_clock_prctl(int option)
{
    if (option == PR_SET_TSC && __atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) == TSC_ON)
        tsc_off();
}

const char *st_trace_clock_source(void)
{
    if (__atomic_load_n(&tsc_state, __ATOMIC_ACQUIRE) != TSC_ON)
        return "monotonic";
    return __atomic_load_n(&shared_rate, __ATOMIC_RELAXED) ? "tsc" : "tsc (calibrating)";
}

#else /* not x86-64: clock_gettime */

void st_trace_clock_init(int use_tsc)
{
    (void)use_tsc;
}

uint64_t st_trace_clock_ns(void)
{
    return mono_ns();
}

uint64_t st_trace_clock_anchor(void)
{
    return mono_ns();
}

const char *st_trace_clock_source(void)
{
    return "monotonic";
}

#endif
