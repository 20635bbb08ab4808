/* Unit tests: the preload library's arena (src/preload/rt/arena.c). The arena
 * is one per process, so the tests run in order: small first, then past
 * the point where chunks become huge pages. */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arena.h"

#define MIB (1u << 20)

/* The /proc/self/smaps entry of the mapping that holds p: its start, and
 * whether it is advised for huge pages (VmFlags "hg"). */
static int mapping_of(const void *p, uintptr_t *start, int *huge)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int in = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)p >= a && (uintptr_t)p < b;
            if (in)
                *start = a;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            *huge = strstr(line, " hg") != NULL;
            found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

/* A kernel without transparent huge pages refuses the advice. */
static int thp_built_in(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f)
        fclose(f);
    return f != NULL;
}

static void small_blocks_are_aligned_zeroed_and_apart(void **state)
{
    (void)state;
    char *prev = NULL;
    size_t prev_n = 0;
    for (size_t n = 1; n < 3000; n += 37) {
        char *p = st_alloc(n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xa5, n);
        if (prev)
            assert_true(p >= prev + prev_n || p + n <= prev);
        prev = p;
        prev_n = n;
    }
    uintptr_t start = 0;
    int huge = -1;
    assert_true(mapping_of(prev, &start, &huge));
    assert_int_equal(huge, 0); /* a small program's records: plain pages */
    assert_true(st_arena_mapped() < 8 * MIB);
}

/* Tens of thousands of records later, new chunks start on 2 MiB boundaries
 * and are advised for huge pages, and so is a large block of its own. */
static void many_records_move_to_huge_pages(void **state)
{
    (void)state;
    char *p = NULL;
    while (st_arena_mapped() < 12 * MIB) {
        p = st_alloc(1264); /* a cell */
        assert_non_null(p);
        p[0] = 1;
    }
    uintptr_t start = 0;
    int huge = -1;
    assert_true(mapping_of(p, &start, &huge));
    assert_int_equal(huge, thp_built_in());
    assert_int_equal(start % (2 * MIB), 0);

    char *big = st_alloc(3 * MIB);
    assert_non_null(big);
    assert_int_equal(big[0], 0);
    assert_int_equal(big[3 * MIB - 1], 0);
    big[3 * MIB - 1] = 1;
    assert_true(mapping_of(big, &start, &huge));
    assert_int_equal(huge, thp_built_in());
    assert_int_equal(start % (2 * MIB), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_blocks_are_aligned_zeroed_and_apart),
        cmocka_unit_test(many_records_move_to_huge_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
