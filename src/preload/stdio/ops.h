/* ops.h — each stream's calls, recorded for `seektrace whatif`.
 *
 * whatif replays a stream's calls through a model of glibc's buffering
 * (src/core/stdio_model.h) at other buffer sizes. The model needs each call
 * and what it asked for, in order — including the per-byte reads (getc and
 * friends) that no wrapper sees. Those are recovered from the ledger: the
 * bytes consumed between two wrapped calls, or before a refill outside any
 * wrapped call, were taken one per call by a per-byte reader, so they are
 * recorded as a "getc run" of that many bytes.
 *
 * For that split to hold, the ledger is brought up to date when a wrapped
 * call on a stream begins (what was consumed before it is a getc run) and
 * when it ends (what it consumed itself is not).
 *
 * Two consumers: the trace (SEEKTRACE_TRACE), and each stream's 4 KiB
 * what-if (whatif_stream.h), followed from fopen while the stream's buffer
 * may be larger than 4 KiB. A stream neither wants costs a load and a
 * branch per call. */
#ifndef SEEKTRACE_OPS_H
#define SEEKTRACE_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "counts.h"
#include "seektrace/trace_format.h"
#include "streams.h"
#include "trace_events.h"

/* Whether s's operations are recorded or followed. */
static inline int st_ops_wanted(const struct st_stream *s)
{
    return ST_TRACE_LIKELY_OFF(st_trace_on) || s->whatif.on;
}

/* A wrapped call on s (at fp), which st_ops_wanted, begins / the bytes the
 * ledger booked outside any wrapped call: both record a getc run when
 * n > 0. */
void st_ops_call_begins(struct st_stream *s, FILE *fp);
void st_ops_getc_run(struct st_stream *s, uint64_t n);
/* A per-byte read found no byte (a refill slot returned EOF). */
void st_ops_getc_eof(struct st_stream *s);
/* glibc's own fstat of s's descriptor saw this size. */
void st_ops_size(struct st_stream *s, int regular, uint64_t size);

/* The wrapped call on fp has returned: book what it consumed, then record
 * it. Each names the ST_OP_* it records. */
void st_op_fread(FILE *fp, size_t size, size_t nmemb);
void st_op_getdelim(FILE *fp, char *const *line, ssize_t result, int delim);
void st_op_fseek(FILE *fp, int64_t offset, int whence);
void st_op_plain(FILE *fp, unsigned op); /* FTELL, REWIND, FFLUSH, CLEARERR */
void st_op_other(FILE *fp, enum st_call call);
/* A writing call (fwrite, fputs, puts, the printf family): OTHER, with F1
 * when the last byte it handed over was a newline. */
void st_op_wrote(FILE *fp, enum st_call call);
/* Whether what a wrapped call consumes is recorded as a getc run. */
static inline int st_ops_reads_per_byte(enum st_call call)
{
    return call == ST_CALL_FSCANF;
}

/* A stream was opened with mode; new_description: fopen/freopen of a path
 * (the descriptor starts at offset 0). */
void st_op_open(struct st_stream *s, const char *mode, int new_description);

/* ungetc(ch, fp) is about to run / has returned r. */
int st_op_ungetc_matches(FILE *fp, int ch);
void st_op_ungetc(FILE *fp, int ch, int r, int matches);

#endif
