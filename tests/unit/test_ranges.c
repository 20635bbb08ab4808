/* Unit tests: the re-read interval set (src/core/ranges.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ranges.h"

static void *zalloc(size_t n) { return calloc(1, n); }
static void release(void *p, size_t n) { (void)n; free(p); }

static int setup(void **state)
{
    struct st_ranges *r = malloc(sizeof *r);
    st_ranges_init(r, zalloc, release);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    struct st_ranges *r = *state;
    free(r->v);
    free(r);
    return 0;
}

static void first_read_is_never_a_reread(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 0, 4096), 0);
    assert_int_equal(r->n, 1);
}

static void same_range_twice_is_all_reread(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 4096, 4096);
    assert_int_equal(st_ranges_add(r, 4096, 4096), 4096);
    assert_int_equal(r->n, 1);
}

static void partial_overlap_counts_only_the_overlap(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 100, 100);                          /* [100,200) */
    assert_int_equal(st_ranges_add(r, 150, 100), 50);    /* [150,250) */
    assert_int_equal(r->n, 1);
    assert_int_equal(r->v[0].start, 100);
    assert_int_equal(r->v[0].end, 250);
}

static void adjacent_ranges_merge_without_overlap(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 0, 10), 0);
    assert_int_equal(st_ranges_add(r, 10, 10), 0);
    assert_int_equal(r->n, 1);
    assert_int_equal(r->v[0].end, 20);
}

static void a_range_spanning_several_counts_each_and_folds_them(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 0, 10);    /* [0,10)  */
    st_ranges_add(r, 20, 10);   /* [20,30) */
    st_ranges_add(r, 40, 10);   /* [40,50) */
    assert_int_equal(r->n, 3);
    assert_int_equal(st_ranges_add(r, 5, 40), 5 + 10 + 5); /* [5,45) */
    assert_int_equal(r->n, 1);
    assert_int_equal(r->v[0].start, 0);
    assert_int_equal(r->v[0].end, 50);
}

static void disjoint_ranges_stay_sorted(void **state)
{
    struct st_ranges *r = *state;
    for (uint64_t i = 100; i > 0; i--)
        assert_int_equal(st_ranges_add(r, i * 100, 10), 0);
    assert_int_equal(r->n, 100);
    for (size_t i = 1; i < r->n; i++)
        assert_true(r->v[i - 1].end < r->v[i].start);
    assert_int_equal(st_ranges_add(r, 0, 100000), 1000);
    assert_int_equal(r->n, 1);
}

static void clear_forgets(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 0, 10);
    st_ranges_clear(r);
    assert_int_equal(st_ranges_add(r, 0, 10), 0);
}

static void zero_length_changes_nothing(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 5, 0), 0);
    assert_int_equal(r->n, 0);
}

static void *failing_alloc(size_t n) { (void)n; return NULL; }

static void out_of_memory_undercounts_never_overcounts(void **state)
{
    (void)state;
    struct st_ranges r;
    st_ranges_init(&r, failing_alloc, NULL);
    assert_int_equal(st_ranges_add(&r, 0, 10), 0);
    assert_int_equal(st_ranges_add(&r, 0, 10), 0);
    assert_int_equal(r.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(first_read_is_never_a_reread, setup, teardown),
        cmocka_unit_test_setup_teardown(same_range_twice_is_all_reread, setup, teardown),
        cmocka_unit_test_setup_teardown(partial_overlap_counts_only_the_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(adjacent_ranges_merge_without_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(a_range_spanning_several_counts_each_and_folds_them, setup, teardown),
        cmocka_unit_test_setup_teardown(disjoint_ranges_stay_sorted, setup, teardown),
        cmocka_unit_test_setup_teardown(clear_forgets, setup, teardown),
        cmocka_unit_test_setup_teardown(zero_length_changes_nothing, setup, teardown),
        cmocka_unit_test(out_of_memory_undercounts_never_overcounts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
