/* Unit tests: the registries' locks (src/preload/rt/registry_lock.c). A
 * signal handler on the holding thread is refused while the holder's
 * bookkeeping holds the lock, and takes it again inside a fork hold; other
 * threads wait, for another thread's fork a bounded time and in a handler
 * not at all; the fork hold ends in the parent and is cleared in the
 * child. Every case runs the handler for real (raise), so a lock that spun
 * on its own thread would hang the test, which ctest's timeout fails. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "registry_lock.h"

static struct st_lock lock;
static volatile sig_atomic_t handler_took; /* what st_lock_take answered in the handler */

static void take_in_handler(int sig)
{
    (void)sig;
    handler_took = st_lock_take(&lock);
    if (handler_took)
        st_lock_drop(&lock);
}

static void handler_takes(void)
{
    handler_took = -1;
    raise(SIGUSR1);
}

static int is_free(void)
{
    return __atomic_load_n(&lock.holder, __ATOMIC_ACQUIRE) == 0;
}

static int setup(void **state)
{
    (void)state;
    memset(&lock, 0, sizeof lock);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = take_in_handler;
    return sigaction(SIGUSR1, &sa, NULL);
}

static void test_take_and_drop(void **state)
{
    (void)state;
    assert_int_equal(st_lock_take(&lock), 1);
    assert_false(is_free());
    st_lock_drop(&lock);
    assert_true(is_free());
    handler_takes(); /* free: the handler takes and drops it */
    assert_int_equal(handler_took, 1);
    assert_true(is_free());
}

static void test_handler_refused_inside_bookkeeping(void **state)
{
    (void)state;
    assert_int_equal(st_lock_take(&lock), 1);
    handler_takes();
    assert_int_equal(handler_took, 0);
    assert_false(is_free()); /* still the interrupted code's */
    st_lock_drop(&lock);
    assert_true(is_free());
}

static void test_handler_takes_again_inside_fork_hold(void **state)
{
    (void)state;
    st_lock_hold_for_fork(&lock);
    handler_takes();
    assert_int_equal(handler_took, 1);
    assert_false(is_free()); /* the handler's drop ended its own take only */
    assert_int_equal(lock.depth, 0);
    assert_int_equal(st_lock_take(&lock), 1); /* an atfork handler inside the hold */
    st_lock_drop(&lock);
    st_lock_release_after_fork(&lock);
    assert_true(is_free());
}

static void test_fork_inside_fork_hold(void **state)
{
    (void)state;
    st_lock_hold_for_fork(&lock);
    st_lock_hold_for_fork(&lock); /* a handler forks during fork() */
    st_lock_release_after_fork(&lock);
    assert_false(is_free());
    st_lock_release_after_fork(&lock);
    assert_true(is_free());
}

/* A handler that forks while its thread's bookkeeping holds the lock:
 * nothing more is held, and the parent's release leaves the hold alone. */
static void test_fork_from_handler_inside_bookkeeping(void **state)
{
    (void)state;
    assert_int_equal(st_lock_take(&lock), 1);
    st_lock_hold_for_fork(&lock);
    st_lock_release_after_fork(&lock);
    assert_false(is_free());
    st_lock_reset_in_child(&lock); /* the child's copy: that code finishes there */
    assert_false(is_free());
    st_lock_drop(&lock);
    assert_true(is_free());
}

static void *hold_then_wait(void *arg)
{
    int *go = arg;
    if (!st_lock_take(&lock))
        return NULL;
    __atomic_store_n(&go[0], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&go[1], __ATOMIC_ACQUIRE))
        ;
    st_lock_drop(&lock);
    return NULL;
}

static void test_other_threads_hold(void **state)
{
    (void)state;
    int go[2] = {0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hold_then_wait, go), 0);
    while (!__atomic_load_n(&go[0], __ATOMIC_ACQUIRE))
        ;
    assert_false(is_free());
    /* Another thread's hold is not this thread's: the child of a fork
     * made now has no such thread, and finds the lock free. */
    uintptr_t parent_holder = lock.holder;
    st_lock_reset_in_child(&lock);
    assert_true(is_free());
    lock.holder = parent_holder;
    __atomic_store_n(&go[1], 1, __ATOMIC_RELEASE);
    assert_int_equal(st_lock_take(&lock), 1); /* waits for the drop */
    pthread_join(t, NULL);
    st_lock_drop(&lock);
    assert_true(is_free());
}

/* Another thread's fork hold, released when main says so. */
static void *fork_hold_then_wait(void *arg)
{
    int *go = arg;
    st_lock_hold_for_fork(&lock);
    __atomic_store_n(&go[0], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&go[1], __ATOMIC_ACQUIRE))
        usleep(1000);
    st_lock_release_after_fork(&lock);
    return NULL;
}

static void other_thread_forks(pthread_t *t, int *go)
{
    go[0] = go[1] = 0;
    assert_int_equal(pthread_create(t, NULL, fork_hold_then_wait, go), 0);
    while (!__atomic_load_n(&go[0], __ATOMIC_ACQUIRE))
        ;
}

static void other_thread_fork_ends(pthread_t t, int *go)
{
    __atomic_store_n(&go[1], 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    assert_true(is_free());
}

/* The fork may wait for a glibc lock the interrupted code holds (malloc's):
 * a handler does not wait for it at all. */
static void test_handler_refused_on_another_threads_fork(void **state)
{
    (void)state;
    int go[2];
    pthread_t t;
    other_thread_forks(&t, go);
    handler_takes();
    assert_int_equal(handler_took, 0);
    other_thread_fork_ends(t, go);
}

/* Outside a handler the wait for another thread's fork is bounded (about a
 * second), then refused. */
static void test_wait_for_another_threads_fork_is_bounded(void **state)
{
    (void)state;
    int go[2];
    pthread_t t;
    other_thread_forks(&t, go);
    assert_int_equal(st_lock_take(&lock), 0);
    other_thread_fork_ends(t, go);
    assert_int_equal(st_lock_take(&lock), 1);
    st_lock_drop(&lock);
}

static void *end_fork_soon(void *arg)
{
    usleep(20000);
    __atomic_store_n(&((int *)arg)[1], 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_waits_for_a_fork_that_ends(void **state)
{
    (void)state;
    int go[2];
    pthread_t t, ender;
    other_thread_forks(&t, go);
    assert_int_equal(pthread_create(&ender, NULL, end_fork_soon, go), 0);
    assert_int_equal(st_lock_take(&lock), 1); /* once the fork's hold ends */
    pthread_join(ender, NULL);
    pthread_join(t, NULL);
    st_lock_drop(&lock);
    assert_true(is_free());
}

static void test_reset_in_child_after_fork_hold(void **state)
{
    (void)state;
    st_lock_hold_for_fork(&lock);
    handler_takes();
    st_lock_reset_in_child(&lock);
    assert_true(is_free());
    assert_int_equal(lock.depth, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_take_and_drop, setup),
        cmocka_unit_test_setup(test_handler_refused_inside_bookkeeping, setup),
        cmocka_unit_test_setup(test_handler_takes_again_inside_fork_hold, setup),
        cmocka_unit_test_setup(test_fork_inside_fork_hold, setup),
        cmocka_unit_test_setup(test_fork_from_handler_inside_bookkeeping, setup),
        cmocka_unit_test_setup(test_other_threads_hold, setup),
        cmocka_unit_test_setup(test_reset_in_child_after_fork_hold, setup),
        cmocka_unit_test_setup(test_handler_refused_on_another_threads_fork, setup),
        cmocka_unit_test_setup(test_wait_for_another_threads_fork_is_bounded, setup),
        cmocka_unit_test_setup(test_waits_for_a_fork_that_ends, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
