/* ledger.c — see ledger.h. */
#include "ledger.h"

#include "streams.h"
#include "sync.h"

void st_ledger_sync(struct st_stream *s, FILE *fp)
{
    char *p = fp->_IO_read_ptr;
    /* Only a mark in the same window, behind the read position, measures
     * consumption. A different window means the buffer moved where we could
     * not see (glibc's ungetc backup area): nothing is booked rather than a
     * guess. */
    if (s->mark && fp->_IO_read_base == s->win_base && p > s->mark && p <= fp->_IO_read_end) {
        uint64_t n = (uint64_t)(p - s->mark);
        struct st_counts *c = st_stream_counts(s);
        /* For calls that ask for "a character" or "a line", what was asked
         * is what was delivered. */
        if (c) {
            st_add(&c->delivered_bytes, n);
            st_add(&c->requested_bytes, n);
        }
    }
    s->mark = p;
    s->win_base = fp->_IO_read_base;
}

void st_ledger_mark(struct st_stream *s, FILE *fp, size_t handed_out)
{
    char *p = fp->_IO_read_ptr;
    s->mark = p && (size_t)(p - fp->_IO_read_base) >= handed_out ? p - handed_out : p;
    s->win_base = fp->_IO_read_base;
}

void st_ledger_fread(struct st_stream *s, size_t requested, size_t delivered)
{
    struct st_counts *c = st_stream_counts(s);
    if (!c)
        return;
    st_add(&c->requested_bytes, requested);
    st_add(&c->delivered_bytes, delivered);
}
