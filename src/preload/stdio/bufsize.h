/* bufsize.h — SEEKTRACE_BUFSIZE: every stream the program opens gets a
 * buffer of that size, for `seektrace sweep` to measure what another size
 * would cost. This deliberately changes the program's buffering (nothing
 * else): its own setvbuf(_IOFBF) requests are then ignored, unbuffered and
 * line-buffered requests are honoured. Off unless the variable is set. */
#ifndef SEEKTRACE_BUFSIZE_H
#define SEEKTRACE_BUFSIZE_H

#include <stdio.h>

struct st_stream;

/* fp was just opened: give it the forced buffer (no-op when off). */
void st_bufsize_apply(FILE *fp, struct st_stream *s);

/* True when a setvbuf(fp, ..., mode, ...) from the program must be
 * ignored because the size is forced. */
int st_bufsize_overrides(int mode);

/* The stream's fd was closed: its forced buffer is no longer used. */
void st_bufsize_release(struct st_stream *s);

#endif
