/* whatif_stream.h — what one stream's reads would have cost with a 4 KiB
 * buffer, followed call by call.
 *
 * The report at exit says "a 4 KiB buffer would read 32x fewer bytes from
 * this file (predicted)" when that is so. The preload library feeds each
 * stream's operations here as it makes them; the tools feed the same
 * operations from a trace's OP events; both then get the same figures, so a
 * report rebuilt from a trace equals the one printed at exit.
 *
 * The rule, the same on both sides: a stream is followed from its fopen or
 * fdopen if it is read-only and its descriptor's offset is known, and
 * dropped as soon as its buffer is seen to be 4 KiB or smaller (nothing to
 * save in bytes). Until glibc's own fstat tells the file's size, the model
 * assumes the file goes on, so a prediction never has the 4 KiB buffer stop
 * short: savings are never overstated.
 *
 * Allocation-free and syscall-free: safe inside a traced program. */
#ifndef SEEKTRACE_WHATIF_STREAM_H
#define SEEKTRACE_WHATIF_STREAM_H

#include <stdint.h>

#include "counts.h"
#include "stdio_model.h"

#define ST_WHATIF_BUFFER 4096

struct st_whatif_stream {
    struct st_model model;
    int on;
    unsigned glibc; /* whose rules (st_model_glibc), set before OPEN */
};

/* A recorded stream operation (trace_format.h's ST_OP_*, with the fields
 * an OP event carries: flag its F1; n its unsigned field, the whence for
 * FSEEK; x its signed field: OPEN/FSEEK offset, FGETS bytes stored) as a
 * model call. Returns 0 for the operations the model does not replay
 * (SIZE, OTHER). */
int st_model_op_from_trace(unsigned op, int flag, uint64_t n, int64_t x, struct st_model_op *out);

/* Follows one operation of a stream whose buffer is now buffer_size bytes
 * (0: not known yet). */
void st_whatif_stream_op(struct st_whatif_stream *w, uint64_t buffer_size, unsigned op, int flag,
                         uint64_t n, int64_t x);

/* Adds the prediction to c, the stream's own counts, when the stream was
 * followed to the end: whatif_4k_kernel_read_bytes (predicted) and
 * whatif_4k_recorded_bytes (c's kernel_read_bytes). */
void st_whatif_stream_counts(const struct st_whatif_stream *w, struct st_counts *c);

#endif
