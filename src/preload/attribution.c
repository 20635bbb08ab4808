/* attribution.c — see attribution.h. */
#include "attribution.h"

#include "sites.h"

struct st_site *st_current_site(void)
{
    struct st_thread *t = &st_self;
    if (!t->site_pending)
        return t->site;
    t->site_pending = 0;
    if (t->site_ra == ST_SITE_UNWIND) {
        t->site = st_site_here();
    } else if (t->site_ra == t->cached_ra) {
        t->site = t->cached_ra_site;
    } else {
        t->site = st_site_from_caller(t->site_ra);
        /* Only a one-frame site that is the caller itself can be cached by
         * address: a runtime caller's site, or a deeper stack, depends on
         * who called it. */
        if (t->site && t->site->nframes == 1 && t->site->pc == (uintptr_t)t->site_ra) {
            t->cached_ra = t->site_ra;
            t->cached_ra_site = t->site;
        }
    }
    return t->site;
}
