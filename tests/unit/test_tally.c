/* Unit tests: a cell's sparse counts (src/preload/accounts/tally.c). Two call kinds
 * live inline, the third brings the full array; totals, moves and zeroing
 * see every kind wherever it lives; a claim survives zeroing; and two
 * threads that claim at once agree on every kind's place. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tally.h"

static struct st_tally *fresh(void)
{
    static struct st_tally pool[16];
    static int used;
    assert_true(used < 16);
    return &pool[used++];
}

static void two_kinds_stay_inline(void **state)
{
    (void)state;
    struct st_tally *t = fresh();
    struct st_call_cost *seek = st_tally_cost(t, ST_CALL_FSEEK);
    struct st_call_cost *read = st_tally_cost(t, ST_CALL_FREAD);
    assert_ptr_equal(seek, &t->cost[0]);
    assert_ptr_equal(read, &t->cost[1]);
    assert_ptr_equal(st_tally_cost(t, ST_CALL_FSEEK), seek);
    assert_ptr_equal(st_tally_cost(t, ST_CALL_FREAD), read);
    assert_null(t->more);
    assert_int_equal(sizeof *t, 15 * 8 + 8 + 2 * sizeof(struct st_call_cost) + 8);
}

static void third_kind_takes_the_array(void **state)
{
    (void)state;
    struct st_tally *t = fresh();
    st_tally_cost(t, ST_CALL_FOPEN);
    st_tally_cost(t, ST_CALL_FREAD);
    struct st_call_cost *close = st_tally_cost(t, ST_CALL_FCLOSE);
    assert_non_null(t->more);
    assert_ptr_equal(close, &t->more[ST_CALL_FCLOSE]);
    assert_ptr_equal(st_tally_cost(t, ST_CALL_FTELL), &t->more[ST_CALL_FTELL]);
}

static void total_sums_every_kind(void **state)
{
    (void)state;
    struct st_tally *t = fresh();
    t->read_syscalls = 7;
    t->delivered_bytes = 100;
    st_tally_count_call(t, ST_CALL_FSEEK);
    st_tally_count_call(t, ST_CALL_FREAD);
    st_tally_count_call(t, ST_CALL_FREAD);
    st_tally_cost(t, ST_CALL_FREAD)->kernel_read_bytes = 4096;
    st_tally_count_call(t, ST_CALL_LSEEK);
    st_tally_cost(t, ST_CALL_LSEEK)->lseek_syscalls = 3;

    struct st_counts sum = {0};
    sum.read_syscalls = 1; /* added to, not overwritten */
    sum.by_call[ST_CALL_FREAD].calls = 10;
    st_tally_total(t, &sum);
    assert_int_equal(sum.read_syscalls, 8);
    assert_int_equal(sum.delivered_bytes, 100);
    assert_int_equal(sum.by_call[ST_CALL_FSEEK].calls, 1);
    assert_int_equal(sum.by_call[ST_CALL_FREAD].calls, 12);
    assert_int_equal(sum.by_call[ST_CALL_FREAD].kernel_read_bytes, 4096);
    assert_int_equal(sum.by_call[ST_CALL_LSEEK].calls, 1);
    assert_int_equal(sum.by_call[ST_CALL_LSEEK].lseek_syscalls, 3);
    assert_int_equal(sum.by_call[ST_CALL_GETC].calls, 0);
}

static void zero_keeps_claims_and_any_sees_each_place(void **state)
{
    (void)state;
    struct st_tally *t = fresh();
    assert_false(st_tally_any(t));
    st_tally_count_call(t, ST_CALL_GETC);
    assert_true(st_tally_any(t));
    st_tally_zero(t);
    assert_false(st_tally_any(t));
    assert_int_equal(t->kinds[0], ST_CALL_GETC + 1);

    st_tally_cost(t, ST_CALL_FGETS);
    st_tally_count_call(t, ST_CALL_EXIT); /* in the array */
    assert_true(st_tally_any(t));
    st_tally_zero(t);
    assert_false(st_tally_any(t));
    assert_ptr_equal(st_tally_cost(t, ST_CALL_EXIT), &t->more[ST_CALL_EXIT]);

    t->reread_bytes = 1;
    assert_true(st_tally_any(t));
}

static void move_adds_then_empties(void **state)
{
    (void)state;
    struct st_tally *from = fresh(), *to = fresh();
    st_tally_count_call(to, ST_CALL_FREAD);
    to->kernel_read_bytes = 10;
    from->kernel_read_bytes = 32;
    st_tally_count_call(from, ST_CALL_FSEEK);
    st_tally_count_call(from, ST_CALL_FREAD);
    st_tally_count_call(from, ST_CALL_FCLOSE);
    assert_int_equal(st_tally_move(to, from), 0);
    assert_false(st_tally_any(from));

    struct st_counts sum = {0};
    st_tally_total(to, &sum);
    assert_int_equal(sum.kernel_read_bytes, 42);
    assert_int_equal(sum.by_call[ST_CALL_FREAD].calls, 2);
    assert_int_equal(sum.by_call[ST_CALL_FSEEK].calls, 1);
    assert_int_equal(sum.by_call[ST_CALL_FCLOSE].calls, 1);
}

/* Threads claiming the same kinds in opposite orders on one tally. */
static struct st_tally shared;

static void *claimer(void *arg)
{
    int reverse = *(int *)arg;
    for (int i = 0; i < 100000; i++)
        st_tally_count_call(&shared, reverse ? (enum st_call)(ST_CALL_COUNT - 1 - i % 4)
                                             : (enum st_call)(ST_CALL_COUNT - 4 + i % 4));
    return NULL;
}

static void racing_claims_lose_nothing(void **state)
{
    (void)state;
    pthread_t a, b;
    int fwd = 0, rev = 1;
    assert_int_equal(pthread_create(&a, NULL, claimer, &fwd), 0);
    assert_int_equal(pthread_create(&b, NULL, claimer, &rev), 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    struct st_counts sum = {0};
    st_tally_total(&shared, &sum);
    for (int k = ST_CALL_COUNT - 4; k < ST_CALL_COUNT; k++)
        assert_int_equal(sum.by_call[k].calls, 50000);
    assert_int_not_equal(shared.kinds[0], shared.kinds[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_kinds_stay_inline),
        cmocka_unit_test(third_kind_takes_the_array),
        cmocka_unit_test(total_sums_every_kind),
        cmocka_unit_test(zero_keeps_claims_and_any_sees_each_place),
        cmocka_unit_test(move_adds_then_empties),
        cmocka_unit_test(racing_claims_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
