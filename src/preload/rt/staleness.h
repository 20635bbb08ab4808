/* staleness.h — when what a thread learnt about a FILE* may have gone stale.
 *
 * Two kinds of change make a cached stdio look-up wrong: a stream unbound
 * (fclose, an fd that came to name another file: streams.c) and any fd
 * opened, closed or duplicated (fdtable.c). Both count in one word, streams
 * in the low half and fds in the high half, so a cache that depends on
 * both (the wrappers' fast entries, the current stream) checks one load,
 * and one that depends on streams alone checks the low half. A carry out
 * of the low half changes the word too, so no change is ever missed. */
#ifndef SEEKTRACE_STALENESS_H
#define SEEKTRACE_STALENESS_H

#include <stdint.h>

extern uint64_t st_staleness;

static inline uint64_t st_staleness_now(void)
{
    return __atomic_load_n(&st_staleness, __ATOMIC_ACQUIRE);
}

/* The streams' half (the stream epoch). */
static inline unsigned st_stream_epoch_now(void)
{
    return (unsigned)st_staleness_now();
}

/* A stream unbound, or how streams are followed changed: start-up's
 * switch to inferred capture (wrap_stdio.c's fast entries are for exact
 * capture only), tracing started or stopped (an entry made while nothing
 * traced or followed its stream takes that as lasting: a 4 KiB what-if
 * starts only when its stream is opened, before any entry). */
static inline void st_staleness_streams_changed(void)
{
    __atomic_fetch_add(&st_staleness, 1, __ATOMIC_ACQ_REL);
}

static inline void st_staleness_fds_changed(void)
{
    __atomic_fetch_add(&st_staleness, (uint64_t)1 << 32, __ATOMIC_ACQ_REL);
}

#endif
