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

/* At start-up (config.c): reads SEEKTRACE_OUTPUT into st_config.output
 * (NULL for stderr) and st_config.output_fd. lifecycle.c remembers that
 * descriptor's identity and keeps it alive if the program closes it. */
void st_output_config_load(void);

/* At exit: the descriptor to write the report to, or -1 with errno; path
 * receives the name used (for messages). */
int st_output_open(char *path, size_t size, long pid);

/* Done writing: closes what st_output_open opened (never the program's own
 * descriptor). */
void st_output_close(int fd);

#endif
