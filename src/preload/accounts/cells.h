/* cells.h — the counts of one owner (a stream, or a file's direct POSIX
 * calls) at one call site.
 *
 * Every event lands in exactly one cell, so attribution adds no second
 * update: a stream's totals are the sum of its cells, a site's the sum of
 * the cells that name it. With attribution off every owner has one cell,
 * for the NULL site. */
#ifndef SEEKTRACE_CELLS_H
#define SEEKTRACE_CELLS_H

#include <stdint.h>

#include "tally.h"
#include "thread_state.h"

struct st_site;

/* The head of every record cells belong to (a file, for the program's own
 * POSIX calls on it, or a stream), so that a cell's owner is told apart,
 * and named in the trace, from the cell alone. trace_id: the record's id in
 * the process's trace, given and read by the writer alone
 * (trace/trace_ids.c); a record reused for another file (fold.h) has it
 * zeroed first, and is named afresh. */
struct st_cell_owner {
    uint64_t trace_id;
    int is_stream;
};

struct st_cell {
    const void *owner; /* a struct st_cell_owner */
    struct st_site *site;
    unsigned epoch; /* st_accounts_epoch when its counts were last current */
    uint64_t trace_id; /* as st_cell_owner's */
    struct st_tally counts;
    struct st_cell *next_of_owner;
    void *hash_next; /* hash_chains.h */
};

/* Moves on in a fork child, whose inherited counts are then all zero: a
 * cell of an earlier epoch is zeroed when it is next looked up, and counts
 * as zero until then. Zeroing every cell at once wrote every page of them,
 * and the kernel copied each one for the child: 380 ms for a fork + exec
 * after 20,000 files read (docs/benchmarks.md). */
extern unsigned st_accounts_epoch;

/* A cell's counts, or NULL when they are an earlier epoch's (zero). */
static inline const struct st_tally *st_cell_live(const struct st_cell *c)
{
    return __atomic_load_n(&c->epoch, __ATOMIC_ACQUIRE) ==
                   __atomic_load_n(&st_accounts_epoch, __ATOMIC_RELAXED)
               ? &c->counts
               : NULL;
}

/* The counts for (owner, site), created on first use and linked into
 * *owner_cells; NULL when out of memory. Lock-free when it exists and is of
 * this epoch; inline when it is this thread's last cell (every hook inside
 * one call books on the same one; the caches only hold cells of this
 * epoch). */
struct st_tally *st_cell_counts_slow(const void *owner, struct st_cell **owner_cells,
                                      struct st_site *site);
static inline struct st_tally *st_cell_counts(const void *owner, struct st_cell **owner_cells,
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

/* In a fork child (one thread): the next epoch, and this thread's caches of
 * cells (the wrappers' fast entries among them) forgotten; attribution's
 * pairs are forgotten by st_pairs_forget. */
void st_cells_new_epoch(void);

/* This thread's caches of cells forgotten (st_cells_new_epoch's second half). */
void st_cells_forget_caches(void);

/* An owner's cells, linked by next_of_owner, out of the table and kept for
 * the next cells made: a file folded away (fold.h). Only while the process
 * has one thread, under the registry lock, with every cache that may name
 * them forgotten (st_cells_forget_caches, st_pairs_forget): another owner
 * at another site may get one of them next. */
void st_cells_recycle(struct st_cell *cells);

#endif
