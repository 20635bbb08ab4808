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

/* Bytes per chunk in the array of chunk pointers and ends. */
#define REF_SIZE (sizeof(struct st_range_chunk *) + sizeof(uint64_t))

void st_ranges_init(struct st_ranges *r, void *(*alloc)(size_t),
                    void (*release)(void *, size_t))
{
    memset(r, 0, sizeof *r);
    r->alloc = alloc;
    r->release = release;
}

int st_ranges_full(const struct st_ranges *r)
{
    return r->full;
}

/* Slots past a chunk's ranges, and ends past the last chunk's, are
 * UINT64_MAX: locate then searches a chunk's ST_RANGES_CHUNK slots and all
 * `cap` ends (both powers of two) in a fixed number of halvings, with no
 * count to respect. */
static void unused_slots(struct st_range_chunk *c, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        c->v[i].end = UINT64_MAX;
}

static void unused_ends(struct st_ranges *r, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        r->ends[i] = UINT64_MAX;
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
    unused_ends(r, 0, r->nchunks);
    r->nchunks = 0;
    r->n = 0;
    r->full = 0;
    r->hint = NULL;
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
            r->release(r->chunks, r->cap * REF_SIZE);
    }
    r->chunks = NULL;
    r->ends = NULL;
    r->cap = 0;
    r->free = NULL;
}

size_t st_ranges_count(const struct st_ranges *r)
{
    return r->n;
}

struct st_range st_ranges_at(const struct st_ranges *r, size_t i)
{
    if (r->nchunks == 0)
        return i < r->n ? r->only : (struct st_range){0, 0};
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
    unused_slots(c, 0, ST_RANGES_CHUNK);
    return c;
}

/* Room for one more chunk: its pointer and its end, in one allocation
 * with the others. */
static int reserve(struct st_ranges *r)
{
    if (r->nchunks < r->cap)
        return 0;
    if (r->nchunks >= MAX_CHUNKS)
        return -1;
    size_t cap = r->cap ? r->cap * 2 : 16;
    struct st_range_chunk **p = r->alloc(cap * REF_SIZE);
    if (!p)
        return -1;
    uint64_t *ends = (uint64_t *)(p + cap);
    if (r->nchunks) {
        memcpy(p, r->chunks, r->nchunks * sizeof(struct st_range_chunk *));
        memcpy(ends, r->ends, r->nchunks * sizeof *ends);
    }
    if (r->chunks && r->release)
        r->release(r->chunks, r->cap * REF_SIZE);
    r->chunks = p;
    r->ends = ends;
    r->cap = cap;
    unused_ends(r, r->nchunks, cap);
    return 0;
}

/* A new chunk at index ci (the ones from ci on move up), its end for the
 * caller to set (sync_end); NULL when out of memory or chunks. */
static struct st_range_chunk *add_chunk_at(struct st_ranges *r, size_t ci)
{
    struct st_range_chunk *c;
    if (reserve(r) != 0 || (c = new_chunk(r)) == NULL)
        return NULL;
    memmove(&r->chunks[ci + 1], &r->chunks[ci],
            (r->nchunks - ci) * sizeof(struct st_range_chunk *));
    memmove(&r->ends[ci + 1], &r->ends[ci], (r->nchunks - ci) * sizeof *r->ends);
    r->chunks[ci] = c;
    r->nchunks++;
    return c;
}

/* Chunk ci's last range changed: so does its end. */
static void sync_end(struct st_ranges *r, size_t ci)
{
    const struct st_range_chunk *c = r->chunks[ci];
    r->ends[ci] = c->v[c->n - 1].end;
}

/* The first range whose end is >= start (the first that overlaps or
 * touches [start, ...)): chunk *ci, index *ii; *ci == nchunks if none.
 * Both searches halve a power-of-two span (the unused slots and ends are
 * at UINT64_MAX, so they are never passed) without branching on the
 * comparison: random reads make that branch a coin toss. The chunk found
 * ends at or after start, so the range is inside it. */
static void locate(const struct st_ranges *r, uint64_t start, size_t *ci, size_t *ii)
{
    *ii = 0;
    if (r->nchunks == 0) {
        *ci = 0;
        return;
    }
    const uint64_t *e = r->ends;
    for (size_t half = r->cap / 2; half > 0; half /= 2)
        e += half & -(size_t)(e[half - 1] < start);
    e += *e < start;
    *ci = (size_t)(e - r->ends);
    if (*ci == r->nchunks)
        return;
    const struct st_range_chunk *c = r->chunks[*ci];
    const struct st_range *v = c->v;
#pragma GCC unroll 8
    for (size_t half = ST_RANGES_CHUNK / 2; half > 0; half /= 2)
        v += half & -(size_t)(v[half - 1].end < start);
    *ii = (size_t)(v - c->v) + (v->end < start);
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
        r->ends[ci - 1] = x.end;
        r->n++;
        return 0;
    }
    if (ci == r->nchunks) {
        struct st_range_chunk *c = add_chunk_at(r, ci);
        if (!c)
            return -1;
        c->v[0] = x;
        c->n = 1;
        r->ends[ci] = x.end;
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
        unused_slots(c, half, ST_RANGES_CHUNK);
        sync_end(r, ci);
        sync_end(r, ci + 1);
        if (ii > half) {
            c = d;
            ci++;
            ii -= half;
        }
    }
    memmove(&c->v[ii + 1], &c->v[ii], (c->n - ii) * sizeof *c->v);
    c->v[ii] = x;
    c->n++;
    sync_end(r, ci);
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
    unused_slots(first, first->n - take, first->n);
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
        unused_slots(ch, ch->n - count, ch->n);
        ch->n -= count;
        count = 0;
    }
    if (dropped) {
        memmove(&r->chunks[ci + 1], &r->chunks[ci + 1 + dropped],
                (r->nchunks - ci - 1 - dropped) * sizeof(struct st_range_chunk *));
        memmove(&r->ends[ci + 1], &r->ends[ci + 1 + dropped],
                (r->nchunks - ci - 1 - dropped) * sizeof *r->ends);
        unused_ends(r, r->nchunks - dropped, r->nchunks);
        r->nchunks -= dropped;
    }
}

/* The hint names range ii of chunk ci. Every change to the set is made by
 * an add, which ends by setting the hint or dropping it (or by clear), so
 * what it keeps never goes stale: no range moves, no array is reallocated
 * and no range is added after the hinted one while it stands. */
static void set_hint(struct st_ranges *r, size_t ci, size_t ii)
{
    const struct st_range_chunk *c = r->chunks[ci];
    r->hint = &r->chunks[ci]->v[ii];
    r->hint_end = &r->ends[ci];
    if (ii + 1 < c->n)
        r->hint_next = c->v[ii + 1].start;
    else
        r->hint_next = ci + 1 < r->nchunks ? r->chunks[ci + 1]->v[0].start : UINT64_MAX;
}

/* The ranges from (ci, ii) on overlap or touch [start, end), or none does:
 * count the overlap, and fold them into the first, or insert the new
 * range. Out of line, so that a block read again (found by st_ranges_add_slow)
 * does not pay for its registers. */
__attribute__((noinline)) static uint64_t fold_or_insert(struct st_ranges *r, size_t ci,
                                                         size_t ii, uint64_t start, uint64_t end,
                                                         struct st_range *held)
{
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
        r->hint = NULL;
        if (insert_at(r, ci, ii, (struct st_range){start, end}) != 0) {
            r->full = 1;
            *held = (struct st_range){0, 0};
        } else {
            *held = (struct st_range){start, end};
        }
        return overlap;
    }
    r->chunks[ci]->v[ii] = *held = (struct st_range){lo, hi};
    if (folded > 1)
        remove_after(r, ci, ii, folded - 1);
    sync_end(r, ci);
    /* remove_after only takes ranges after (ci, ii) and chunks after ci. */
    set_hint(r, ci, ii);
    return overlap;
}

/* The hint on the range kept without chunks: nothing comes after it. */
static void set_hint_on_only(struct st_ranges *r)
{
    r->hint = &r->only;
    r->hint_end = &r->only_end;
    r->hint_next = UINT64_MAX;
}

/* While the set has no chunks: [start, end) becomes its only range, or
 * folds into it; returns the overlap. A range apart from it moves the only
 * range into a first chunk (1: the general case goes on from there). */
static int add_without_chunks(struct st_ranges *r, uint64_t start, uint64_t end,
                              struct st_range *held, uint64_t *overlap)
{
    struct st_range *o = &r->only;
    if (r->n == 0) {
        *o = (struct st_range){start, end};
        r->n = 1;
    } else if (start <= o->end && end >= o->start) {
        uint64_t a = start > o->start ? start : o->start;
        uint64_t b = end < o->end ? end : o->end;
        *overlap = b > a ? b - a : 0;
        *o = (struct st_range){start < o->start ? start : o->start, end > o->end ? end : o->end};
    } else {
        struct st_range_chunk *c = add_chunk_at(r, 0);
        if (!c)
            return 0; /* full: the caller says so */
        c->v[0] = *o;
        c->n = 1;
        r->ends[0] = o->end;
        r->hint = NULL;
        return 1;
    }
    set_hint_on_only(r);
    *held = *o;
    return 0;
}

/* The general case (ranges.h tried the hint): find where [start, end)
 * goes. */
uint64_t st_ranges_add_slow(struct st_ranges *r, uint64_t start, uint64_t len,
                            struct st_range *held)
{
    if (len == 0) {
        *held = (struct st_range){0, 0};
        return 0;
    }
    uint64_t end = start + len;
    if (r->nchunks == 0) {
        uint64_t overlap = 0;
        *held = (struct st_range){0, 0};
        if (!add_without_chunks(r, start, end, held, &overlap)) {
            if (held->end == 0)
                r->full = 1;
            return overlap;
        }
    }
    size_t ci, ii;
    locate(r, start, &ci, &ii);
    /* Bytes inside one known range (a block read again): all of it was
     * there, and the set does not change. */
    if (ci < r->nchunks) {
        const struct st_range *v = &r->chunks[ci]->v[ii];
        if (v->start <= start && v->end >= end) {
            set_hint(r, ci, ii);
            *held = *v;
            return len;
        }
    }
    return fold_or_insert(r, ci, ii, start, end, held);
}
