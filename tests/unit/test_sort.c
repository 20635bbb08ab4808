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

/* Two elements as the heap sorts them, which reports have always shown:
 * kept when in order, swapped when not, and equal ones swapped too. */
static void two_elements_as_the_heap_leaves_them(void **state)
{
    (void)state;
    struct wide v[2] = {{"a", 1}, {"b", 2}};
    st_sort(v, 2, sizeof v[0], by_key);
    assert_true(v[0].pad[0] == 'a' && v[1].pad[0] == 'b');
    v[0] = (struct wide){"c", 3};
    v[1] = (struct wide){"d", 2};
    st_sort(v, 2, sizeof v[0], by_key);
    assert_true(v[0].pad[0] == 'd' && v[1].pad[0] == 'c');
    v[0] = (struct wide){"e", 5};
    v[1] = (struct wide){"f", 5};
    st_sort(v, 2, sizeof v[0], by_key);
    assert_true(v[0].pad[0] == 'f' && v[1].pad[0] == 'e');
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

/* st_sort_rows gives st_sort's order, each element moved whole, for every
 * length (every shape of permutation cycles) and a payload wider than
 * swap's block. */
struct row {
    int key;
    unsigned id;
    char payload[300];
};

static int row_by_key(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = ascending(&x->key, &y->key);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void sorts_rows_through_indexes(void **state)
{
    (void)state;
    enum { MAX = 130 };
    static struct row rows[MAX], ref[MAX];
    size_t order[MAX];
    for (size_t n = 0; n <= MAX; n++) {
        for (size_t i = 0; i < n; i++) {
            rows[i].key = (int)((i * 7919u) % 17u);
            rows[i].id = (unsigned)i;
            for (size_t k = 0; k < sizeof rows[i].payload; k++)
                rows[i].payload[k] = (char)(i + k);
            ref[i] = rows[i];
        }
        st_sort_rows(rows, n, sizeof rows[0], row_by_key, order);
        st_sort(ref, n, sizeof ref[0], row_by_key);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(rows[i].key, ref[i].key);
            assert_int_equal(rows[i].id, ref[i].id);
            assert_int_equal(rows[i].payload[299], (char)(rows[i].id + 299));
            if (i > 0)
                assert_true(row_by_key(&rows[i - 1], &rows[i]) < 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sorts_every_length_and_duplicates),
        cmocka_unit_test(sorts_odd_sized_elements),
        cmocka_unit_test(two_elements_as_the_heap_leaves_them),
        cmocka_unit_test(sorts_rows_through_indexes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
