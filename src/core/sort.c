/* sort.c — see sort.h. */
#include "sort.h"

#include <stdint.h>
#include <string.h>

/* Rows are large (a report file is over a kilobyte): moved in blocks. */
static void swap(unsigned char *a, unsigned char *b, size_t size)
{
    unsigned char t[256];
    while (size) {
        size_t n = size < sizeof t ? size : sizeof t;
        memcpy(t, a, n);
        memcpy(a, b, n);
        memcpy(b, t, n);
        a += n;
        b += n;
        size -= n;
    }
}

/* Moves the element at i down the max-heap of n elements. */
static void sift_down(unsigned char *base, size_t i, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t big = i, l = 2 * i + 1, r = l + 1;
        if (l < n && cmp(base + l * size, base + big * size) > 0)
            big = l;
        if (r < n && cmp(base + r * size, base + big * size) > 0)
            big = r;
        if (big == i)
            return;
        swap(base + i * size, base + big * size, size);
        i = big;
    }
}

void st_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char *b = base;
    if (n < 2)
        return;
    /* Two elements, the commonest call (a file's two call sites, 2.3 KB
     * each): the heap below would swap them twice to leave them as they
     * were. Its result, in one comparison and at most one swap: kept when
     * the second is the greater, else swapped, equal ones too. */
    if (n == 2) {
        if (cmp(b + size, b) <= 0)
            swap(b, b + size, size);
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(b, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        swap(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}

/* sift_down over indexes into base. */
static void sift_down_index(size_t *order, size_t i, size_t n, const unsigned char *base,
                            size_t size, int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t big = i, l = 2 * i + 1, r = l + 1;
        if (l < n && cmp(base + order[l] * size, base + order[big] * size) > 0)
            big = l;
        if (r < n && cmp(base + order[r] * size, base + order[big] * size) > 0)
            big = r;
        if (big == i)
            return;
        size_t t = order[i];
        order[i] = order[big];
        order[big] = t;
        i = big;
    }
}

void st_sort_rows(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
                  size_t *order)
{
    unsigned char *b = base;
    if (n < 2)
        return;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n / 2; i-- > 0;)
        sift_down_index(order, i, n, b, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        size_t t = order[0];
        order[0] = order[end];
        order[end] = t;
        sift_down_index(order, 0, end, b, size, cmp);
    }
    /* Position i takes the element at order[i]: each cycle of the
     * permutation is followed, one swap putting one element in place. */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (order[j] != i) {
            size_t k = order[j];
            swap(b + j * size, b + k * size, size);
            order[j] = j;
            j = k;
        }
        order[j] = j;
    }
}

static int cmp_u64_desc(uint64_t x, uint64_t y)
{
    return x == y ? 0 : x > y ? -1 : 1;
}

int st_rank_cmp(const struct st_rank *x, const struct st_rank *y)
{
    int c = cmp_u64_desc(x->a, y->a);
    if (!c)
        c = cmp_u64_desc(x->b, y->b);
    if (!c)
        c = cmp_u64_desc(x->c, y->c);
    if (!c && x->name && y->name)
        c = strcmp(x->name, y->name);
    if (!c)
        c = x->id == y->id ? 0 : x->id < y->id ? -1 : 1;
    return c;
}

static int rank_cmp(const void *x, const void *y)
{
    return st_rank_cmp(x, y);
}

/* The root is the rank that comes last: the one a better offer replaces. */
static void topk_sift(struct st_topk *t, size_t i)
{
    for (;;) {
        size_t last = i, l = 2 * i + 1, r = l + 1;
        if (l < t->n && st_rank_cmp(&t->v[l], &t->v[last]) > 0)
            last = l;
        if (r < t->n && st_rank_cmp(&t->v[r], &t->v[last]) > 0)
            last = r;
        if (last == i)
            return;
        struct st_rank tmp = t->v[i];
        t->v[i] = t->v[last];
        t->v[last] = tmp;
        i = last;
    }
}

void st_topk_offer(struct st_topk *t, const struct st_rank *r)
{
    if (t->cap == 0)
        return;
    if (t->n < t->cap) {
        size_t i = t->n++;
        t->v[i] = *r;
        while (i > 0 && st_rank_cmp(&t->v[(i - 1) / 2], &t->v[i]) < 0) {
            struct st_rank tmp = t->v[i];
            t->v[i] = t->v[(i - 1) / 2];
            t->v[(i - 1) / 2] = tmp;
            i = (i - 1) / 2;
        }
        return;
    }
    if (st_rank_cmp(r, &t->v[0]) >= 0)
        return;
    t->v[0] = *r;
    topk_sift(t, 0);
}

void st_topk_sort(struct st_topk *t)
{
    st_sort(t->v, t->n, sizeof *t->v, rank_cmp);
}
