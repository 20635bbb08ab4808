/* flush_cause.c — see flush_cause.h. */
#include "flush_cause.h"

#include <stddef.h>

_Static_assert(offsetof(struct st_counts, flushes_read) -
                       offsetof(struct st_counts, flushes_fflush) ==
                   (ST_FLUSH_COUNT - 1) * sizeof(uint64_t),
               "the flushes_* counters must follow enum st_flush_cause, in order");

enum st_flush_cause st_flush_cause_of(enum st_call call, int flags, int last)
{
    /* A call that flushes whatever the stream holds names the cause. */
    switch (call) {
    case ST_CALL_EXIT: return ST_FLUSH_EXIT;
    case ST_CALL_FFLUSH: return ST_FLUSH_FFLUSH;
    case ST_CALL_FCLOSE:
    case ST_CALL_FREOPEN:
    case ST_CALL_FOPEN: /* freopen is counted as fopen */
        return ST_FLUSH_CLOSE;
    case ST_CALL_FSEEK:
    case ST_CALL_FSETPOS:
    case ST_CALL_REWIND: return ST_FLUSH_SEEK;
    case ST_CALL_FREAD:
    case ST_CALL_GETC:
    case ST_CALL_FGETS:
    case ST_CALL_GETLINE:
    case ST_CALL_UNGETC:
    case ST_CALL_FSCANF: return ST_FLUSH_READ;
    default: break;
    }
    /* Otherwise a write (or a putc that no call wraps) made glibc write:
     * its buffering mode says why. glibc flushes a line-buffered stream up
     * to the last newline it was given, so a flush ending in one was for
     * that newline; one that does not was for a full buffer. */
    if (flags & ST_IO_UNBUFFERED)
        return ST_FLUSH_UNBUFFERED;
    if ((flags & ST_IO_LINE_BUF) && last == '\n')
        return ST_FLUSH_NEWLINE;
    return ST_FLUSH_FULL;
}

const char *st_flush_cause_name(enum st_flush_cause cause)
{
    static const char *const names[ST_FLUSH_COUNT] = {
        [ST_FLUSH_FFLUSH] = "fflush", [ST_FLUSH_FULL] = "full",
        [ST_FLUSH_NEWLINE] = "newline", [ST_FLUSH_UNBUFFERED] = "unbuffered",
        [ST_FLUSH_SEEK] = "seek",     [ST_FLUSH_CLOSE] = "close",
        [ST_FLUSH_EXIT] = "exit",     [ST_FLUSH_READ] = "read",
    };
    return (unsigned)cause < ST_FLUSH_COUNT ? names[cause] : "?";
}
