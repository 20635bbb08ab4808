/* ranges.h — the set of byte ranges of a file already read from the kernel.
 *
 * Used to count re-read bytes exactly: adding a range returns how many of its
 * bytes were already in the set. Disjoint ranges are kept sorted and merged, so
 * sequential and repeated reads stay a handful of entries; random reads over a
 * large file grow the set, which is why the memory comes from a caller-given
 * allocator (the preload library's arena never calls malloc).
 *
 * The ranges live in chunks of up to ST_RANGES_CHUNK, in order: an insert or
 * a merge moves the entries of one chunk (and, when a chunk splits or
 * empties, the arrays of chunk pointers and ends), never the whole set. A
 * flat sorted array moved half the set on every random read: ~3,200
 * instructions a read at a few thousand ranges (Python's random seek + read,
 * bench/). Finding a byte takes two branch-free binary searches, over the
 * chunks' ends and then inside one chunk, of fixed length (ranges.c).
 *
 * Most files are read once, front to back: one range. Until a second,
 * disjoint one comes, that range is kept in the set itself and nothing is
 * allocated (a chunk and its array take 1.3 KiB, and `grep -r` reads
 * tens of thousands of files). */
#ifndef SEEKTRACE_RANGES_H
#define SEEKTRACE_RANGES_H

#include <stddef.h>
#include <stdint.h>

#define ST_RANGES_CHUNK 64

struct st_range {
    uint64_t start, end; /* [start, end) */
};

struct st_range_chunk {
    size_t n; /* 1..ST_RANGES_CHUNK while in the set */
    struct st_range v[ST_RANGES_CHUNK];
    struct st_range_chunk *next_free;
};

struct st_ranges {
    struct st_range_chunk **chunks; /* in order, none empty */
    /* ends[i]: the end of chunks[i]'s last range. Locating a byte searches
     * these, side by side, before it opens a chunk. */
    uint64_t *ends;
    size_t nchunks, cap;         /* chunks used / room for (a power of two) */
    size_t n;                    /* ranges in the set */
    /* The only range while there are no chunks (n is 0 or 1), and the end
     * the hint keeps up to date for it (a chunk's end in ends otherwise). */
    struct st_range only;
    uint64_t only_end;
    int full;                    /* a range could not be added */
    struct st_range_chunk *free; /* emptied chunks, kept for reuse */
    /* Where the last add left its range (hint NULL: unknown): the range,
     * its chunk's end in ends, and the start of the range after it
     * (UINT64_MAX: none). A sequential reader extends that range, and a
     * block read again usually lies in it: most adds look no further, and
     * read nothing else of the set (ranges.c). */
    struct st_range *hint;
    uint64_t *hint_end;
    uint64_t hint_next;
    /* Returns zeroed-or-not memory of at least size bytes, or NULL. */
    void *(*alloc)(size_t size);
    /* May be NULL: memory is then never given back (outgrown arrays of
     * chunk pointers and ends are abandoned). */
    void (*release)(void *p, size_t size);
};

void st_ranges_init(struct st_ranges *r, void *(*alloc)(size_t),
                    void (*release)(void *, size_t));

/* Adds [start, start+len) and returns how many of those bytes were present
 * before; *held is then the range of the set that holds them all ({0, 0}
 * when none does: len 0, or the range could not be kept). When memory runs
 * out the set stops growing and later overlaps are undercounted, never
 * overcounted; st_ranges_full() says so. Inline when the hint (above)
 * settles it: a sequential read, or a block read again. */
uint64_t st_ranges_add_slow(struct st_ranges *r, uint64_t start, uint64_t len,
                            struct st_range *held);
static inline uint64_t st_ranges_add(struct st_ranges *r, uint64_t start, uint64_t len,
                                     struct st_range *held)
{
    /* [start, end) begins inside or right at the end of the hinted range:
     * it is in it, or it extends it without reaching the next one. Ranges
     * never touch, so no range before the hinted one is concerned. */
    struct st_range *h = r->hint;
    uint64_t end = start + len;
    if (h && len && h->start <= start && start <= h->end) {
        if (end <= h->end) {
            *held = *h;
            return len;
        }
        if (end < r->hint_next) {
            uint64_t overlap = h->end - start;
            h->end = end;
            /* The chunk's last range is this one or ends after it. */
            if (*r->hint_end < end)
                *r->hint_end = end;
            *held = *h;
            return overlap;
        }
    }
    return st_ranges_add_slow(r, start, len, held);
}

int st_ranges_full(const struct st_ranges *r);

/* Forgets every range (the memory is kept for reuse). */
void st_ranges_clear(struct st_ranges *r);

/* Gives all memory back through the release function (callers whose
 * allocator can free: the tools and tests); the set is then empty. */
void st_ranges_free(struct st_ranges *r);

/* How many disjoint ranges the set holds, and the i-th of them in order
 * (O(number of chunks): for tests and reports, not hot paths). */
size_t st_ranges_count(const struct st_ranges *r);
struct st_range st_ranges_at(const struct st_ranges *r, size_t i);

#endif
