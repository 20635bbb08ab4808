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

#endif
