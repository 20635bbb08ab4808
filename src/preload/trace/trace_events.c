/* trace_events.c — the events of accounts/trace_events.h (the out-of-line
 * halves of its st_trace_X macros), and the optional API's marks and flush
 * (wrap/api.c exports them). Each enters the writer, finds room and the
 * ids it names, and leaves the encoding to trace_encode.h's encoder for its
 * kind; what the thread must remember between events (open spans, the READ
 * a re-read may amend, the last stream an OP named) is kept here. */
#define _GNU_SOURCE 1
#include "trace_writer.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "streams.h"
#include "trace_clock.h"
#include "trace_encode.h"
#include "trace_writer_internal.h"

typedef struct st_tw_thread tw_t;

/* reach_cell's rare half: the cell is not in the thread's cache (it may
 * need defining), or the chunk is full. NULL: the event is lost and the
 * writer left. */
__attribute__((noinline)) static uint8_t *reach_cell_slow(tw_t *t, struct st_tally *c,
                                                          unsigned set, uint32_t *id)
{
    *id = st_tw_cached_cell_id(t, c, set);
    if (!*id)
        *id = st_tw_cell_id_cached(t, c, set);
    uint8_t *p = *id ? st_tw_reserve(t, EVENT_MAX) : NULL;
    if (!p) {
        st_tw_lost();
        st_tw_leave();
    }
    return p;
}

/* Enters the writer with room for one event aimed at the cell c, whose id
 * is set in *id; NULL if nothing can be recorded (then the event is
 * counted as lost if it had to be). Inline: every counting event passes
 * here, and the usual case (a cached cell, room in the chunk) is a few
 * loads and compares. */
static inline __attribute__((always_inline)) uint8_t *reach_cell(tw_t **tp, struct st_tally *c,
                                                                 uint32_t *id)
{
    tw_t *t = st_tw_enter();
    *tp = t;
    if (!t)
        return NULL;
    unsigned set = (unsigned)(((uintptr_t)c * 0x9E3779B97F4A7C15ull) >> 61) * 2;
    if (__builtin_expect(t->end - t->pos >= EVENT_MAX, 1) &&
        (*id = st_tw_cached_cell_id(t, c, set)) != 0)
        return t->pos;
    uint8_t *p = reach_cell_slow(t, c, set, id);
    if (!p)
        *tp = NULL;
    return p;
}

/* reach_cell, and the TARGET switch to the cell written: the position
 * returned is past it. */
static inline __attribute__((always_inline)) uint8_t *begin_event(tw_t **tp, struct st_tally *c)
{
    uint32_t id;
    uint8_t *p = reach_cell(tp, c, &id);
    return p ? put_target(*tp, p, id) : NULL;
}

/* CALL names its cell itself (F2) when the target changes: a loop that
 * alternates between two calls would otherwise need a TARGET per call. */
void st_trace_call_begin_(struct st_tally *c, enum st_call call)
{
    tw_t *t;
    uint32_t id;
    uint8_t *p = c ? reach_cell(&t, c, &id) : NULL;
    if (!p)
        return;
    st_tw_commit(t, put_CALL(t, p, 1, id, call));
    t->span++;
    st_tw_leave();
}

void st_trace_slot_begin_(enum st_call call)
{
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    uint8_t *p = st_tw_reserve(t, EVENT_MAX);
    if (p) {
        st_tw_commit(t, put_CALL(t, p, 0, 0, call));
        t->span++;
    } else {
        st_tw_lost();
    }
    st_tw_leave();
}

void st_trace_call_end_(void)
{
    if (st_tw_self.call_ended) { /* the call's OP recorded its end */
        st_tw_self.call_ended = 0;
        return;
    }
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    if (t->span > 0) {
        t->span--;
        uint8_t *p = st_tw_reserve(t, 1 + ST_VARINT_MAX);
        if (p)
            st_tw_commit(t, put_END(t, p));
        else
            st_tw_lost();
    }
    st_tw_leave();
}

/* The shape of every event charged to a cell's tally: nothing without a
 * tally or when the trace is off; `put` encodes into p for thread state t. */
#define EVENT_ON_TALLY(c, put)                                                \
    do {                                                                      \
        tw_t *t;                                                              \
        uint8_t *p = (c) ? begin_event(&t, (c)) : NULL;                 \
        if (!p)                                                               \
            return;                                                           \
        st_tw_commit(t, put);                                                 \
        st_tw_leave();                                                        \
    } while (0)

void st_trace_count_(struct st_tally *c, enum st_call call)
{
    EVENT_ON_TALLY(c, put_COUNT(t, p, call));
}

void st_trace_buffer_(struct st_stream *s)
{
    if (!s)
        return;
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    uint32_t id = st_tw_id_of(&s->owner.trace_id);
    const struct st_traced_buffer *b = &s->traced;
    if (!id) {
        /* Not seen before: its definition carries the buffer. */
        st_tw_stream_id(t, s);
    } else if (b->size != s->buffer_size || b->requested != s->requested_buffer_size ||
               b->mode != st_tw_buf_byte(s) || b->caveat != s->caveat) {
        st_tw_note_buffer(s);
        uint8_t *p = st_tw_reserve(t, EVENT_MAX + st_tw_caveat_len(b));
        if (p)
            st_tw_commit(t, put_BUF(p, id, b));
        else
            st_tw_lost();
    }
    st_tw_leave();
}

void st_trace_close_(struct st_stream *s)
{
    if (!s)
        return;
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    uint32_t id = st_tw_id_of(&s->owner.trace_id);
    uint8_t *p = id ? st_tw_reserve(t, EVENT_MAX) : NULL;
    if (p)
        st_tw_commit(t, put_CLOSE(t, p, id));
    else if (id)
        st_tw_lost();
    st_tw_leave();
}

void st_trace_deliver_(struct st_tally *c, uint64_t requested, uint64_t delivered)
{
    EVENT_ON_TALLY(c, put_DELIVER(p, requested, delivered));
}

void st_trace_seek_(struct st_tally *c, int kept, uint64_t resync)
{
    EVENT_ON_TALLY(c, put_SEEK(p, kept, resync));
}

void st_trace_written_(struct st_tally *c, uint64_t n)
{
    EVENT_ON_TALLY(c, put_WRITTEN(p, n));
}

void st_trace_flush_cause_(struct st_tally *c, int cause)
{
    EVENT_ON_TALLY(c, put_FLUSH(p, cause));
}

void st_trace_op_(struct st_stream *s, unsigned op, int flag, uint64_t n, int64_t x, int ends_call)
{
    if (!s)
        return;
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    if (t->op_stream != s) {
        t->op_stream_id = st_tw_stream_id(t, s);
        t->op_stream = t->op_stream_id ? s : NULL;
    }
    uint32_t id = t->op_stream_id;
    uint8_t *p = id ? st_tw_reserve(t, EVENT_MAX) : NULL;
    if (p) {
        /* The END st_trace_call_end_ would write next, here instead: one
         * record, one entry fewer per call. */
        st_tw_commit(t, put_OP(t, p, id, op, flag, n, x, ends_call && t->span > 0));
    } else if (id) {
        st_tw_lost();
    }
    st_tw_leave();
}

void st_trace_sys_begin_(void)
{
    st_tw_self.sys_t0 = st_trace_clock_ns();
}

void st_trace_read_(struct st_tally *c, enum st_call call, int64_t offset, ssize_t result)
{
    tw_t *t;
    uint8_t *p = c ? begin_event(&t, c) : NULL;
    if (!p) {
        st_tw_self.last_read = NULL;
        return;
    }
    uint8_t *h = p;
    p = put_READ(t, p, call, offset < 0 ? -1 : offset, result);
    st_tw_commit(t, p);
    t->last_read = h;
    t->last_read_end = p;
    t->last_read_result = result;
    st_tw_leave();
}

void st_trace_reread_(uint64_t again)
{
    tw_t *w = &st_tw_self;
    if (!again) {
        w->last_read = NULL;
        return;
    }
    /* A read that re-read all its bytes (the common case) turns the READ
     * just written into READ_REREAD. That store needs no entering: a
     * signal handler's events land after the READ and leave it whole (the
     * epoch check: a fork child's READ is in its parent's mapping). */
    uint8_t *h = w->last_read;
    if (h && w->pos == w->last_read_end && (int64_t)again == w->last_read_result &&
        w->epoch == __atomic_load_n(&st_tw_epoch, __ATOMIC_ACQUIRE)) {
        put_READ_REREAD(h);
        w->last_read = NULL;
        return;
    }
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    /* A partial re-read is an event of its own (begin_event left room for
     * it). */
    if (t->last_read && t->pos == t->last_read_end && t->end - t->pos >= 1 + ST_VARINT_MAX)
        st_tw_commit(t, put_REREAD(t->pos, again));
    else
        st_tw_lost();
    t->last_read = NULL;
    st_tw_leave();
}

void st_trace_lseek_(struct st_tally *c, enum st_call call, int64_t result)
{
    EVENT_ON_TALLY(c, put_LSEEK(t, p, call, result));
}

void st_trace_fstat_(struct st_tally *c, enum st_call call)
{
    EVENT_ON_TALLY(c, put_FSTAT(t, p, call));
}

void st_trace_write_at_(struct st_tally *c, enum st_call call, int64_t offset, ssize_t result)
{
    tw_t *t;
    uint8_t *p = c ? begin_event(&t, c) : NULL;
    if (!p)
        return;
    st_tw_commit(t, put_WRITE_AT(t, p, call, offset < 0 ? -1 : offset, result));
    st_tw_leave();
}

void st_trace_posix_write_(struct st_tally *c, enum st_call call, uint64_t handed, ssize_t result)
{
    st_trace_count_(c, call);
    if (result >= 0 && handed)
        EVENT_ON_TALLY(c, put_WRITTEN(p, handed));
}

void st_trace_posix_read_(struct st_tally *c, enum st_call call, uint64_t requested,
                          ssize_t result)
{
    st_trace_count_(c, call);
    uint64_t req = result >= 0 ? requested : 0, del = result > 0 ? (uint64_t)result : 0;
    if (req || del)
        st_trace_deliver_(c, req, del);
}

void st_trace_posix_lseek_(struct st_tally *c, int64_t result)
{
    st_trace_count_(c, ST_CALL_LSEEK);
    st_trace_lseek_(c, ST_CALL_LSEEK, result);
}

/* ---- the optional API's marks and flush (wrap/api.c exports them) ----- */

void st_trace_mark(const char *label)
{
    tw_t *t = st_tw_enter();
    if (!t)
        return;
    size_t len = label ? st_tw_bounded_len(label, MAX_LABEL) : 0;
    uint8_t *p = st_tw_reserve(t, len + 3 * ST_VARINT_MAX);
    if (p)
        st_tw_commit(t, put_MARK(t, p, label, len));
    else
        st_tw_lost();
    st_tw_leave();
}

int st_trace_flush(void)
{
    tw_t *t = st_tw_enter();
    if (!t)
        return 0;
    /* Every window's pages, mapped still or not, are the file's. */
    int saved = errno;
    long fd = st_tw_reopen();
    int r = fd >= 0 ? (int)syscall(SYS_fdatasync, (int)fd) : -1;
    if (fd >= 0)
        st_tw_close(fd);
    errno = saved;
    st_tw_leave();
    return r == 0 ? 0 : -1;
}
