/* whatif_writes.h — what a recorded program's stdio writes would have cost
 * the kernel with other buffers (the write half of seektrace whatif).
 *
 * A trace (format 4) records what each writing call handed its stream
 * (WRITTEN events, summed per call: OP OTHER names the call, and since 4.3
 * says with F1 that its last byte was a newline), and the calls that flush
 * it (fflush, seeks, reads, fclose, exit). Replaying them through the write
 * model (src/core/write_model.h) predicts write syscalls and kernel bytes
 * written unbuffered, line buffered and fully buffered at each size; the
 * recorded configuration is replayed too and compared with what the trace
 * measured. The program's own write() calls are not stdio's and are left
 * out. Figures are summed per file path over streams and processes. */
#ifndef SEEKTRACE_WHATIF_WRITES_H
#define SEEKTRACE_WHATIF_WRITES_H

#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

struct whatif_write_cost {
    uint64_t write_syscalls, kernel_write_bytes;
};

struct whatif_write_file {
    char *path;
    size_t streams;           /* streams that wrote */
    uint64_t written_bytes;   /* bytes the calls handed over */
    uint64_t recorded_size;   /* of its first stream; 0: unbuffered */
    int recorded_mixed;       /* streams had different sizes or modes */
    int recorded_line;        /* its first stream was line buffered */
    struct whatif_write_cost recorded;   /* the model at the recorded configuration */
    struct whatif_write_cost measured;   /* what the trace recorded for those streams */
    struct whatif_write_cost unbuffered; /* _IONBF */
    struct whatif_write_cost line;       /* _IOLBF, with a buffer of line_size */
    uint64_t line_size;
    struct whatif_write_cost *at;        /* [nsizes], full buffering of each size */
};

struct whatif_writes {
    size_t nsizes;
    uint64_t *sizes;
    size_t nfiles;
    struct whatif_write_file *files; /* in order of first appearance */
};

/* Starts an empty result for these sizes (copied): 0, or -1 out of memory. */
int whatif_writes_init(struct whatif_writes *w, const uint64_t *sizes, size_t nsizes);

/* Replays one trace's writing streams whose path matches glob (NULL: all).
 * Returns 0, or -1 with a one-line message in err. */
int whatif_writes_add_trace(struct whatif_writes *w, const char *path, const char *glob,
                            char err[ST_TRACE_ERROR_MAX]);

/* Whether the recorded replay equals what the trace measured. */
int whatif_writes_agree(const struct whatif_write_file *f);

void whatif_writes_free(struct whatif_writes *w);

#endif
