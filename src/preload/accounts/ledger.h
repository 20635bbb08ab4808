/* ledger.h — counting the bytes a stream delivers without wrapping getc.
 *
 * glibc hands bytes out of the stream buffer by advancing _IO_read_ptr,
 * inline in getc_unlocked and friends; no call we could wrap sees it. But
 * the buffer can only be refilled, moved or dropped through the jump-table
 * slots we hook. So at the outermost hooked slot the ledger first books what
 * was consumed since its mark (read_ptr - mark: consumed bytes), and after
 * the slot returns it puts the mark where consumption resumes. Everything
 * between two marks was handed to the program, exactly once. */
#ifndef SEEKTRACE_LEDGER_H
#define SEEKTRACE_LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stream.h"
#include "sync.h"
#include "trace_events.h"

/* glibc's _IO_IN_BACKUP flag (libio.h, not installed): the get area is
 * ungetc's backup buffer, not the stream's own. */
#define ST_IO_IN_BACKUP 0x100

/* Whether nothing was consumed, nor the buffer moved, since the mark: then
 * the ledger has nothing to book (the usual case when the last hooked slot
 * set the mark), and callers skip it. */
static inline int st_ledger_at_mark(const struct st_stream *s, const FILE *fp)
{
    return fp->_IO_read_ptr == s->mark && fp->_IO_read_base == s->win_base;
}

/* Books the bytes consumed since the mark, to the site that set it, and
 * returns how many. */
uint64_t st_ledger_sync(struct st_stream *s, FILE *fp);

/* The same, in a slot glibc reaches only with the get area exhausted
 * (__uflow, __underflow): it also follows glibc out of ungetc's backup
 * area, which those leave for the main get area before the slot runs. */
uint64_t st_ledger_sync_refill(struct st_stream *s, FILE *fp);

/* Remembers the window the mark is in. In ungetc's backup area, also
 * where that ends and where the main get area was parked, to follow glibc
 * back there (ledger.c). */
static inline void st_ledger_note_window(struct st_stream *s, const FILE *fp)
{
    s->win_base = fp->_IO_read_base;
    if (fp->_flags & ST_IO_IN_BACKUP) {
        s->backup_end = fp->_IO_read_end;
        s->parked_base = fp->_IO_save_base;
    } else {
        s->backup_end = NULL;
    }
}

/* Sets the mark to the current read position, less `handed_out` bytes the
 * slot itself consumed and returned (uflow returns the byte it took), and
 * charges what is consumed from here on to `site`. */
static inline void st_ledger_mark_at(struct st_stream *s, FILE *fp, size_t handed_out,
                                     struct st_site *site)
{
    char *p = fp->_IO_read_ptr;
    s->mark = p && (size_t)(p - fp->_IO_read_base) >= handed_out ? p - handed_out : p;
    st_ledger_note_window(s, fp);
    s->mark_site = site;
}

/* Whether fp can be read at all. One that cannot (stdout) consumes nothing
 * to charge, so its mark needs no site: resolving one there would unwind
 * on every printf flush. */
static inline int st_ledger_reads(const FILE *fp)
{
    return !(fp->_flags & 0x0004 /* _IO_NO_READS */);
}

/* st_ledger_mark_at the current call site. */
void st_ledger_mark(struct st_stream *s, FILE *fp, size_t handed_out);

/* What fread's slot (xsgetn) reports of itself: requested and delivered,
 * booked on c. */
static inline void st_ledger_deliver(struct st_tally *c, size_t requested, size_t delivered)
{
    st_add2(&c->requested_bytes, requested, &c->delivered_bytes, delivered);
    st_trace_deliver(c, requested, delivered);
}

/* What of a stream's get area is another file's (streams.h: carry): the
 * old file's stream and the bytes left of its window, as fread's slot
 * finds them on entry. */
struct st_carry {
    struct st_stream *from;
    size_t bytes;
};
static inline struct st_carry st_ledger_carry(const struct st_stream *s, const FILE *fp)
{
    if (!s || !s->carry || fp->_IO_read_base != s->carry_base)
        return (struct st_carry){NULL, 0};
    return (struct st_carry){s->carry, (size_t)(fp->_IO_read_end - fp->_IO_read_ptr)};
}

/* st_ledger_deliver on s's counts at the current call site, but for the
 * first carry.bytes delivered: those go to the file they came from. */
void st_ledger_fread(struct st_stream *s, size_t requested, size_t delivered,
                     struct st_carry carry);

/* ---- The written side ----
 *
 * glibc's writers (fputc, the putc_unlocked macro that never reaches a
 * symbol, fputs, fwrite, printf) put bytes in the put area by advancing
 * _IO_write_ptr, and every flush writes exactly [_IO_write_base,
 * _IO_write_ptr) through the jump table's write slot (new_do_write), which
 * empties the area. So what the program handed over since the last
 * booking is the area's growth beyond the part already booked
 * (put_booked), and a flush takes what it writes out of that part. Bytes
 * glibc writes straight from elsewhere (an fwrite of a buffer or more;
 * on an unbuffered stream every write, printf's from its own staging
 * buffer) never enter the area: the write slot books those itself. The
 * area only ever loses bytes unwritten on a write error or __fpurge: then
 * nothing is booked until it grows past the part booked. */

/* Bytes in the put area, not yet written. */
static inline uint64_t st_put_pending(const FILE *fp)
{
    return fp->_IO_write_ptr > fp->_IO_write_base
               ? (uint64_t)(fp->_IO_write_ptr - fp->_IO_write_base)
               : 0;
}

/* n bytes handed over, booked on c. */
static inline void st_ledger_written(struct st_tally *c, uint64_t n)
{
    st_add(&c->written_bytes, n);
    st_trace_written(c, n);
}

/* Books on c (NULL: nowhere) what was put in s's area since the last
 * booking. Callers hold fp's lock, or are the only thread. */
static inline void st_ledger_put_sync(struct st_stream *s, const FILE *fp, struct st_tally *c)
{
    uint64_t now = st_put_pending(fp);
    if (now > s->put_booked && c)
        st_ledger_written(c, now - s->put_booked);
    s->put_booked = now;
}

/* The same when a write call has returned (wrap_stdio.c), without fp's
 * lock: taken when another thread could be putting on fp meanwhile. Inline
 * while the process has one thread: a printf per line pays a few
 * instructions. */
void st_ledger_put_sync_locking(struct st_stream *s, FILE *fp, struct st_tally *c);
static inline void st_ledger_put_sync_unlocked(struct st_stream *s, FILE *fp, struct st_tally *c)
{
    if (__builtin_expect(__libc_single_threaded, 1))
        st_ledger_put_sync(s, fp, c);
    else
        st_ledger_put_sync_locking(s, fp, c);
}

/* stdio's write slot is about to write n bytes from data: what was put
 * since the last booking is booked on c first, then the flush taken out
 * of the area, or, written from outside it, booked as handed over now. */
static inline void st_ledger_put_write(struct st_stream *s, const FILE *fp, struct st_tally *c,
                                       const char *data, uint64_t n)
{
    st_ledger_put_sync(s, fp, c);
    if (data >= fp->_IO_buf_base && data < fp->_IO_buf_end)
        s->put_booked = s->put_booked > n ? s->put_booked - n : 0;
    else if (n && c)
        st_ledger_written(c, n);
}

#endif
