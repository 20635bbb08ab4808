/* files.h — one record per file the process touched, by kernel name.
 *
 * A file is named as /proc/self/fd names it (the name strace -y prints), so
 * two opens of one path share a record and re-read bytes are counted across
 * them. The program's own POSIX calls are counted on the file; stdio calls
 * on its streams (streams.h). */
#ifndef SEEKTRACE_FILES_H
#define SEEKTRACE_FILES_H

#include <stdint.h>

#include "attribution.h"
#include "cells.h"
#include "ranges.h"
#include "sync.h"

struct st_stream;

/* Reads and lseeks a signal handler made while its thread was inside
 * seektrace's bookkeeping (record.h): counted on the file alone. */
struct st_handler_counts {
    uint64_t read_syscalls;
    uint64_t kernel_read_bytes;
    uint64_t lseek_syscalls;
    uint64_t write_syscalls;
    uint64_t kernel_write_bytes;
};

struct st_file {
    struct st_cell_owner owner; /* first: a cell's owner may be a file */
    const char *path;
    int seekable;             /* offsets mean something: ranges are tracked */
    unsigned char unnamed;    /* nothing names it: "fd:N ..." (st_file_of_fd) */
    struct st_cell *direct_cells; /* the program's POSIX calls, by site */
    st_spin ranges_lock;
    struct st_ranges ranges;
    unsigned ranges_generation; /* bumped whenever the ranges are forgotten */
    unsigned ranges_epoch;      /* st_accounts_epoch they belong to (cells.h) */
    struct st_stream *streams; /* every stream ever opened on it */
    struct st_stream *spares;  /* those whose record is free (st_stream_retire) */
    struct st_handler_counts in_handler;
    int fds;                   /* fd table entries that name it (fdtable.c) */
    /* Its place in fold.c's heap of closed files (1 + index; 0: none),
     * meant only in the epoch it was set in (cells.h). */
    unsigned fold_slot, fold_epoch;
    size_t path_room;          /* bytes path's memory holds (a next name may fit) */
    struct st_file *next_free; /* folded away: waiting to be the next file's record */
    uint64_t device_read_bytes; /* SEEKTRACE_STORAGE=file (storage.h) */
    struct st_file *next_all;
    void *hash_next; /* hash_chains.h */
};

/* Finds or creates the record for a kernel name; NULL when out of memory. */
struct st_file *st_file_get(const char *path);

/* Takes f out of the registry for good (fold.h): its name finds it no
 * more, and its record, cells and streams become the next files'. Its
 * counts must have been summed elsewhere first. Only while the process has
 * one thread, busy, with nothing open on f (no descriptor, no stream).
 * -1, f left as it was, when the registry lock is refused. */
int st_file_fold_out(struct st_file *f);

/* The record for whatever fd refers to now (its link under /proc). Where
 * /proc cannot tell (not mounted, or a name longer than PATH_MAX) and
 * nothing else names it, "fd:N": files that reuse the number merge. */
struct st_file *st_file_of_fd(int fd);

/* The record for the file the program has just opened on fd (a new open
 * file description). name: what the program called it (open, fopen), or
 * NULL; used, made absolute against the working directory, where /proc
 * cannot tell. With no name at all, a record of the opening's own,
 * "fd:N (opening K)" (the process's K-th such): two files opened in turn
 * on one number stay apart. */
struct st_file *st_file_of_opening(int fd, const char *name);

/* Counts for the program's own calls on f at the current call site (NULL
 * when out of memory). */
static inline struct st_tally *st_file_direct(struct st_file *f)
{
    return st_counts_here(f, &f->direct_cells);
}

/* Adds a range read from the kernel; returns how many bytes of it had been
 * read before. Callers are busy (record.h): no signal handler's read gets
 * here. While the process has one thread there is nobody to exclude, and
 * inline the set's own hint (ranges.h) finds a sequential read's range, or
 * a block read again; with threads, or ranges a fork child inherited (an
 * earlier epoch: forgotten first), the file's lock is taken (files.c). */
uint64_t st_file_note_range_threaded(struct st_file *f, uint64_t offset, uint64_t len);
static inline uint64_t st_file_note_range(struct st_file *f, uint64_t offset, uint64_t len)
{
    if (!f->seekable || len == 0)
        return 0;
    if (__libc_single_threaded && f->ranges_epoch == st_accounts_epoch) {
        struct st_range held;
        return st_ranges_add(&f->ranges, offset, len, &held);
    }
    return st_file_note_range_threaded(f, offset, len);
}

/* Every file record, oldest first is not promised. */
struct st_file *st_files_first(void);

/* Zeroes every counter of every file, stream and site; the ranges read so
 * far are kept. Safe while other threads count (an increment made in that
 * instant may be lost). */
void st_files_zero_counts(void);

/* After fork, in the child (one thread), once st_cells_new_epoch has moved
 * the epoch on: empty accounts, no ranges. The cells and ranges are
 * forgotten as they are next used (cells.h); the rest, rarely anything, is
 * zeroed now. */
void st_files_reset(void);

#endif
