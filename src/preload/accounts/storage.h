/* storage.h — what the block device below the page cache did for the
 * process (docs/storage.md).
 *
 * getrusage's ru_inblock and ru_oublock (512-byte units) count the reads the
 * process's tasks submitted to a block device (readahead included) and the
 * bytes they dirtied for one. They run on from before an exec, so the
 * figures are taken against a baseline read when the library starts. No
 * file is opened for them (/proc/self/io would be an open and a read in
 * strace, and folds in waited-for children). */
#ifndef SEEKTRACE_STORAGE_H
#define SEEKTRACE_STORAGE_H

#include <stdint.h>

struct st_report;

/* The baseline: at the library's start. */
void st_storage_start(void);
/* In a fork child: its counters start at zero. */
void st_storage_fork_child(void);

struct st_file;

/* The program opened f on fd: SEEKTRACE_FADVISE's advice is given to it
 * (a file with offsets only; the program's errno is kept). */
void st_storage_opened(int fd, const struct st_file *f);

/* At exit, after the report's rows are chosen and ordered: the figures, or
 * null and why (a file the process read or wrote lives on a file system
 * without a block device, whose page cache is all there is). */
void st_storage_report(struct st_report *r);

#endif
