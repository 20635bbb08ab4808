/* attribution.h — which call site the event in progress is charged to.
 *
 * A call names its site when it begins (a return address, or "unwind
 * here"); the site is resolved only if an event actually needs it, so a
 * call that counts nothing costs two stores. */
#ifndef SEEKTRACE_ATTRIBUTION_H
#define SEEKTRACE_ATTRIBUTION_H

#include <stdint.h>

#include "cells.h"
#include "sites.h"
#include "thread_state.h"

struct st_site;

/* A call no wrapper made (a slot's): no site at all, or the stack itself. */
#define ST_SITE_NONE ((void *)0)
#define ST_SITE_UNWIND ((void *)1)

static inline void st_site_begin(void *which)
{
    st_self.site = NULL;
    st_self.site_ra = which;
    st_self.site_pending = which != ST_SITE_NONE;
}

/* A wrapper's call, named by its own frame (live until the call ends): a
 * site its return address does not decide is found up the stack from that
 * frame, through the unwind cache entry its fast path checks. */
static inline void st_site_begin_frame(struct st_frame frame)
{
    st_self.site = NULL;
    st_self.site_ra = (void *)frame.ra;
    st_self.site_cfa = frame.cfa;
    st_self.site_pending = 1;
}

/* A call whose site is found already (a refill's, up the stack from the
 * hook: st_site_above). */
static inline void st_site_begin_found(struct st_site *s)
{
    st_self.site = s;
    st_self.site_ra = ST_SITE_UNWIND;
    st_self.site_pending = 0;
}

static inline void st_site_end(void)
{
    st_self.site = NULL;
    st_self.site_pending = 0;
}

/* Whether s, the site of a call made from return address ra, is decided by
 * ra alone and can be cached by it: with one frame per site, when it is
 * the caller itself (with attribution off, when there is no site). A
 * runtime caller's site, or a deeper stack, depends on who called it
 * (sites.c caches those by stack): with SEEKTRACE_STACK > 1 even a site of
 * one frame (a thread's start routine, above which the stack is libc's)
 * can be another stack's site the next time the same line runs. */
static inline int st_site_decided_by_caller(const struct st_site *s, void *ra)
{
    return s ? st_site_depth == 1 && s->pc == (uintptr_t)ra : st_site_depth == 0;
}

/* The site of the call in progress (NULL: none, or attribution off).
 * Inline once resolved (every hook inside a call asks again), and when the
 * caller is the one before (a loop calling from one line). */
struct st_site *st_current_site_slow(void);
static inline struct st_site *st_current_site(void)
{
    struct st_thread *t = &st_self;
    if (__builtin_expect(!t->site_pending, 1))
        return t->site;
    if (t->site_ra == t->cached_ra && t->site_ra != ST_SITE_UNWIND) {
        t->site_pending = 0;
        return t->site = t->cached_ra_site;
    }
    return st_current_site_slow();
}

/* (owner, return address) -> (site, cell), for the sites a return address
 * decides: a loop whose calls come from a few lines (an fseek, then an
 * fread; a read, then an lseek) alternates between them, and the one-entry
 * caches above miss on every call. Direct mapped; per thread, so no lock.
 * Sites and cells live until exit, so an entry never goes stale. Filled by
 * attribution.c, never with ST_SITE_UNWIND or a NULL cell; an empty entry
 * is all NULL, which no owner and no pending site's return address is: a
 * match of both needs no other test. */
#define ST_PAIR_WAYS 8

struct st_pair {
    const void *owner;
    void *ra;
    struct st_site *site;
    struct st_cell *cell;
};

extern __thread struct st_pair st_pairs[ST_PAIR_WAYS] __attribute__((tls_model("initial-exec")));

/* In a fork child: the pairs name cells of the parent's epoch (cells.h). */
void st_pairs_forget(void);

static inline struct st_pair *st_pair_of(const void *owner, void *ra)
{
    uintptr_t x = (uintptr_t)owner ^ (uintptr_t)ra;
    return &st_pairs[(x ^ (x >> 5) ^ (x >> 11)) % ST_PAIR_WAYS];
}

/* The counts of `owner` (a stream, or a file's direct calls, whose cells
 * are *owner_cells) at the site of the call in progress: what every event
 * books on. Inline when the site is known (resolved, or the last caller's)
 * and the cell is this thread's last one, and when (owner, return address)
 * is in st_pairs (a loop alternating between two lines: a few loads);
 * otherwise the look-ups behind them, out of line. NULL when out of memory.
 * Callers are busy (record.h), so no signal handler's call meets an entry
 * half read. */
struct st_tally *st_counts_here_slow(const void *owner, struct st_cell **owner_cells);
static inline struct st_tally *st_counts_here(const void *owner, struct st_cell **owner_cells)
{
    struct st_thread *t = &st_self;
    if (__builtin_expect(!t->site_pending || t->site_ra == t->cached_ra, 1))
        return st_cell_counts(owner, owner_cells, st_current_site());
    void *ra = t->site_ra;
    const struct st_pair *p = st_pair_of(owner, ra);
    if (__builtin_expect(p->owner != owner || p->ra != ra, 0))
        return st_counts_here_slow(owner, owner_cells);
    t->site = p->site;
    t->site_pending = 0;
    t->cached_ra = ra;
    t->cached_ra_site = p->site;
    t->cached_cell = p->cell;
    return &p->cell->counts;
}

#endif
