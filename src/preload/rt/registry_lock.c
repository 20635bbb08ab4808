/* registry_lock.c — see registry_lock.h. */
#include "registry_lock.h"

#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "signal_frame.h"
#include "sync.h"
#include "thread_state.h"

#define FORK_HOLD ((uintptr_t)1)

/* How long a take waits for another thread's fork hold: 4096 spins, then
 * naps of 100 us until a second has passed; a signal handler does not wait
 * at all. That
 * thread goes on from its prepare handler into glibc's fork, which then
 * takes glibc's own locks (stdio's list, malloc's arenas, NSS's): a thread
 * that holds one of those while it waits here (its signal handler
 * interrupted malloc; a hook of ours inside fflush(NULL)) would wait for a
 * fork that waits for it. A fork of 1 GiB takes 80-90 ms on the machine
 * measured. */
#define FORK_WAIT_SPINS 4096
#define FORK_WAIT_NS 1000000000LL

struct st_lock st_registry;

/* This thread: its st_self, which no other live thread shares. */
static inline uintptr_t me(void)
{
    return (uintptr_t)&st_self;
}

static inline uintptr_t holder_of(const struct st_lock *l)
{
    return __atomic_load_n(&l->holder, __ATOMIC_RELAXED);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t); /* the vDSO's: no syscall */
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Whether the wait that began at *since (0: not yet) may go on; naps. */
static int nap_until_limit(long long *since)
{
    long long t = now_ns();
    if (!*since)
        *since = t;
    else if (t - *since > FORK_WAIT_NS)
        return 0;
    int e = errno;
    struct timespec nap = {0, 100000};
    syscall(SYS_nanosleep, &nap, NULL);
    errno = e;
    return 1;
}

/* 0: another thread's fork hold, met in a signal handler or outlasting
 * FORK_WAIT_NS (bounded only). */
static int acquire(struct st_lock *l, uintptr_t as, int bounded)
{
    unsigned spins = 0;
    long long since = 0;
    for (;;) {
        uintptr_t seen = 0;
        if (__atomic_compare_exchange_n(&l->holder, &seen, as, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
        if (bounded && (seen & FORK_HOLD)) {
            if (spins == 0 && st_in_signal_handler())
                return 0;
            if (++spins >= FORK_WAIT_SPINS) {
                if (!nap_until_limit(&since))
                    return 0;
                continue;
            }
        }
        st_cpu_relax();
    }
}

int st_lock_take(struct st_lock *l)
{
    uintptr_t h = holder_of(l);
    if ((h & ~FORK_HOLD) == me()) {
        if (!(h & FORK_HOLD))
            return 0; /* this thread is half-way through an update under it */
        /* Only this thread and its handlers, one inside the other, touch
         * depth while it holds l: each handler's takes are undone before
         * it returns. */
        l->depth++;
        return 1;
    }
    return acquire(l, me(), 1);
}

void st_lock_drop(struct st_lock *l)
{
    if (l->depth > 0)
        l->depth--;
    else
        __atomic_store_n(&l->holder, 0, __ATOMIC_RELEASE);
}

void st_lock_hold_for_fork(struct st_lock *l)
{
    uintptr_t h = holder_of(l);
    if ((h & ~FORK_HOLD) == me()) {
        if (h & FORK_HOLD)
            l->depth++; /* a fork inside a fork's handlers */
        return;
    }
    acquire(l, me() | FORK_HOLD, 0);
}

void st_lock_release_after_fork(struct st_lock *l)
{
    if (holder_of(l) == (me() | FORK_HOLD))
        st_lock_drop(l);
}

void st_lock_reset_in_child(struct st_lock *l)
{
    if (holder_of(l) == me())
        return;
    l->depth = 0;
    __atomic_store_n(&l->holder, 0, __ATOMIC_RELEASE);
}
