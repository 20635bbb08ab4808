/* stream.h — the record of one stdio stream: what the accounts keep of it.
 *
 * The record's layout only; the table that finds a stream by its FILE*, and
 * everything done to streams, is streams.h's. The delivered-bytes ledger
 * (ledger.h) and the file registry (files.h) work on these fields without
 * the table. */
#ifndef SEEKTRACE_STREAM_H
#define SEEKTRACE_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "attribution.h"
#include "cells.h"
#include "report_model.h"
#include "tally.h"
#include "whatif_stream.h"

/* glibc's _IO_FLAGS2_MMAP (libio.h, not installed): the stream was opened
 * in "m" mode. */
#define ST_IO_FLAGS2_MMAP 0x1

struct st_file;

/* A stream's buffer as its trace last recorded it (trace/trace_ids.c):
 * a BUF event is written when the stream's differs. */
struct st_traced_buffer {
    uint64_t size, requested;
    unsigned mode; /* mode | origin << 4 */
    const char *caveat;
};

struct st_stream {
    struct st_cell_owner owner; /* first: a cell's owner may be a stream */
    FILE *fp;
    int fd;
    struct st_file *file;
    struct st_cell *cells; /* counts by call site (cells.h) */
    int closed;

    /* The delivered-bytes ledger (ledger.c): bytes of the read buffer up to
     * mark are accounted; win_base says which buffer window mark is in. */
    char *mark;
    char *win_base;
    struct st_site *mark_site; /* the call site consumption is charged to */
    /* mark is in ungetc's backup area (non-NULL): its end, and the main get
     * area's base that glibc returns to once it is read. */
    char *backup_end;
    char *parked_base;
    /* The stream's descriptor came to name another file under it (dup2,
     * or a close and an open that took the number): the bytes still in
     * the get area then, window carry_base, are the old file's, delivered
     * for `carry` (the old file's stream) until a read refills the buffer.
     * A stream that carries takes no fast path (wrap_stdio.c, stdio_slots.c):
     * the general one splits what it delivers (ledger.h). */
    struct st_stream *carry;
    char *carry_base;
    int carried; /* some stream's carry has named this one (never folded: fold.h) */
    /* glibc's "m" (mmap) mode maps the file on the stream's first read,
     * where no hook sees, and puts the read position at the stream's
     * offset then: that offset, as the last wrapped call left it (ledger.h). */
    int64_t map_at;
    /* The written-bytes side of the ledger (ledger.h): how many bytes of
     * the put area, [_IO_write_base, _IO_write_ptr), are booked already. */
    uint64_t put_booked;
    /* The last byte glibc's write slot wrote (0 before any): the last one
     * handed over when a writing call leaves the put area empty (ops.c). */
    int last_written;

    /* The buffer as last seen, and where it came from; the FILE fields
     * that told (st_stream_observe_buffer). */
    char *seen_buf_base, *seen_buf_end;
    int seen_flags, seen_flags2, seen_mode;
    uint64_t buffer_size;
    uint64_t requested_buffer_size;
    enum st_buf_mode mode;
    enum st_buf_origin origin;
    const char *caveat; /* modes whose work the hooks cannot see */
    void *forced_buffer; /* SEEKTRACE_BUFSIZE's buffer (bufsize.h) */
    struct st_traced_buffer traced;
    size_t forced_size;

    /* What a 4 KiB buffer would have read (ops.h). */
    struct st_whatif_stream whatif;
    /* The same of the streams folded into this one (st_stream_retire):
     * whatif_4k_kernel_read_bytes and whatif_4k_recorded_bytes. */
    uint64_t folded_whatif_predicted, folded_whatif_recorded;

    struct st_stream *next_in_file;
    /* Folded away, its cells zero, waiting in its file's spares to be
     * the record of the file's next stream. */
    int spare;
    struct st_stream *next_spare;
};

/* The stream's counts at the current call site. */
static inline struct st_tally *st_stream_counts(struct st_stream *s)
{
    return st_counts_here(s, &s->cells);
}

#endif
