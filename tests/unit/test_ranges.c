/* Unit tests: the re-read interval set (src/core/ranges.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ranges.h"

/* What the last add says holds its bytes. */
static struct st_range held;

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
    st_ranges_free(r);
    free(r);
    return 0;
}

static void first_read_is_never_a_reread(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 0, 4096, &held), 0);
    assert_int_equal(st_ranges_count(r), 1);
}

static void same_range_twice_is_all_reread(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 4096, 4096, &held);
    assert_int_equal(st_ranges_add(r, 4096, 4096, &held), 4096);
    assert_int_equal(st_ranges_count(r), 1);
}

static void partial_overlap_counts_only_the_overlap(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 100, 100, &held);                          /* [100,200) */
    assert_int_equal(st_ranges_add(r, 150, 100, &held), 50);    /* [150,250) */
    assert_int_equal(st_ranges_count(r), 1);
    assert_int_equal(st_ranges_at(r, 0).start, 100);
    assert_int_equal(st_ranges_at(r, 0).end, 250);
}

static void adjacent_ranges_merge_without_overlap(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 0, 10, &held), 0);
    assert_int_equal(st_ranges_add(r, 10, 10, &held), 0);
    assert_int_equal(st_ranges_count(r), 1);
    assert_int_equal(st_ranges_at(r, 0).end, 20);
}

static void a_range_spanning_several_counts_each_and_folds_them(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 0, 10, &held);    /* [0,10)  */
    st_ranges_add(r, 20, 10, &held);   /* [20,30) */
    st_ranges_add(r, 40, 10, &held);   /* [40,50) */
    assert_int_equal(st_ranges_count(r), 3);
    assert_int_equal(st_ranges_add(r, 5, 40, &held), 5 + 10 + 5); /* [5,45) */
    assert_int_equal(st_ranges_count(r), 1);
    assert_int_equal(st_ranges_at(r, 0).start, 0);
    assert_int_equal(st_ranges_at(r, 0).end, 50);
}

static void disjoint_ranges_stay_sorted(void **state)
{
    struct st_ranges *r = *state;
    for (uint64_t i = 100; i > 0; i--)
        assert_int_equal(st_ranges_add(r, i * 100, 10, &held), 0);
    assert_int_equal(st_ranges_count(r), 100);
    for (size_t i = 1; i < st_ranges_count(r); i++)
        assert_true(st_ranges_at(r, i - 1).end < st_ranges_at(r, i).start);
    assert_int_equal(st_ranges_add(r, 0, 100000, &held), 1000);
    assert_int_equal(st_ranges_count(r), 1);
}

static void clear_forgets(void **state)
{
    struct st_ranges *r = *state;
    st_ranges_add(r, 0, 10, &held);
    st_ranges_clear(r);
    assert_int_equal(st_ranges_add(r, 0, 10, &held), 0);
}

static void zero_length_changes_nothing(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 5, 0, &held), 0);
    assert_int_equal(st_ranges_count(r), 0);
}

/* The hinted range (the last one added to) is extended in place, but never
 * up to a range after it: reaching one folds the two, as without a hint. */
static void extending_the_last_range_stops_at_the_next(void **state)
{
    struct st_ranges *r = *state;
    assert_int_equal(st_ranges_add(r, 10000, 100, &held), 0);
    for (uint64_t at = 0; at < 8192; at += 1024)
        assert_int_equal(st_ranges_add(r, at, 1024, &held), 0); /* sequential: one range */
    assert_int_equal(st_ranges_count(r), 2);
    assert_int_equal(st_ranges_add(r, 100, 50, &held), 50);     /* inside the hinted range */
    assert_int_equal(st_ranges_add(r, 8000, 1000, &held), 192); /* extends it: 8192..9000 new */
    assert_int_equal(st_ranges_count(r), 2);
    assert_int_equal(st_ranges_add(r, 9000, 1000, &held), 0);   /* now touches 10000: folds */
    assert_int_equal(st_ranges_count(r), 1);
    assert_int_equal(st_ranges_at(r, 0).start, 0);
    assert_int_equal(st_ranges_at(r, 0).end, 10100);
    assert_int_equal(st_ranges_add(r, 9500, 700, &held), 600);  /* past the end: 10100..10200 */
    assert_int_equal(st_ranges_at(r, 0).end, 10200);
    assert_int_equal(held.start, 0);
    assert_int_equal(held.end, 10200);
    st_ranges_clear(r);
    assert_int_equal(st_ranges_add(r, 0, 10, &held), 0);        /* the hint went with the set */
    assert_int_equal(held.start, 0);
    assert_int_equal(held.end, 10);
}

/* The hinted range as its chunk's last: extending it moves the chunk's end
 * (later adds that search for a byte go by it), and stops short of the
 * next chunk's first range; reaching that range folds the two. */
static void extending_a_chunks_last_range_follows_its_end(void **state)
{
    struct st_ranges *r = *state;
    for (uint64_t i = 0; i < 3 * ST_RANGES_CHUNK; i++) /* full chunks of [i*100, i*100+10) */
        assert_int_equal(st_ranges_add(r, i * 100, 10, &held), 0);
    const uint64_t last = (ST_RANGES_CHUNK - 1) * 100; /* chunk 0's last range */
    const uint64_t next = ST_RANGES_CHUNK * 100;       /* chunk 1's first */
    assert_int_equal(st_ranges_add(r, last + 5, 20, &held), 5);  /* hinted from here on */
    assert_int_equal(st_ranges_add(r, last + 25, 50, &held), 0); /* right at its end */
    assert_int_equal(held.start, last);
    assert_int_equal(held.end, last + 75);
    assert_int_equal(st_ranges_add(r, last + 70, 10, &held), 5); /* over its end */
    assert_int_equal(st_ranges_count(r), 3 * ST_RANGES_CHUNK);
    assert_int_equal(st_ranges_add(r, 50, 10, &held), 0);        /* elsewhere: hint moves */
    /* Found by the chunks' ends: [last, last + 80) is chunk 0's now. */
    assert_int_equal(st_ranges_add(r, last + 60, 15, &held), 15);
    assert_int_equal(held.start, last);
    assert_int_equal(held.end, last + 80);
    assert_int_equal(st_ranges_add(r, last + 79, 21, &held), 1); /* touches chunk 1's first */
    assert_int_equal(held.start, last);
    assert_int_equal(held.end, next + 10);
    assert_int_equal(st_ranges_count(r), 3 * ST_RANGES_CHUNK);   /* one more, one folded */
    /* The very last range has nothing after it. */
    const uint64_t end = 3 * ST_RANGES_CHUNK * 100;
    assert_int_equal(st_ranges_add(r, end - 100, 10, &held), 10);
    assert_int_equal(st_ranges_add(r, end - 90, 1000, &held), 0);
    assert_int_equal(st_ranges_at(r, st_ranges_count(r) - 1).end, end + 910);
    /* A gap after the hinted range, and a read before it, are not in it. */
    assert_int_equal(st_ranges_add(r, end + 911, 5, &held), 0);
    assert_int_equal(held.start, end + 911);
    assert_int_equal(st_ranges_add(r, end + 900, 20, &held), 15);
    assert_int_equal(held.start, end - 100);
    assert_int_equal(held.end, end + 920);
}

static void *failing_alloc(size_t n) { (void)n; return NULL; }

/* The first range needs no memory; one apart from it does. */
static void out_of_memory_undercounts_never_overcounts(void **state)
{
    (void)state;
    struct st_ranges r;
    st_ranges_init(&r, failing_alloc, NULL);
    assert_int_equal(st_ranges_add(&r, 100, 10, &held), 0);
    assert_int_equal(held.start, 100);
    assert_int_equal(held.end, 110);
    assert_false(st_ranges_full(&r));
    assert_int_equal(st_ranges_add(&r, 0, 10, &held), 0);
    assert_int_equal(held.end, 0); /* nothing holds it */
    assert_true(st_ranges_full(&r));
    assert_int_equal(st_ranges_add(&r, 0, 10, &held), 0);
    assert_int_equal(st_ranges_add(&r, 105, 10, &held), 5);
    assert_int_equal(st_ranges_count(&r), 1);
    assert_int_equal(st_ranges_at(&r, 0).start, 100);
    assert_int_equal(st_ranges_at(&r, 0).end, 115);
}

static int allocs;
static void *counting_alloc(size_t n)
{
    allocs++;
    return calloc(1, n);
}

/* A file read front to back, read again, and read from before its start
 * stays one range and allocates nothing; the first range apart from it
 * allocates the array and one chunk, and both ranges are kept in order. */
static void one_range_allocates_nothing(void **state)
{
    (void)state;
    struct st_ranges r;
    allocs = 0;
    st_ranges_init(&r, counting_alloc, release);
    for (uint64_t i = 0; i < 100; i++)
        assert_int_equal(st_ranges_add(&r, 1000 + i * 4096, 4096, &held), 0);
    assert_int_equal(st_ranges_add(&r, 1000, 409600, &held), 409600);
    assert_int_equal(st_ranges_add(&r, 500, 1000, &held), 500);
    assert_int_equal(st_ranges_add(&r, 0, 500, &held), 0); /* touches: folds */
    assert_int_equal(allocs, 0);
    assert_int_equal(st_ranges_count(&r), 1);
    assert_int_equal(st_ranges_at(&r, 0).start, 0);
    assert_int_equal(st_ranges_at(&r, 0).end, 410600);
    assert_int_equal(held.end, 410600);

    assert_int_equal(st_ranges_add(&r, 500000, 10, &held), 0);
    assert_int_equal(allocs, 2);
    assert_int_equal(st_ranges_count(&r), 2);
    assert_int_equal(st_ranges_at(&r, 0).end, 410600);
    assert_int_equal(st_ranges_at(&r, 1).start, 500000);
    assert_int_equal(st_ranges_add(&r, 410000, 90005, &held), 600 + 5);
    assert_int_equal(st_ranges_count(&r), 1);
    st_ranges_free(&r);
}

/* Every chunk boundary case at once: thousands of disjoint ranges inserted
 * out of order (chunks fill and split), then ranges that fold many of them,
 * across chunks, at once. */
static void many_ranges_split_and_fold_across_chunks(void **state)
{
    struct st_ranges *r = *state;
    const uint64_t n = 5000;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t i = (k * 2654435761u) % n; /* a permutation of 0..n-1 */
        assert_int_equal(st_ranges_add(r, i * 100, 10, &held), 0);
    }
    assert_int_equal(st_ranges_count(r), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(st_ranges_at(r, i).start, i * 100);
        assert_int_equal(st_ranges_at(r, i).end, i * 100 + 10);
    }
    /* [1005, 250005) touches ranges 10..2500: 5 bytes of the first, all of
     * 11..2499, 5 bytes of the last; they become [1000, 250010). */
    assert_int_equal(st_ranges_add(r, 1005, 249000, &held), 5 + (2499 - 11 + 1) * 10 + 5);
    assert_int_equal(st_ranges_count(r), n - (2500 - 10));
    assert_int_equal(st_ranges_at(r, 10).start, 1000);
    assert_int_equal(st_ranges_at(r, 10).end, 250010);
    assert_int_equal(st_ranges_at(r, 11).start, 250100);
    for (size_t i = 1; i < st_ranges_count(r); i++)
        assert_true(st_ranges_at(r, i - 1).end < st_ranges_at(r, i).start);
    /* Everything: ranges 0..9, the merged one, and 2501..4999. */
    assert_int_equal(st_ranges_add(r, 0, n * 100, &held),
                     10 * 10 + (250010 - 1000) + (n - 2501) * 10);
    assert_int_equal(st_ranges_count(r), 1);
}

/* The set against a plain byte map, over random reads in a file of `size`
 * bytes, mostly shorter than `len_short`, every `long_every`-th one up to
 * `len_long`: every overlap returned, every held range and every range kept
 * must agree. With `near` > 0, reads but every eighth start within `near`
 * bytes either side of where the last one ended (a sequential reader, and
 * the overlaps, gaps and steps back around it). */
static void check_against_byte_map(size_t size, int rounds, int ops, uint64_t len_short,
                                   int long_every, uint64_t len_long, uint64_t near)
{
    unsigned char *seen = malloc(size);
    assert_non_null(seen);
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < rounds; round++) {
        struct st_ranges r;
        st_ranges_init(&r, zalloc, release);
        for (size_t i = 0; i < size; i++)
            seen[i] = 0;
        uint64_t last_end = 0;
        for (int op = 0; op < ops; op++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t start = x % size;
            if (near && op % 8 != 0)
                start = (last_end + size - near + (x >> 40) % (2 * near + 1)) % size;
            uint64_t len = (x >> 20) % (op % long_every == 0 ? len_long : len_short);
            if (start + len > size)
                len = size - start;
            uint64_t expect = 0;
            for (uint64_t b = start; b < start + len; b++) {
                expect += seen[b];
                seen[b] = 1;
            }
            assert_int_equal(st_ranges_add(&r, start, len, &held), expect);
            last_end = start + len;
            if (len == 0) {
                assert_int_equal(held.end, 0);
                continue;
            }
            /* held is the maximal run of the map around the new bytes. */
            uint64_t lo = start, hi = start + len;
            while (lo > 0 && seen[lo - 1])
                lo--;
            while (hi < size && seen[hi])
                hi++;
            assert_int_equal(held.start, lo);
            assert_int_equal(held.end, hi);
        }
        /* The ranges are exactly the maximal runs of the map. */
        size_t k = 0;
        for (size_t b = 0; b < size;) {
            if (!seen[b]) {
                b++;
                continue;
            }
            size_t e = b;
            while (e < size && seen[e])
                e++;
            assert_true(k < st_ranges_count(&r));
            assert_int_equal(st_ranges_at(&r, k).start, b);
            assert_int_equal(st_ranges_at(&r, k).end, e);
            k++;
            b = e;
        }
        assert_int_equal(k, st_ranges_count(&r));
        assert_false(st_ranges_full(&r));
        st_ranges_free(&r);
    }
    free(seen);
}

static void random_reads_match_a_byte_map(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++)
        check_against_byte_map(1 << 14, 1, 3000, round % 4 == 0 ? 600 : 40, 1, 40, 0);
}

/* Enough ranges for hundreds of chunks (the array of chunk refs doubles
 * several times), and long reads that fold and drop whole chunks: the
 * searches must never stop at a chunk or slot that is no longer used. */
static void many_chunks_grow_and_drop_match_a_byte_map(void **state)
{
    (void)state;
    check_against_byte_map(1 << 18, 4, 20000, 16, 500, 4096, 0);
}

/* Mostly sequential reads, across many chunks: the hinted range is
 * extended, read again, stepped over and stepped back from. */
static void sequential_reads_match_a_byte_map(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++)
        check_against_byte_map(1 << 16, 1, 6000, round % 2 ? 64 : 512, 1, 64, round % 3 + 1);
}

static void clear_keeps_chunks_for_reuse(void **state)
{
    struct st_ranges *r = *state;
    for (uint64_t i = 0; i < 1000; i++)
        st_ranges_add(r, i * 10, 5, &held);
    st_ranges_clear(r);
    assert_int_equal(st_ranges_count(r), 0);
    assert_non_null(r->free);
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(st_ranges_add(r, i * 10 + 1, 5, &held), 0);
    assert_int_equal(st_ranges_count(r), 1000);
    assert_int_equal(st_ranges_add(r, 0, 10000, &held), 5000);
}

static int allocs_left;
static void *alloc_a_few(size_t n)
{
    return allocs_left-- > 0 ? calloc(1, n) : NULL;
}

static void running_out_midway_says_full_and_never_overcounts(void **state)
{
    (void)state;
    struct st_ranges r;
    allocs_left = 3; /* the array of chunk pointers and ends, and two chunks */
    st_ranges_init(&r, alloc_a_few, release);
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(st_ranges_add(&r, i * 10, 5, &held), 0);
    assert_true(st_ranges_full(&r));
    assert_int_equal(st_ranges_count(&r), 2 * ST_RANGES_CHUNK);
    /* Bytes it could not keep are not counted again; the ones it kept are. */
    uint64_t again = 0;
    for (uint64_t i = 0; i < 1000; i++)
        again += st_ranges_add(&r, i * 10, 5, &held);
    assert_int_equal(again, 2 * ST_RANGES_CHUNK * 5);
    st_ranges_free(&r);
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
        cmocka_unit_test_setup_teardown(extending_the_last_range_stops_at_the_next, setup, teardown),
        cmocka_unit_test_setup_teardown(extending_a_chunks_last_range_follows_its_end, setup, teardown),
        cmocka_unit_test(sequential_reads_match_a_byte_map),
        cmocka_unit_test(out_of_memory_undercounts_never_overcounts),
        cmocka_unit_test(one_range_allocates_nothing),
        cmocka_unit_test_setup_teardown(many_ranges_split_and_fold_across_chunks, setup, teardown),
        cmocka_unit_test(random_reads_match_a_byte_map),
        cmocka_unit_test(many_chunks_grow_and_drop_match_a_byte_map),
        cmocka_unit_test_setup_teardown(clear_keeps_chunks_for_reuse, setup, teardown),
        cmocka_unit_test(running_out_midway_says_full_and_never_overcounts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
