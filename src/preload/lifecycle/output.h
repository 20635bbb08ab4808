/* output.h — where SEEKTRACE_OUTPUT sends the report.
 *
 * The setting names one of three things (docs/reliability.md, section 6):
 *   - a descriptor, spelled /dev/stdin, /dev/stdout, /dev/fd/N or
 *     /proc/self/fd/N: the descriptor itself, as long as it is still the
 *     file it was at start-up; /dev/stderr and /dev/fd/2 are stderr, the
 *     default, with all of its safeguards (lifecycle.h);
 *   - an existing character device (/dev/null, a terminal) or a FIFO of the
 *     user's: opened for writing, never created;
 *   - anything else: a new file, created afresh under the next free name. */
#ifndef SEEKTRACE_OUTPUT_H
#define SEEKTRACE_OUTPUT_H

#include <stddef.h>

/* At start-up (passed to st_config_load by init.c): reads SEEKTRACE_OUTPUT into st_config.output
 * (NULL for stderr) and st_config.output_fd. rt/own_fds.c remembers that
 * descriptor's identity and keeps it alive if the program closes it. */
void st_output_config_load(void);

/* Where one report is being written. */
struct st_output {
    int fd;
    int created;    /* a new file of ours, not a device or a descriptor */
    char path[4096]; /* the name used, for messages */
};

/* At exit: opens where the report goes; o->fd, or -1 with errno. */
int st_output_open(struct st_output *o, long pid);

/* Written: closes what st_output_open opened (never the program's own
 * descriptor). */
void st_output_close(struct st_output *o);

/* Writing failed: a file st_output_open created is emptied and removed, so
 * that no incomplete report is left under its name; then closed as above.
 * Returns 1 when that file is gone. A device, a FIFO or a descriptor
 * keeps what reached it. */
int st_output_abandon(struct st_output *o);

#endif
