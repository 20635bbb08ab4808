/* attribution.c — see attribution.h. */
#include "attribution.h"

#include <stdint.h>
#include <string.h>

#include "sites.h"

__thread struct st_pair st_pairs[ST_PAIR_WAYS] __attribute__((tls_model("initial-exec")));

void st_pairs_forget(void)
{
    memset(st_pairs, 0, sizeof st_pairs);
}

static struct st_site *site_of_caller(struct st_thread *t, void *ra)
{
    struct st_site *s = st_site_from_caller((struct st_frame){t->site_cfa, ra});
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

/* A miss in st_pairs (attribution.h): the look-ups, then the entry. */
struct st_tally *st_counts_here_slow(const void *owner, struct st_cell **owner_cells)
{
    struct st_thread *t = &st_self;
    t->busy++; /* as in st_current_site_slow */
    void *ra = t->site_ra;
    struct st_site *s = st_current_site();
    struct st_tally *c = st_cell_counts(owner, owner_cells, s);
    if (c && ra != ST_SITE_UNWIND && st_site_decided_by_caller(s, ra))
        *st_pair_of(owner, ra) = (struct st_pair){owner, ra, s, t->cached_cell};
    t->busy--;
    return c;
}
