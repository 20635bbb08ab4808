/* trace_clock.h — the trace writer's clock: CLOCK_MONOTONIC nanoseconds,
 * read from the CPU's time-stamp counter where that is safe.
 *
 * Every trace event is stamped, several per stdio call; clock_gettime costs
 * two to three times an rdtsc on a VM with kvm-clock. So, on x86-64 with an
 * invariant TSC (CPUID 0x80000007 EDX bit 8), each thread converts rdtsc
 * readings to CLOCK_MONOTONIC through an anchor (a TSC reading and the
 * clock's reading next to it) and a shared rate, and goes back to the clock
 * to re-anchor at least every ST_TSC_SPAN_NS. The trace keeps its format:
 * times are CLOCK_MONOTONIC nanoseconds either way.
 *
 * Promises:
 *   - st_trace_clock_ns(): CLOCK_MONOTONIC now, in ns; from the TSC within
 *     the bound below, else clock_gettime (other architectures, no
 *     invariant TSC, the TSC turned off, the first ~1 ms of the process
 *     while the rate is calibrated, or never turned on). No lock, no
 *     malloc, no syscall of its own (st_trace_clock_init makes one); safe
 *     in a signal handler (an update of the thread's anchor that a handler
 *     interrupts is seen as such and the clock read instead); per thread,
 *     and valid in a fork child (both clocks are the machine's).
 *   - Error against clock_gettime: at most the rate's error times
 *     ST_TSC_SPAN_NS plus half an anchor pair's width (trace_clock.c bounds
 *     it: 1000 ticks); with a rate measured over >= 1 ms between two such
 *     pairs, at most 1.5 pair widths (~0.7 us at 2 GHz), plus NTP's slewing
 *     of CLOCK_MONOTONIC over one span (<= 500 ppm: 0.5 us). Measured on a
 *     2-CPU KVM guest (kvm-clock, 2.1 GHz TSC, load ~2.5): at most 136 ns
 *     outside the clock_gettime readings bracketing it, over 30 runs of
 *     100,000 readings in each process's first seconds (bench/
 *     trace_writer_bench.c prints it; with pairs up to 150,000 ticks wide
 *     it was 12 us: the pair bound is what keeps it small). Times taken by
 *     one thread need not be monotonic across a re-anchor; the writer
 *     clamps.
 *   - Not read at all where CPUID lacks the invariant-TSC bit or rdtsc
 *     would raise SIGSEGV (prctl PR_SET_TSC at start-up); a program's own
 *     prctl(PR_SET_TSC, ...) later turns it off before it takes effect (on
 *     x86-64 the library interposes prctl for this alone: wrap/
 *     wrap_process.c calls st_trace_clock_prctl first).
 *   - If at a re-anchor the TSC's prediction and the clock disagree by more
 *     than ST_TSC_MAX_SKEW_NS (plus 1/1024 of the time since the thread's
 *     last anchor), the TSC is turned off for the process: clock_gettime
 *     from then on, in every thread from its next re-anchor.
 *   - st_trace_clock_anchor(): the clock now (clock_gettime), re-anchoring
 *     the calling thread; for slow paths that want the exact clock.
 *   - st_trace_clock_init(use_tsc): once at start-up, before any thread
 *     reads the clock; use_tsc 0 keeps clock_gettime for good.
 *
 * The arithmetic is pure and exposed below for the unit tests. */
#ifndef SEEKTRACE_TRACE_CLOCK_H
#define SEEKTRACE_TRACE_CLOCK_H

#include <stdint.h>

void st_trace_clock_init(int use_tsc);
uint64_t st_trace_clock_ns(void);
uint64_t st_trace_clock_anchor(void);
/* Which clock st_trace_clock_ns reads now: "tsc", "tsc (calibrating)" or
 * "monotonic" (for benchmarks). */
const char *st_trace_clock_source(void);
#if defined(__x86_64__)
/* The program is about to call prctl(option, ...). */
void st_trace_clock_prctl(int option);
#endif

/* ---- the arithmetic ------------------------------------------------------ */

/* ns per tick in 32.32 fixed point. */
#define ST_TSC_SHIFT 32
/* A rate is computed over at least this much clock time. */
#define ST_TSC_MIN_BASELINE_NS 1000000u
/* An anchor is used for at most this long (no longer than the shortest
 * baseline: a rate's error weighs at most once). Below 2^32 ns, so that
 * ticks * rate never overflows 64 bits within a span. */
#define ST_TSC_SPAN_NS 1000000u
/* Disagreement at a re-anchor that turns the TSC off. */
#define ST_TSC_MAX_SKEW_NS 1000000u

/* A thread's conversion: ns = anchor_ns + (tsc - anchor_tsc) * rate for
 * tsc - anchor_tsc < span ticks. span 0: not usable. */
struct st_tsc_fit {
    uint64_t tsc, ns;
    uint64_t rate;
    uint64_t span;
};

/* The rate from two pairs dtsc ticks and dns ns apart, or 0 when dns is
 * under ST_TSC_MIN_BASELINE_NS or the ratio is not that of a counter
 * between 10 MHz and 100 GHz. */
uint64_t st_tsc_rate(uint64_t dtsc, uint64_t dns);
/* f anchored at (tsc, ns) with rate (0: not usable). */
void st_tsc_anchor(struct st_tsc_fit *f, uint64_t tsc, uint64_t ns, uint64_t rate);
/* Whether f's prediction for tsc agrees with the clock's ns (see above);
 * true when f has no rate yet. */
int st_tsc_agrees(const struct st_tsc_fit *f, uint64_t tsc, uint64_t ns);

/* The time f predicts for tsc into *ns; 0 when tsc is outside f's span
 * (before its anchor, too long after it, or f not usable). */
static inline int st_tsc_predict(const struct st_tsc_fit *f, uint64_t tsc, uint64_t *ns)
{
    uint64_t d = tsc - f->tsc;
    if (d >= f->span)
        return 0;
    *ns = f->ns + ((d * f->rate) >> ST_TSC_SHIFT);
    return 1;
}

#endif
