/* streams.h — one record per stdio stream, found by its FILE*.
 *
 * A FILE* address is reused after fclose, so the table maps an address to
 * the stream living there now; fclose unbinds it. Streams that we did not
 * see opened (stdin, or ones glibc opened for itself) are bound the first
 * time a hook sees them. */
#ifndef SEEKTRACE_STREAMS_H
#define SEEKTRACE_STREAMS_H

#include <stdint.h>
#include <stdio.h>

#include "attribution.h"
#include "tally.h"
#include "report_model.h"
#include "whatif_stream.h"

struct st_file;

struct st_stream {
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
    /* glibc's "m" (mmap) mode maps the file on the stream's first read,
     * where no hook sees, and puts the read position at the stream's
     * offset then: that offset, as the last wrapped call left it (ledger.h). */
    int64_t map_at;

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

/* The live stream at fp, bound on first sight; NULL if fp is not a stream on
 * a file descriptor or cannot be tracked. Lock-free when already bound. */
struct st_stream *st_stream_of(FILE *fp);

/* fp was just opened: bind a fresh record. name: the file fopen or
 * freopen opened (a new open file at offset 0, st_file_of_opening); NULL for
 * fdopen and freopen(NULL, ...), which keep the descriptor as it was. */
struct st_stream *st_stream_opened(FILE *fp, const char *name);

/* The stream at fp, checked against what its fd names now: a program that
 * dup2()s another file onto a stream's fd (or closes it and opens another)
 * gets a fresh record for the new file. Used by the hooks. */
struct st_stream *st_stream_current(FILE *fp);

/* The stream's fd is being closed: unbind it. */
void st_stream_closed(struct st_stream *s);

/* Calls fn on the stream of every FILE glibc still lists as open (a
 * stream closed by a path we do not see, a library's own close slot, is
 * freed memory: it is not looked at). The caller holds glibc's list lock
 * where other threads may open or close streams meanwhile. */
void st_streams_each_open(void (*fn)(struct st_stream *s));

/* Around fork (init.c's atfork handlers, before the registry lock): a
 * stream being folded into another (st_stream_retire) is folded before the
 * fork, and the child never inherits the fold's lock held. The child's
 * also serves _Fork, which runs no handlers. */
void st_streams_fork_prepare(void);
void st_streams_fork_parent(void);
void st_streams_fork_child(void);

/* After a file stream's fclose: when an earlier stream of its file shows
 * the same in a report (descriptor number, buffer, mode), s's counts are
 * added to that one's and s's record is kept to be the file's next
 * stream's. A program that opens, reads and closes one file again and
 * again (a log read at each request) then keeps two records of it, not one
 * per fopen, and its report one stream line. Not while tracing: the trace
 * names streams by their record. */
void st_stream_retire(struct st_stream *s);

/* The stream's counts at the current call site. */
static inline struct st_tally *st_stream_counts(struct st_stream *s)
{
    return st_counts_here(s, &s->cells);
}

/* Refreshes buffer size, mode and origin from the FILE. Every read asks:
 * the answer is recomputed only when the buffer or the flags have changed
 * since the last time. Returns whether they had (then the trace, if any,
 * is told: st_trace_buffer). */
void st_stream_observe_buffer_slow(struct st_stream *s, FILE *fp);
static inline int st_stream_observe_buffer(struct st_stream *s, FILE *fp)
{
    if (__builtin_expect(fp->_IO_buf_base != s->seen_buf_base || fp->_IO_buf_end != s->seen_buf_end ||
                             fp->_flags != s->seen_flags || fp->_flags2 != s->seen_flags2 ||
                             fp->_mode != s->seen_mode,
                         0)) {
        st_stream_observe_buffer_slow(s, fp);
        return 1;
    }
    return 0;
}

#endif
