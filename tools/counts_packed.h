/* counts_packed.h — st_counts as the command keeps thousands of them.
 *
 * A struct st_counts is 2.3 KiB, nearly all of it by_call: 37 call kinds
 * of 7 counters, of which a file, stream or call site touches two to five.
 * Merging a configure-like job's 500 processes kept 2,400 of them (files,
 * streams, sites) and twice that in copies (issue 21). Packed, a count is
 * its scalars and only the call kinds that have something: about 400
 * bytes. Unpacked only for the rows a report renders. */
#ifndef SEEKTRACE_COUNTS_PACKED_H
#define SEEKTRACE_COUNTS_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"

/* The scalars lead struct st_counts, by_call ends it (counts.h). */
#define COUNTS_SCALARS (offsetof(struct st_counts, by_call) / sizeof(uint64_t))

struct counts_call {
    unsigned call; /* enum st_call */
    struct st_call_cost cost;
};

struct counts_packed {
    uint64_t scalar[COUNTS_SCALARS];
    struct counts_call *calls; /* malloc'd, ncalls, in the order first seen */
    size_t ncalls;
};

/* *p += *c. Exits 2 when out of memory. */
void counts_packed_add(struct counts_packed *p, const struct st_counts *c);
/* *out = *p, whole. */
void counts_packed_get(const struct counts_packed *p, struct st_counts *out);
void counts_packed_free(struct counts_packed *p);

#endif
