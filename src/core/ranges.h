/* ranges.h — the set of byte ranges of a file already read from the kernel.
 *
 * Used to count re-read bytes exactly: adding a range returns how many of its
 * bytes were already in the set. Disjoint ranges are kept sorted and merged, so
 * sequential and repeated reads stay a handful of entries; random reads over a
 * large file grow the array, which is why the memory comes from a caller-given
 * allocator (the preload library's arena never calls malloc). */
#ifndef SEEKTRACE_RANGES_H
#define SEEKTRACE_RANGES_H

#include <stddef.h>
#include <stdint.h>

struct st_range {
    uint64_t start, end; /* [start, end) */
};

struct st_ranges {
    struct st_range *v;
    size_t n, cap;
    /* Returns zeroed-or-not memory of at least size bytes, or NULL. */
    void *(*alloc)(size_t size);
    /* May be NULL: the old array is then simply abandoned. */
    void (*release)(void *p, size_t size);
};

void st_ranges_init(struct st_ranges *r, void *(*alloc)(size_t),
                    void (*release)(void *, size_t));

/* Adds [start, start+len) and returns how many of those bytes were present
 * before. When memory runs out the set stops growing and later overlaps are
 * undercounted, never overcounted; st_ranges_full() says so. */
uint64_t st_ranges_add(struct st_ranges *r, uint64_t start, uint64_t len);

int st_ranges_full(const struct st_ranges *r);

/* Forgets every range (the memory is kept). */
void st_ranges_clear(struct st_ranges *r);

#endif
