/* sync.h — the two concurrency primitives the library uses.
 *
 * st_add: counters are bumped on the program's fast paths. While the process
 * has one thread (glibc's own __libc_single_threaded, the flag its stdio uses
 * to skip locking) a plain add is exact and costs nothing; once a second
 * thread exists, a relaxed atomic add. On x86 the single-threaded add is one
 * instruction, so a signal handler cannot tear it either.
 *
 * st_spin: a tiny lock for per-file range sets and the trace writer, never
 * held across a call into the program or libc's I/O. (The registries'
 * locks know their holder: registry_lock.h.) */
#ifndef SEEKTRACE_SYNC_H
#define SEEKTRACE_SYNC_H

#include <stdint.h>
#include "glibc_compat.h"

/* The add while the process has one thread: one instruction on x86. */
static inline void st_add_alone(uint64_t *p, uint64_t n)
{
#if defined(__x86_64__)
    __asm__ volatile("addq %1, %0" : "+m"(*p) : "r"(n));
#else
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
#endif
}

static inline void st_add(uint64_t *p, uint64_t n)
{
    if (__libc_single_threaded)
        st_add_alone(p, n);
    else
        __atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}

/* Two st_adds with one look at the thread count (a figure kept on its
 * owner and on the call kind that caused it: tally.h; fread's requested
 * and delivered bytes). */
static inline void st_add2(uint64_t *a, uint64_t n, uint64_t *b, uint64_t m)
{
    if (__libc_single_threaded) {
        st_add_alone(a, n);
        st_add_alone(b, m);
    } else {
        __atomic_fetch_add(a, n, __ATOMIC_RELAXED);
        __atomic_fetch_add(b, m, __ATOMIC_RELAXED);
    }
}

static inline void st_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

typedef struct { int locked; } st_spin;

static inline void st_spin_lock(st_spin *l)
{
    while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
            st_cpu_relax();
}

static inline int st_spin_trylock(st_spin *l)
{
    return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void st_spin_unlock(st_spin *l)
{
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
