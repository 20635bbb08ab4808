/* Unit tests: the allocation-free sort (src/core/sort.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sort.h"

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static void sorts_every_length_and_duplicates(void **state)
{
    (void)state;
    int v[257];
    for (size_t n = 0; n <= 257; n++) {
        for (size_t i = 0; i < n; i++)
            v[i] = (int)((i * 7919u) % 13u); /* duplicates galore */
        st_sort(v, n, sizeof v[0], ascending);
        for (size_t i = 1; i < n; i++)
            assert_true(v[i - 1] <= v[i]);
    }
}

struct wide {
    char pad[37];
    int key;
};

static int by_key(const void *a, const void *b)
{
    return ascending(&((const struct wide *)a)->key, &((const struct wide *)b)->key);
}

static void sorts_odd_sized_elements(void **state)
{
    (void)state;
    struct wide w[100];
    for (int i = 0; i < 100; i++) {
        w[i].key = 99 - i;
        w[i].pad[0] = (char)i;
    }
    st_sort(w, 100, sizeof w[0], by_key);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(w[i].key, i);
        assert_int_equal(w[i].pad[0], 99 - i); /* the element moved whole */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sorts_every_length_and_duplicates),
        cmocka_unit_test(sorts_odd_sized_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
