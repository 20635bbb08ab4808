/* registry_lock.h — the locks that guard updates of the shared registries:
 * the registry lock (inserts into files, sites, cells, streams; lookups
 * never take it) and streams.c's fold lock. fork holds both (atfork
 * handlers) so that a child never inherits an update half done.
 *
 * A signal handler may meet one of them held by the very code it
 * interrupted; spinning there would wait on itself forever. So each lock
 * knows the thread that holds it, and how:
 * - by seektrace's bookkeeping, which is busy (thread_state.h) while it
 *   holds it: a signal handler on that thread only counts what it does
 *   lock-free (record.h), except a report (_exit in a handler, a fatal
 *   signal), whose take is refused: it does without that update, as when
 *   out of memory;
 * - across fork, from the prepare handler to the parent or child one, when
 *   nothing is half done: that thread's signal handlers (a SIGCHLD handler
 *   reading while fork() runs), and the atfork handlers of other libraries
 *   that run inside the hold, take it again and book as anywhere else.
 * Another thread's hold is waited for: it is never held across a call that
 * can block, except by fork, and that wait is bounded, and none at all in
 * a signal handler (registry_lock.c: the fork may be waiting for a glibc
 * lock the waiting thread holds).
 * Order: the fold lock before the registry lock. */
#ifndef SEEKTRACE_REGISTRY_LOCK_H
#define SEEKTRACE_REGISTRY_LOCK_H

#include <stdint.h>

struct st_lock {
    uintptr_t holder; /* the holding thread's st_self, | 1 for a fork hold; 0: free */
    int depth;        /* takes again inside a fork hold */
};

/* 1: taken. 0: held by this thread's bookkeeping, which a signal handler
 * interrupted, or by another thread's fork (for over a second, or at all
 * when this thread runs a signal handler); the caller must do without. */
__attribute__((warn_unused_result)) int st_lock_take(struct st_lock *l);
void st_lock_drop(struct st_lock *l);

/* The prepare handler's hold, and its end in the parent. A fork made by a
 * signal handler that interrupted this thread's own hold of l holds
 * nothing more: that code completes its update after the handler
 * returns, in both processes. */
void st_lock_hold_for_fork(struct st_lock *l);
void st_lock_release_after_fork(struct st_lock *l);
/* In the child (one thread): free, unless this thread's bookkeeping holds
 * it (as above); the parent's other threads are not here. */
void st_lock_reset_in_child(struct st_lock *l);

extern struct st_lock st_registry;

__attribute__((warn_unused_result)) static inline int st_registry_lock(void)
{
    return st_lock_take(&st_registry);
}
static inline void st_registry_unlock(void)
{
    st_lock_drop(&st_registry);
}

#endif
