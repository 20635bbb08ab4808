/* ranges.c — sorted disjoint interval set with exact overlap counting, kept in
 * chunks (see ranges.h). */
#include "ranges.h"

#include <string.h>

/* Past this many disjoint ranges we stop growing: a file read at a million
 * scattered places has told its story already. Chunks are at least half
 * full after a split, but merges can thin them, so their number is capped
 * too: at most 32 MiB of chunks. */
#define ST_RANGES_MAX (1u << 20)
#define MAX_CHUNKS (ST_RANGES_MAX / (ST_RANGES_CHUNK / 2))

void st_ranges_init(struct st_ranges *r, void *(*alloc)(size_t),
                    void (*release)(void *, size_t))
{
    memset(r, 0, sizeof *r);
    r->hint_c = SIZE_MAX;
    r->alloc = alloc;
    r->release = release;
}

int st_ranges_full(const struct st_ranges *r)
{
    return r->full;
}

static void put_free(struct st_ranges *r, struct st_range_chunk *c)
{
    c->n = 0;
    c->next_free = r->free;
    r->free = c;
}

void st_ranges_clear(struct st_ranges *r)
{
    for (size_t i = 0; i < r->nchunks; i++)
        put_free(r, r->chunks[i]);
    r->nchunks = 0;
    r->n = 0;
    r->full = 0;
    r->hint_c = SIZE_MAX;
}

void st_ranges_free(struct st_ranges *r)
{
    st_ranges_clear(r);
    if (r->release) {
        while (r->free) {
            struct st_range_chunk *c = r->free;
            r->free = c->next_free;
            r->release(c, sizeof *c);
        }
        if (r->chunks)
            r->release(r->chunks, r->cap * sizeof(struct st_range_chunk *));
    }
    r->chunks = NULL;
    r->cap = 0;
    r->free = NULL;
}

size_t st_ranges_count(const struct st_ranges *r)
{
    return r->n;
}

struct st_range st_ranges_at(const struct st_ranges *r, size_t i)
{
    for (size_t c = 0; c < r->nchunks; c++) {
        if (i < r->chunks[c]->n)
            return r->chunks[c]->v[i];
        i -= r->chunks[c]->n;
    }
    return (struct st_range){0, 0};
}

static struct st_range_chunk *new_chunk(struct st_ranges *r)
{
    struct st_range_chunk *c = r->free;
    if (c)
        r->free = c->next_free;
    else if ((c = r->alloc(sizeof *c)) == NULL)
        return NULL;
    c->n = 0;
    c->next_free = NULL;
    return c;
}

/* Room for one more chunk pointer. */
static int reserve(struct st_ranges *r)
{
    if (r->nchunks < r->cap)
        return 0;
    if (r->nchunks >= MAX_CHUNKS)
        return -1;
    size_t cap = r->cap ? r->cap * 2 : 16;
    struct st_range_chunk **p = r->alloc(cap * sizeof(struct st_range_chunk *));
    if (!p)
        return -1;
    if (r->nchunks)
        memcpy(p, r->chunks, r->nchunks * sizeof(struct st_range_chunk *));
    if (r->chunks && r->release)
        r->release(r->chunks, r->cap * sizeof(struct st_range_chunk *));
    r->chunks = p;
    r->cap = cap;
    return 0;
}

/* A new chunk at index ci (the ones from ci on move up); NULL when out of
 * memory or chunks. */
static struct st_range_chunk *add_chunk_at(struct st_ranges *r, size_t ci)
{
    struct st_range_chunk *c;
    if (reserve(r) != 0 || (c = new_chunk(r)) == NULL)
        return NULL;
    memmove(&r->chunks[ci + 1], &r->chunks[ci],
            (r->nchunks - ci) * sizeof(struct st_range_chunk *));
    r->chunks[ci] = c;
    r->nchunks++;
    return c;
}

/* The first range whose end is >= start (the first that overlaps or
 * touches [start, ...)): chunk *ci, index *ii; *ci == nchunks if none. */
static void locate(const struct st_ranges *r, uint64_t start, size_t *ci, size_t *ii)
{
    size_t lo = 0, hi = r->nchunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct st_range_chunk *c = r->chunks[mid];
        if (c->v[c->n - 1].end < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    *ci = lo;
    *ii = 0;
    if (lo == r->nchunks)
        return;
    const struct st_range_chunk *c = r->chunks[lo];
    size_t a = 0, b = c->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (c->v[mid].end < start)
            a = mid + 1;
        else
            b = mid;
    }
    *ii = a;
}

/* Inserts x before position (ci, ii), where x lies strictly between the
 * ranges before and after that position. */
static int insert_at(struct st_ranges *r, size_t ci, size_t ii, struct st_range x)
{
    if (r->n >= ST_RANGES_MAX)
        return -1;
    /* At the front of a chunk (or past the last one), the end of the chunk
     * before is the same place in the order, and nothing has to move. */
    if (ii == 0 && ci > 0 && r->chunks[ci - 1]->n < ST_RANGES_CHUNK) {
        struct st_range_chunk *c = r->chunks[ci - 1];
        c->v[c->n++] = x;
        r->n++;
        return 0;
    }
    if (ci == r->nchunks) {
        struct st_range_chunk *c = add_chunk_at(r, ci);
        if (!c)
            return -1;
        c->v[0] = x;
        c->n = 1;
        r->n++;
        return 0;
    }
    struct st_range_chunk *c = r->chunks[ci];
    if (c->n == ST_RANGES_CHUNK) {
        /* Full: split it in halves, the upper one into a new chunk. */
        struct st_range_chunk *d = add_chunk_at(r, ci + 1);
        if (!d)
            return -1;
        size_t half = ST_RANGES_CHUNK / 2;
        memcpy(d->v, c->v + half, (ST_RANGES_CHUNK - half) * sizeof *d->v);
        d->n = ST_RANGES_CHUNK - half;
        c->n = half;
        if (ii > half) {
            c = d;
            ii -= half;
        }
    }
    memmove(&c->v[ii + 1], &c->v[ii], (c->n - ii) * sizeof *c->v);
    c->v[ii] = x;
    c->n++;
    r->n++;
    return 0;
}

/* Removes the `count` ranges that follow position (ci, ii). */
static void remove_after(struct st_ranges *r, size_t ci, size_t ii, size_t count)
{
    struct st_range_chunk *first = r->chunks[ci];
    r->n -= count;
    size_t take = first->n - ii - 1 < count ? first->n - ii - 1 : count;
    memmove(&first->v[ii + 1], &first->v[ii + 1 + take],
            (first->n - ii - 1 - take) * sizeof *first->v);
    first->n -= take;
    count -= take;
    size_t c = ci + 1, dropped = 0;
    while (count > 0) {
        struct st_range_chunk *ch = r->chunks[c];
        if (ch->n <= count) { /* every range in it goes: so does the chunk */
            count -= ch->n;
            put_free(r, ch);
            dropped++;
            c++;
            continue;
        }
        memmove(&ch->v[0], &ch->v[count], (ch->n - count) * sizeof *ch->v);
        ch->n -= count;
        count = 0;
    }
    if (dropped) {
        memmove(&r->chunks[ci + 1], &r->chunks[ci + 1 + dropped],
                (r->nchunks - ci - 1 - dropped) * sizeof(struct st_range_chunk *));
        r->nchunks -= dropped;
    }
}

/* The range the hint names, if the hint is still good. */
static struct st_range *hinted(const struct st_ranges *r)
{
    if (r->hint_c >= r->nchunks || r->hint_i >= r->chunks[r->hint_c]->n)
        return NULL;
    return &r->chunks[r->hint_c]->v[r->hint_i];
}

/* The start of the range after the hinted one, UINT64_MAX if it is last. */
static uint64_t start_after_hint(const struct st_ranges *r)
{
    const struct st_range_chunk *c = r->chunks[r->hint_c];
    if (r->hint_i + 1 < c->n)
        return c->v[r->hint_i + 1].start;
    return r->hint_c + 1 < r->nchunks ? r->chunks[r->hint_c + 1]->v[0].start : UINT64_MAX;
}

/* The general case: find where [start, end) goes, count what it overlaps
 * and fold what it touches. Out of line, so the hinted adds above (most of
 * them: a read per refill) do not pay for its registers. */
__attribute__((noinline)) static uint64_t add_located(struct st_ranges *r, uint64_t start,
                                                      uint64_t end)
{
    uint64_t len = end - start;
    size_t ci, ii;
    locate(r, start, &ci, &ii);
    /* Bytes inside one known range (a block read again): all of it was
     * there, and the set does not change. */
    if (ci < r->nchunks && r->chunks[ci]->v[ii].start <= start && r->chunks[ci]->v[ii].end >= end) {
        r->hint_c = ci;
        r->hint_i = ii;
        return len;
    }

    /* The ranges from (ci, ii) on that overlap or touch [start, end): count
     * the overlap, and fold them into the first. */
    uint64_t overlap = 0, lo = start, hi = end;
    size_t folded = 0;
    for (size_t c = ci, i = ii; c < r->nchunks; c++, i = 0) {
        const struct st_range_chunk *ch = r->chunks[c];
        for (; i < ch->n && ch->v[i].start <= end; i++) {
            uint64_t a = ch->v[i].start > start ? ch->v[i].start : start;
            uint64_t b = ch->v[i].end < end ? ch->v[i].end : end;
            if (b > a)
                overlap += b - a;
            if (ch->v[i].start < lo)
                lo = ch->v[i].start;
            if (ch->v[i].end > hi)
                hi = ch->v[i].end;
            folded++;
        }
        if (i < ch->n)
            break;
    }

    if (folded == 0) {
        /* Where the new range lands (a chunk may split, an earlier chunk
         * take it) is insert_at's business: no hint. */
        r->hint_c = SIZE_MAX;
        if (insert_at(r, ci, ii, (struct st_range){start, end}) != 0)
            r->full = 1;
        return overlap;
    }
    r->chunks[ci]->v[ii] = (struct st_range){lo, hi};
    if (folded > 1)
        remove_after(r, ci, ii, folded - 1);
    /* remove_after only takes ranges after (ci, ii) and chunks after ci. */
    r->hint_c = ci;
    r->hint_i = ii;
    return overlap;
}

int st_ranges_last(const struct st_ranges *r, struct st_range *out)
{
    const struct st_range *h = hinted(r);
    if (h)
        *out = *h;
    return h != NULL;
}

uint64_t st_ranges_add(struct st_ranges *r, uint64_t start, uint64_t len)
{
    if (len == 0)
        return 0;
    uint64_t end = start + len;
    /* [start, end) begins inside or right at the end of the hinted range:
     * it is in it, or it extends it without reaching the next one. Ranges
     * never touch, so no range before the hinted one is concerned. */
    struct st_range *h = hinted(r);
    if (h && h->start <= start && start <= h->end) {
        if (end <= h->end)
            return len;
        if (start_after_hint(r) > end) {
            uint64_t overlap = h->end - start;
            h->end = end;
            return overlap;
        }
    }
    return add_located(r, start, end);
}
