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

/* Sentinels for st_site_begin: no site at all, or the stack itself. */
#define ST_SITE_NONE ((void *)0)
#define ST_SITE_UNWIND ((void *)1)

static inline void st_site_begin(void *caller)
{
    st_self.site = NULL;
    st_self.site_ra = caller;
    st_self.site_pending = caller != ST_SITE_NONE;
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

/* The counts of `owner` (a stream, or a file's direct calls, whose cells
 * are *owner_cells) at the site of the call in progress: what every event
 * books on. Inline when the site is known (resolved, or the last caller's)
 * and the cell is this thread's last one; otherwise one look-up by (owner,
 * return address) finds both. NULL when out of memory. */
struct st_counts *st_counts_here_slow(const void *owner, struct st_cell **owner_cells);
static inline struct st_counts *st_counts_here(const void *owner, struct st_cell **owner_cells)
{
    struct st_thread *t = &st_self;
    if (__builtin_expect(!t->site_pending || t->site_ra == t->cached_ra, 1))
        return st_cell_counts(owner, owner_cells, st_current_site());
    return st_counts_here_slow(owner, owner_cells);
}

#endif
