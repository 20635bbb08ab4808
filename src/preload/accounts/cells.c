/* cells.c — see cells.h. */
#include "cells.h"

#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "glibc_compat.h"
#include "hash_chains.h"
#include "registry_lock.h"
#include "thread_state.h"

static unsigned hash(const void *owner, const struct st_site *site)
{
    uint64_t x = (uint64_t)(uintptr_t)owner * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)site;
    x *= 0xC2B2AE3D27D4EB4Full;
    return (unsigned)(x >> 32);
}

static unsigned hash_of_cell(const void *entry)
{
    const struct st_cell *c = entry;
    return hash(c->owner, c->site);
}

ST_CHAINS_DEFINE(cells_table, 1u << 18, struct st_cell, hash_of_cell);

static struct st_cell *lookup(const void *owner, const struct st_site *site, unsigned h)
{
    for (struct st_cell *c = st_chains_first(&cells_table, h); c; c = st_chains_next(&cells_table, c))
        if (c->owner == owner && c->site == site)
            return c;
    return NULL;
}

/* Cells beyond the last one (st_self.cached_cell): a loop whose calls
 * come from two lines (an fseek, then an fread) books on two cells in
 * turn, and each miss costs a look-up in the shared table. Direct mapped;
 * per thread, so no lock. */
#define NEAR_WAYS 4

static __thread struct st_cell *near_cells[NEAR_WAYS] __attribute__((tls_model("initial-exec")));

unsigned st_accounts_epoch;

/* Cells given back by st_cells_recycle, linked through next_of_owner;
 * taken again only while the process has one thread (cells.h). */
static struct st_cell *free_cells;

static struct st_cell *cell_new(void)
{
    struct st_cell *c = free_cells;
    if (!c || !__libc_single_threaded)
        return st_alloc(sizeof *c);
    free_cells = c->next_of_owner;
    struct st_call_cost *more = c->counts.more; /* a third kind's array: kept */
    memset(c, 0, sizeof *c);
    c->counts.more = more;
    st_tally_zero(&c->counts);
    return c;
}

/* c holds an earlier epoch's counts: zero them, once, before anyone counts
 * on it in this one (under the lock, so that a second thread waits). 0
 * when the lock is refused (registry_lock.h): c cannot be counted on. */
static int bring_to_epoch(struct st_cell *c, unsigned epoch)
{
    if (!st_registry_lock())
        return 0;
    if (__atomic_load_n(&c->epoch, __ATOMIC_RELAXED) != epoch) {
        st_tally_zero(&c->counts);
        __atomic_store_n(&c->epoch, epoch, __ATOMIC_RELEASE);
    }
    st_registry_unlock();
    return 1;
}

struct st_tally *st_cell_counts_slow(const void *owner, struct st_cell **owner_cells,
                                      struct st_site *site)
{
    struct st_thread *t = &st_self;
    unsigned h = hash(owner, site);
    /* Busy: a signal handler's calls are not recorded meanwhile, so they
     * never find these caches half read or half written. */
    t->busy++;
    struct st_cell **near = &near_cells[h % NEAR_WAYS];
    struct st_cell *c = *near;
    if (!c || c->owner != owner || c->site != site)
        c = lookup(owner, site, h);
    unsigned epoch = __atomic_load_n(&st_accounts_epoch, __ATOMIC_RELAXED);
    if (c && __atomic_load_n(&c->epoch, __ATOMIC_ACQUIRE) != epoch) {
        if (!bring_to_epoch(c, epoch))
            c = NULL;
    } else if (!c && st_registry_lock()) {
        c = lookup(owner, site, h);
        if (!c && (c = cell_new()) != NULL) {
            c->owner = owner;
            c->site = site;
            c->epoch = epoch;
            c->next_of_owner = *owner_cells;
            __atomic_store_n(owner_cells, c, __ATOMIC_RELEASE);
            st_chains_add(&cells_table, h, c);
        }
        st_registry_unlock();
    }
    if (c) {
        *near = c;
        t->cached_cell = c;
    }
    t->busy--;
    return c ? &c->counts : NULL;
}

void st_cells_total(const struct st_cell *cells, struct st_counts *sum)
{
    for (const struct st_cell *c = cells; c; c = c->next_of_owner) {
        const struct st_tally *live = st_cell_live(c);
        if (live)
            st_tally_total(live, sum);
    }
}

void st_cells_forget_caches(void)
{
    st_self.cached_cell = NULL;
    memset(near_cells, 0, sizeof near_cells);
    memset(st_self.fast, 0, sizeof st_self.fast);
    memset(&st_self.refill, 0, sizeof st_self.refill);
}

void st_cells_new_epoch(void)
{
    __atomic_add_fetch(&st_accounts_epoch, 1, __ATOMIC_RELEASE);
    st_cells_forget_caches();
}

void st_cells_recycle(struct st_cell *cells)
{
    while (cells) {
        struct st_cell *c = cells;
        cells = c->next_of_owner;
        st_chains_remove(&cells_table, hash(c->owner, c->site), c);
        c->owner = NULL;
        c->next_of_owner = free_cells;
        free_cells = c;
    }
}
