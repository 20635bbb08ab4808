/* ledger.c — see ledger.h. */
#include "ledger.h"

#include "attribution.h"
#include "cells.h"
#include "stream.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_events.h"

/* Bytes consumed since the mark, when that can be known. */
static uint64_t consumed(const struct st_stream *s, const FILE *fp, int refill)
{
    char *p = fp->_IO_read_ptr;
    if (!s->mark) {
        /* No buffer at the mark. An "m" stream's first read has mapped the
         * file since, and consumed from the offset it had (map_at) on. */
        if (s->win_base || !(fp->_flags2 & ST_IO_FLAGS2_MMAP) || !fp->_IO_buf_base ||
            fp->_IO_read_base != fp->_IO_buf_base || s->map_at < 0 ||
            s->map_at > fp->_IO_read_end - fp->_IO_buf_base)
            return 0;
        char *from = fp->_IO_buf_base + s->map_at;
        return p >= from && p <= fp->_IO_read_end ? (uint64_t)(p - from) : 0;
    }
    /* The same window, behind the read position. */
    if (fp->_IO_read_base == s->win_base && p > s->mark && p <= fp->_IO_read_end)
        return (uint64_t)(p - s->mark);
    /* The mark is in ungetc's backup area, and glibc's __uflow/__underflow
     * have since gone back to the main get area where ungetc parked it —
     * which they do only once the backup is read to its end: in a refill
     * slot, or (fgets, getc going on from the main area without a refill,
     * then exit or fseek) once the program has read past where the main
     * area resumed. Freeing the backup (fclose) also goes back there, with
     * nothing read: the read position still where the main area resumed. */
    if ((refill || p > fp->_IO_read_base) && s->backup_end && s->win_base != fp->_IO_read_base &&
        !(fp->_flags & ST_IO_IN_BACKUP) && fp->_IO_read_base == s->parked_base &&
        s->mark <= s->backup_end && p >= fp->_IO_read_base && p <= fp->_IO_read_end)
        return (uint64_t)(s->backup_end - s->mark) + (uint64_t)(p - fp->_IO_read_base);
    /* Otherwise the buffer moved where we could not see (a seek dropped
     * the backup area): nothing is booked rather than a guess. */
    return 0;
}

static uint64_t sync_with(struct st_stream *s, FILE *fp, int refill)
{
    char *p = fp->_IO_read_ptr;
    uint64_t n = consumed(s, fp, refill);
    if (n) {
        /* The bytes were taken by whoever consumed the buffer since the
         * mark: the calls that do so without a hook (getc, fgets) keep doing
         * it from the site that last refilled or moved the buffer. Bytes
         * of the window a stream carries are the old file's. */
        struct st_stream *owner = s->carry && s->win_base == s->carry_base ? s->carry : s;
        struct st_tally *c = st_cell_counts(owner, &owner->cells, s->mark_site);
        /* For calls that ask for "a character" or "a line", what was asked
         * is what was delivered. */
        if (c)
            st_ledger_deliver(c, n, n);
    }
    s->mark = p;
    st_ledger_note_window(s, fp);
    return n;
}

uint64_t st_ledger_sync(struct st_stream *s, FILE *fp)
{
    return sync_with(s, fp, 0);
}

uint64_t st_ledger_sync_refill(struct st_stream *s, FILE *fp)
{
    return sync_with(s, fp, 1);
}

void st_ledger_mark(struct st_stream *s, FILE *fp, size_t handed_out)
{
    st_ledger_mark_at(s, fp, handed_out, st_ledger_reads(fp) ? st_current_site() : NULL);
}

void st_ledger_fread(struct st_stream *s, size_t requested, size_t delivered,
                     struct st_carry carry)
{
    size_t old = delivered < carry.bytes ? delivered : carry.bytes;
    if (old) {
        struct st_tally *c = st_cell_counts(carry.from, &carry.from->cells, st_current_site());
        if (c)
            st_ledger_deliver(c, old, old);
    }
    struct st_tally *c = st_stream_counts(s);
    if (c)
        st_ledger_deliver(c, requested - old, delivered - old);
}

void st_ledger_put_sync_locking(struct st_stream *s, FILE *fp, struct st_tally *c)
{
    flockfile(fp);
    st_ledger_put_sync(s, fp, c);
    funlockfile(fp);
}
