/* attribution.c — see attribution.h. */
#include "attribution.h"

#include <stdint.h>

#include "sites.h"

/* (owner, return address) -> (site, cell), for the sites a return address
 * decides: a loop whose calls come from a few lines (an fseek, then an
 * fread; a read, then an lseek) alternates between them, and without this
 * each call would look its site and then its cell up in the shared tables.
 * Direct mapped; per thread, so no lock. Sites and cells live until exit,
 * so an entry never goes stale. */
#define PAIR_WAYS 8

static __thread struct pair {
    const void *owner;
    void *ra;
    struct st_site *site;
    struct st_cell *cell;
} pairs[PAIR_WAYS] __attribute__((tls_model("initial-exec")));

static unsigned pair_way(const void *owner, void *ra)
{
    uintptr_t x = (uintptr_t)owner ^ (uintptr_t)ra;
    return (unsigned)(x ^ (x >> 5) ^ (x >> 11)) % PAIR_WAYS;
}

static struct st_site *site_of_caller(struct st_thread *t, void *ra)
{
    struct st_site *s = st_site_from_caller(ra);
    if (s && st_site_decided_by_caller(s, ra)) {
        t->cached_ra = ra;
        t->cached_ra_site = s;
    }
    return s;
}

struct st_site *st_current_site_slow(void)
{
    struct st_thread *t = &st_self;
    /* Busy: a signal handler's calls are not recorded meanwhile, so they
     * never find these caches half read or half written. */
    t->busy++;
    t->site_pending = 0;
    t->site = t->site_ra == ST_SITE_UNWIND ? st_site_here() : site_of_caller(t, t->site_ra);
    t->busy--;
    return t->site;
}

/* The look-ups behind a miss (busy held), out of line so that a hit in
 * pairs takes no stack frame. */
__attribute__((noinline)) static struct st_counts *counts_here_miss(const void *owner,
                                                                      struct st_cell **owner_cells,
                                                                      struct pair *p)
{
    struct st_thread *t = &st_self;
    void *ra = t->site_ra;
    struct st_site *s = st_current_site();
    struct st_counts *c = st_cell_counts(owner, owner_cells, s);
    if (c && ra != ST_SITE_UNWIND && st_site_decided_by_caller(s, ra))
        *p = (struct pair){owner, ra, s, t->cached_cell};
    return c;
}

struct st_counts *st_counts_here_slow(const void *owner, struct st_cell **owner_cells)
{
    struct st_thread *t = &st_self;
    t->busy++; /* as in st_current_site_slow */
    void *ra = t->site_ra;
    struct pair *p = &pairs[pair_way(owner, ra)];
    struct st_counts *c;
    if (ra != ST_SITE_UNWIND && p->owner == owner && p->ra == ra && p->cell) {
        t->site = p->site;
        t->site_pending = 0;
        t->cached_ra = ra;
        t->cached_ra_site = p->site;
        t->cached_cell = p->cell;
        c = &p->cell->counts;
    } else {
        c = counts_here_miss(owner, owner_cells, p);
    }
    t->busy--;
    return c;
}
