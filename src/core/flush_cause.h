/* flush_cause.h — who made stdio write: the cause of each write syscall
 * glibc's stdio makes (its jump table's write slot).
 *
 * The causes are the flushes_* counters of counts_fields.def, in the same
 * order, so that a cause indexes them (st_flush_counter). */
#ifndef SEEKTRACE_FLUSH_CAUSE_H
#define SEEKTRACE_FLUSH_CAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"

enum st_flush_cause {
    ST_FLUSH_FFLUSH,     /* fflush (of the stream, or of all: fflush(NULL)) */
    ST_FLUSH_FULL,       /* the buffer was full, or a write did not fit it */
    ST_FLUSH_NEWLINE,    /* a newline on a line-buffered stream */
    ST_FLUSH_UNBUFFERED, /* every write of an unbuffered stream */
    ST_FLUSH_SEEK,       /* fseek, fsetpos or rewind flushing what was put */
    ST_FLUSH_CLOSE,      /* fclose, or freopen closing the old stream */
    ST_FLUSH_EXIT,       /* glibc's exit-time flush of every stream */
    ST_FLUSH_READ,       /* a read: the stream switching from writing to reading
                          * (r+, w+), or stdin's refill flushing stdout */
    ST_FLUSH_COUNT
};

/* glibc's FILE flags the cause depends on (libio.h, not installed). */
#define ST_IO_UNBUFFERED 0x0002
#define ST_IO_LINE_BUF 0x0200

/* The cause of a stdio write made inside a call of kind `call` (the
 * interposed call in progress, or what the outermost hooked slot implies;
 * ST_CALL_OTHER when nothing does) on a stream with glibc flags `flags`,
 * writing bytes whose last one is `last` (-1: none). */
enum st_flush_cause st_flush_cause_of(enum st_call call, int flags, int last);

/* The JSON counter a cause counts in ("flushes_full"), without the prefix
 * ("full"), for reports and exports. */
const char *st_flush_cause_name(enum st_flush_cause cause);

/* Where counts c (struct st_counts, or the library's struct st_tally: both
 * start with counts_fields.def's counters in order) keeps a cause. */
#define st_flush_counter(c, cause) (&(c)->flushes_fflush + (cause))

#endif
