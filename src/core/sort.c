/* sort.c — see sort.h. */
#include "sort.h"

#include <stdint.h>

static void swap(unsigned char *a, unsigned char *b, size_t size)
{
    while (size--) {
        unsigned char t = *a;
        *a++ = *b;
        *b++ = t;
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
    for (size_t i = n / 2; i-- > 0;)
        sift_down(b, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        swap(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}
