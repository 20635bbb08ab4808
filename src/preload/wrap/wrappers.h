/* wrappers.h — what every interposed function does around the real one.
 *
 * st_call_begin marks the call in progress (so the syscalls glibc makes
 * inside it are charged to it) and counts it on its stream; st_call_end
 * clears the mark and gives errno back as the real call left it. A call
 * that arrives while another is in progress, or while seektrace itself is
 * busy, passes straight through: begin returns 0 and end must not run. */
#ifndef SEEKTRACE_WRAPPERS_H
#define SEEKTRACE_WRAPPERS_H

#include <stdio.h>

#include "counts.h"
#include "sites.h"

/* Called by every wrapper first: initialises the library on first use
 * (other libraries' constructors may call us before ours runs). Inline:
 * once initialised, one load and a branch. */
extern int st_init_done;
void st_ensure_init_slow(void);
static inline void st_ensure_init(void)
{
    if (__builtin_expect(!__atomic_load_n(&st_init_done, __ATOMIC_ACQUIRE), 0))
        st_ensure_init_slow();
}

/* frame: the wrapper's own (ST_FRAME_HERE), whose return address is the
 * call's site, or where the walk up the stack for it begins. */
int st_call_begin(enum st_call call, FILE *fp, struct st_frame frame);
void st_call_end(int began);

#endif
