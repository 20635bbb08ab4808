/* cells.h — the counts of one owner (a stream, or a file's direct POSIX
 * calls) at one call site.
 *
 * Every event lands in exactly one cell, so attribution adds no second
 * update: a stream's totals are the sum of its cells, a site's the sum of
 * the cells that name it. With attribution off every owner has one cell,
 * for the NULL site. */
#ifndef SEEKTRACE_CELLS_H
#define SEEKTRACE_CELLS_H

#include "counts.h"
#include "thread_state.h"

struct st_site;

struct st_cell {
    const void *owner;
    struct st_site *site;
    struct st_counts counts;
    struct st_cell *next_of_owner;
    void *hash_next; /* hash_chains.h */
};

/* The counts for (owner, site), created on first use and linked into
 * *owner_cells; NULL when out of memory. Lock-free when it exists; inline
 * when it is this thread's last cell (every hook inside one call books on
 * the same one). */
struct st_counts *st_cell_counts_slow(const void *owner, struct st_cell **owner_cells,
                                      struct st_site *site);
static inline struct st_counts *st_cell_counts(const void *owner, struct st_cell **owner_cells,
                                               struct st_site *site)
{
    /* One load: a signal handler that replaces the cache between two reads
     * of it cannot pair this owner with its own cell (the cell holds its key). */
    struct st_cell *c = st_self.cached_cell;
    if (__builtin_expect(c && c->owner == owner && c->site == site, 1))
        return &c->counts;
    return st_cell_counts_slow(owner, owner_cells, site);
}

/* Sum of an owner's cells. */
void st_cells_total(const struct st_cell *cells, struct st_counts *sum);

#endif
