/* registry_lock.c — see registry_lock.h. */
#include "registry_lock.h"

#include "sync.h"
#include "thread_state.h"

#define FORK_HOLD ((uintptr_t)1)

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

static void acquire(struct st_lock *l, uintptr_t as)
{
    uintptr_t free_ = 0;
    while (!__atomic_compare_exchange_n(&l->holder, &free_, as, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        free_ = 0;
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
    acquire(l, me());
    return 1;
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
    acquire(l, me() | FORK_HOLD);
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
