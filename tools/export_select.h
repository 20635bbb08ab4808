/* export_select.h — which of a trace's events `seektrace export` writes
 * (--pid, --file, --from, --to), and --aggregate: instead of each call and
 * syscall, one slice per thread and time bucket with their sums, so that a
 * long run's export stays small enough for Perfetto's UI. */
#ifndef SEEKTRACE_TOOLS_EXPORT_SELECT_H
#define SEEKTRACE_TOOLS_EXPORT_SELECT_H

#include <stdint.h>
#include <stdio.h>

#include "tool.h"

struct export_select {
    long *pids; /* --pid */
    size_t npids;
    const char **globs; /* --file */
    size_t nglobs;
    uint64_t from_ns, to_ns; /* --from, --to: since the export's time base */
    int to_set;
    uint64_t bucket_ns;      /* --aggregate; 0: every event */
};

/* Parses one of the options at argv[*i]; 1 if it was one. */
int export_select_parse(struct export_select *s, int argc, char **argv, int *i);
void export_select_free(struct export_select *s);
int export_select_pid(const struct export_select *s, long pid);
/* Whether an event at t (ns since the time base) on path (NULL: an event
 * about no file) passes --from/--to and --file. */
int export_select_time(const struct export_select *s, uint64_t t);
int export_select_path(const struct export_select *s, const char *path);

/* --aggregate: one thread's sums over its current bucket. */
struct export_bucket {
    uint64_t index; /* bucket number + 1; 0: empty */
    uint64_t calls, read_syscalls, kernel_read_bytes, lseek_syscalls, write_syscalls,
        kernel_write_bytes, delivered_bytes;
    const char *top_path; /* the file of its largest single read or write */
    uint64_t top_bytes;
};
/* Adds an event at t about path (the model's, alive for the trace) to b;
 * first writes out (chrome "X" slice, pid/tid given) a bucket it leaves. */
void export_bucket_add(struct export_bucket *b, const struct export_select *s, FILE *f, long pid,
                       uint32_t tid, uint64_t t, const struct st_trace_event *ev,
                       const char *path);
/* Writes out what b holds. */
void export_bucket_flush(struct export_bucket *b, const struct export_select *s, FILE *f, long pid,
                         uint32_t tid);

#endif
