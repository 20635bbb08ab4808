/* ledger.c — see ledger.h. */
#include "ledger.h"

#include "attribution.h"
#include "cells.h"
#include "streams.h"
#include "sync.h"
#include "trace_writer.h"

void st_ledger_sync(struct st_stream *s, FILE *fp)
{
    char *p = fp->_IO_read_ptr;
    /* Only a mark in the same window, behind the read position, measures
     * consumption. A different window means the buffer moved where we could
     * not see (glibc's ungetc backup area): nothing is booked rather than a
     * guess. */
    if (s->mark && fp->_IO_read_base == s->win_base && p > s->mark && p <= fp->_IO_read_end) {
        uint64_t n = (uint64_t)(p - s->mark);
        /* The bytes were taken by whoever consumed the buffer since the
         * mark: the calls that do so without a hook (getc, fgets) keep doing
         * it from the site that last refilled or moved the buffer. */
        struct st_counts *c = st_cell_counts(s, &s->cells, s->mark_site);
        /* For calls that ask for "a character" or "a line", what was asked
         * is what was delivered. */
        if (c) {
            st_add(&c->delivered_bytes, n);
            st_add(&c->requested_bytes, n);
            st_trace_deliver(c, n, n);
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
    s->mark_site = st_current_site();
}

void st_ledger_fread(struct st_stream *s, size_t requested, size_t delivered)
{
    struct st_counts *c = st_stream_counts(s);
    if (!c)
        return;
    st_add(&c->requested_bytes, requested);
    st_add(&c->delivered_bytes, delivered);
    st_trace_deliver(c, requested, delivered);
}
