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

#include "stream.h"


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

/* True when capture is inferred (set once at start-up, stdio/infer.h):
 * glibc's stdio syscalls are not seen, and the stream accounts skip the
 * delivered-bytes ledger, which needs them. */
extern int st_capture_inferred;

/* In a fork child (one thread): what the parent consumed since a ledger
 * mark (ledger.h) is the parent's to book, so every open stream's mark
 * moves to its read position, charged to the same site. */
void st_streams_settle_marks(void);

/* Around a wrapped call on fp: while an "m" stream has no buffer yet, the
 * offset its first read will map the file at (stream.h: map_at). */
void st_stream_note_map_at_slow(FILE *fp);
static inline void st_stream_note_map_at(FILE *fp)
{
    if (__builtin_expect(fp && (fp->_flags2 & ST_IO_FLAGS2_MMAP) && !fp->_IO_buf_base, 0))
        st_stream_note_map_at_slow(fp);
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
