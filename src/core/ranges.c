/* ranges.c — sorted disjoint interval set with exact overlap counting. */
#include "ranges.h"

#include <string.h>

/* Past this many disjoint ranges (16 MiB of array) we stop growing: a file
 * read at a million scattered places has told its story already. */
#define ST_RANGES_MAX (1u << 20)

void st_ranges_init(struct st_ranges *r, void *(*alloc)(size_t),
                    void (*release)(void *, size_t))
{
    memset(r, 0, sizeof *r);
    r->alloc = alloc;
    r->release = release;
}

int st_ranges_full(const struct st_ranges *r)
{
    return r->cap >= ST_RANGES_MAX && r->n == r->cap;
}

void st_ranges_clear(struct st_ranges *r)
{
    r->n = 0;
}

/* Index of the first range whose end is >= start: the first one that
 * overlaps or touches [start, ...). */
static size_t first_touching(const struct st_ranges *r, uint64_t start)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].end < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int grow(struct st_ranges *r)
{
    size_t cap = r->cap ? r->cap * 2 : 16;
    if (cap > ST_RANGES_MAX)
        cap = ST_RANGES_MAX;
    if (cap <= r->cap)
        return -1;
    struct st_range *v = r->alloc(cap * sizeof *v);
    if (!v)
        return -1;
    if (r->n)
        memcpy(v, r->v, r->n * sizeof *v);
    if (r->v && r->release)
        r->release(r->v, r->cap * sizeof *v);
    r->v = v;
    r->cap = cap;
    return 0;
}

uint64_t st_ranges_add(struct st_ranges *r, uint64_t start, uint64_t len)
{
    if (len == 0)
        return 0;
    uint64_t end = start + len;
    size_t i = first_touching(r, start);
    size_t j = i;
    uint64_t overlap = 0, lo = start, hi = end;

    /* Ranges i..j-1 overlap or touch [start, end): count the overlap and
     * fold them into one. */
    while (j < r->n && r->v[j].start <= end) {
        uint64_t a = r->v[j].start > start ? r->v[j].start : start;
        uint64_t b = r->v[j].end < end ? r->v[j].end : end;
        if (b > a)
            overlap += b - a;
        if (r->v[j].start < lo)
            lo = r->v[j].start;
        if (r->v[j].end > hi)
            hi = r->v[j].end;
        j++;
    }

    if (j > i) {
        r->v[i].start = lo;
        r->v[i].end = hi;
        memmove(&r->v[i + 1], &r->v[j], (r->n - j) * sizeof *r->v);
        r->n -= j - i - 1;
        return overlap;
    }
    if (r->n == r->cap && grow(r) != 0)
        return overlap;
    memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof *r->v);
    r->v[i].start = start;
    r->v[i].end = end;
    r->n++;
    return overlap;
}
