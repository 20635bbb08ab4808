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
#include "ensure_init.h"
#include "sites.h"

/* frame: the wrapper's own (ST_FRAME_HERE), whose return address is the
 * call's site, or where the walk up the stack for it begins. */
int st_call_begin(enum st_call call, FILE *fp, struct st_frame frame);
void st_call_end(int began);

#endif
