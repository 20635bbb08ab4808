/* attribution.h — which call site the event in progress is charged to.
 *
 * A call names its site when it begins (a return address, or "unwind
 * here"); the site is resolved only if an event actually needs it, so a
 * call that counts nothing costs two stores. */
#ifndef SEEKTRACE_ATTRIBUTION_H
#define SEEKTRACE_ATTRIBUTION_H

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

/* The site of the call in progress (NULL: none, or attribution off). */
struct st_site *st_current_site(void);

#endif
