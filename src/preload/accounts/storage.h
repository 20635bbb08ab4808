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

#include "config.h"

struct st_file;

/* SEEKTRACE_STORAGE=file: the device bytes each read syscall the library
 * sees costs, charged to its file. The thread's ru_inblock (getrusage
 * RUSAGE_THREAD) is read before the read (st_storage_mark) and after it
 * (st_storage_charge): two syscalls of the library's per read, opt-in for
 * that reason (docs/storage.md states what they cost). Readahead the read
 * starts is the read's; pages faulted in through mmap are nobody's. */
uint64_t st_storage_thread_blocks(void);
void st_storage_charge_slow(struct st_file *f, uint64_t mark);

static inline uint64_t st_storage_mark(void)
{
    return __builtin_expect(st_config.storage_per_file, 0) ? st_storage_thread_blocks() : 0;
}

static inline void st_storage_charge(struct st_file *f, uint64_t mark)
{
    if (__builtin_expect(st_config.storage_per_file, 0) && f)
        st_storage_charge_slow(f, mark);
}

/* The program opened f on fd: SEEKTRACE_FADVISE's advice is given to it
 * (a file with offsets only; the program's errno is kept). */
void st_storage_opened(int fd, const struct st_file *f);

/* At exit, after the report's rows are chosen and ordered: the figures, or
 * null and why (a file the process read or wrote lives on a file system
 * without a block device, whose page cache is all there is). */
void st_storage_report(struct st_report *r);

#endif
