/* whatif_replay.h — what a recorded program's stdio reads would have cost
 * the kernel at other buffer sizes.
 *
 * A trace (format 2) records every call each stdio stream received (OP
 * events, include/seektrace/trace_format.h). Replaying them through the
 * model of glibc's buffering (src/core/stdio_model.h) at each buffer size
 * predicts the read, lseek and fstat syscalls and the kernel bytes. The
 * model also replays the recorded configuration, and the replay compares
 * that with what the trace measured: a check of the model on this very run.
 *
 * Streams the model does not cover are left out and named, with why: not
 * opened read-only by fopen/fdopen, not a regular file, written to, mmap'ed
 * ("rm"), or an unknown descriptor offset. Figures are summed per file path
 * over streams and processes. */
#ifndef SEEKTRACE_WHATIF_REPLAY_H
#define SEEKTRACE_WHATIF_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "stdio_model.h"
#include "trace_reader.h"

/* One configuration's figures. */
struct whatif_cost {
    uint64_t read_syscalls, lseek_syscalls, fstat_syscalls, kernel_read_bytes;
    uint64_t delivered_bytes; /* bytes the calls handed to the program */
    uint64_t assumed_end_reads; /* > 0: figures are lower bounds (size unproven) */
};

/* A stream left out, and why. */
struct whatif_skip {
    long pid;
    int fd;
    const char *why; /* static text */
};

struct whatif_file {
    char *path;
    size_t streams;            /* streams replayed */
    size_t nskipped;
    struct whatif_skip *skipped;
    int approximate;           /* some call the model only approximates (scanf) */
    int threads_shared;        /* a stream used by several threads: their order is a guess */
    uint64_t recorded_size;    /* buffer size of the recorded run (of its first stream) */
    int recorded_mixed;        /* streams had different recorded sizes */
    struct whatif_cost recorded;  /* the model at the recorded configuration */
    struct whatif_cost measured;  /* what the trace recorded for the same streams */
    struct whatif_cost exact;     /* one pread per call of exactly what it asked */
    struct whatif_cost *at;       /* [nsizes], a user buffer of each size */
};

struct whatif {
    size_t nsizes;
    uint64_t *sizes;
    size_t nfiles;
    struct whatif_file *files;  /* in order of first appearance */
    size_t processes;           /* traces read */
    size_t old_traces;          /* format 1 traces: no calls recorded */
    char *command;              /* the first process's command line */
    char stdio_rules[40];       /* whose stdio rules replayed: "glibc 2.42+", or
                                 * "glibc 2.36-2.41, glibc 2.42+" when traces differ */
};

/* Starts an empty result for these sizes (copied). Returns 0, or -1 when out
 * of memory. */
int whatif_init(struct whatif *w, const uint64_t *sizes, size_t nsizes);

/* Replays one trace file's streams whose path matches glob (NULL: all) into
 * w. Returns 0, or -1 with a one-line message in err. */
int whatif_add_trace(struct whatif *w, const char *path, const char *glob,
                     char err[ST_TRACE_ERROR_MAX]);

/* The sum over all files. */
void whatif_total(const struct whatif *w, struct whatif_file *out);

void whatif_free(struct whatif *w);

#endif
