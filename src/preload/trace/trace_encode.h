/* trace_encode.h — one encoder per event kind, named after its line of
 * include/seektrace/events.def (put_READ, ...), as the reader has one
 * decoder per line (src/tracefile/trace_decode.c).
 *
 * Each writes the header byte and then the kind's fields in the order
 * events.def gives them, and keeps the thread's mirror of the decoder's
 * chunk state (target, call, expected, last_size, time) as that decoder
 * will. The header byte comes from the table too: ST_TW_HEADER keeps only
 * the flags events.def lets the kind carry, so the writer cannot produce a
 * header the reader calls corrupt. A kind added to events.def without an
 * encoder here (or a reason it has none, as LOST) does not compile: the
 * check at the end expands the table.
 *
 * The caller reserves the room (EVENT_MAX, plus the length of any string)
 * and commits the bytes; encoders only encode. Inline: they are the hot
 * path of every event. */
#ifndef SEEKTRACE_TRACE_ENCODE_H
#define SEEKTRACE_TRACE_ENCODE_H

#include <string.h>

#include "stream.h"
#include "trace_clock.h"
#include "trace_codec.h"
#include "trace_writer_internal.h"

/* events.def's flags column, per kind. */
enum {
#define ST_TRACE_EVENT(kind, value, name, flags, ...) ST_TW_FLAGS_##kind = (flags),
#include "seektrace/events.def"
#undef ST_TRACE_EVENT
};

/* The header byte of a `kind` event with flags f (ST_EV_F1..F3). */
#define ST_TW_HEADER(kind, f) ((uint8_t)(ST_EV_##kind | ((f) & ST_TW_FLAGS_##kind)))

/* u cell: the target of the counting events that follow. */
static inline uint8_t *put_TARGET(struct st_tw_thread *t, uint8_t *p, uint32_t cell)
{
    *p++ = ST_TW_HEADER(TARGET, 0);
    t->target = cell;
    return st_put_u(p, cell);
}

/* A TARGET, where the target changes. */
static inline uint8_t *put_target(struct st_tw_thread *t, uint8_t *p, uint32_t cell)
{
    return t->target != cell ? put_TARGET(t, p, cell) : p;
}

static inline uint8_t *put_FILE_DEF(uint8_t *p, uint32_t id, const char *path, size_t len)
{
    *p++ = ST_TW_HEADER(FILE_DEF, 0);
    p = st_put_u(p, id);
    p = st_put_u(p, len);
    memcpy(p, path, len);
    return p + len;
}

static inline size_t st_tw_caveat_len(const struct st_traced_buffer *b)
{
    return b->caveat ? st_tw_bounded_len(b->caveat, MAX_LABEL) : 0;
}

/* A stream's buffer as last noted in b, as STREAM_DEF and BUF end: u size,
 * u requested size, b mode|origin<<4, u len, bytes caveat. */
static inline uint8_t *put_buffer(uint8_t *p, const struct st_traced_buffer *b)
{
    size_t clen = st_tw_caveat_len(b);
    p = st_put_u(p, b->size);
    p = st_put_u(p, b->requested);
    *p++ = (uint8_t)b->mode;
    p = st_put_u(p, clen);
    if (clen)
        memcpy(p, b->caveat, clen);
    return p + clen;
}

/* id, b: the stream's id and buffer; file: its file's id. */
static inline uint8_t *put_STREAM_DEF(uint8_t *p, uint32_t id, const struct st_traced_buffer *b,
                                      uint32_t file, int fd, uint64_t ordinal)
{
    *p++ = ST_TW_HEADER(STREAM_DEF, 0);
    p = st_put_u(p, id);
    p = st_put_u(p, file);
    p = st_put_s(p, fd);
    p = st_put_u(p, ordinal);
    return put_buffer(p, b);
}

static inline uint8_t *put_BUF(uint8_t *p, uint32_t id, const struct st_traced_buffer *b)
{
    *p++ = ST_TW_HEADER(BUF, 0);
    p = st_put_u(p, id);
    return put_buffer(p, b);
}

/* A call begins now. counted: F1. cell: the call's own target, named in
 * the event (F2) when it is not the current one; 0 for a span charged to
 * no cell (a hooked slot's). */
static inline uint8_t *put_CALL(struct st_tw_thread *t, uint8_t *p, int counted, uint32_t cell,
                                enum st_call call)
{
    int names = cell && t->target != cell;
    *p++ = ST_TW_HEADER(CALL, (counted ? ST_EV_F1 : 0) | (names ? ST_EV_F2 : 0));
    if (names) {
        p = st_put_u(p, cell);
        t->target = cell;
    }
    p = st_put_u(p, st_tw_delta(t, st_trace_clock_ns()));
    *p++ = (uint8_t)call;
    t->call = (uint8_t)call;
    return p;
}

/* The innermost open call ends now. */
static inline uint8_t *put_END(struct st_tw_thread *t, uint8_t *p)
{
    *p++ = ST_TW_HEADER(END, 0);
    return st_put_u(p, st_tw_delta(t, st_trace_clock_ns()));
}

static inline uint8_t *put_COUNT(struct st_tw_thread *t, uint8_t *p, enum st_call call)
{
    *p++ = ST_TW_HEADER(COUNT, 0);
    *p++ = (uint8_t)call;
    t->call = (uint8_t)call;
    return p;
}

/* u dt, u dur: the start and duration of the syscall that just returned
 * (st_trace_sys_begin_ noted its start). */
static inline uint8_t *put_sys_time(struct st_tw_thread *t, uint8_t *p)
{
    uint64_t end = st_trace_clock_ns(), start = t->sys_t0;
    t->sys_t0 = 0;
    if (!start || start > end)
        start = end;
    if (start < t->last_ns)
        start = t->last_ns;
    if (end < start)
        end = start;
    p = st_put_u(p, st_tw_delta(t, start));
    return st_put_u(p, end - start);
}

/* The call byte of a syscall event, unless it is the chunk's last call
 * (flags f have F1). */
static inline uint8_t *put_call_unless_same(unsigned f, uint8_t *p, enum st_call call)
{
    if (!(f & ST_EV_F1))
        *p++ = (uint8_t)call;
    return p;
}

/* READ's and WRITE_AT's flags and fields after the header byte; offset:
 * -1 when unknown. */
static inline uint8_t *put_transfer(struct st_tw_thread *t, uint8_t *p, uint8_t kind,
                                    enum st_call call, int64_t offset, int64_t result)
{
    unsigned f = 0;
    if (t->call == (uint8_t)call)
        f |= ST_EV_F1;
    if (offset == t->expected)
        f |= ST_EV_F2;
    if (result == t->last_size)
        f |= ST_EV_F3;
    *p++ = (uint8_t)(kind | f);
    p = put_call_unless_same(f, p, call);
    p = put_sys_time(t, p);
    if (!(f & ST_EV_F2))
        p = st_put_s(p, offset);
    if (!(f & ST_EV_F3))
        p = st_put_s(p, result);
    t->call = (uint8_t)call;
    t->last_size = result;
    if (offset >= 0)
        t->expected = offset + (result > 0 ? result : 0);
    return p;
}

static inline uint8_t *put_READ(struct st_tw_thread *t, uint8_t *p, enum st_call call,
                                int64_t offset, int64_t result)
{
    _Static_assert(ST_TW_FLAGS_READ == (ST_EV_F1 | ST_EV_F2 | ST_EV_F3), "put_transfer's flags");
    return put_transfer(t, p, ST_EV_READ, call, offset, result);
}

static inline uint8_t *put_WRITE_AT(struct st_tw_thread *t, uint8_t *p, enum st_call call,
                                    int64_t offset, int64_t result)
{
    _Static_assert(ST_TW_FLAGS_WRITE_AT == (ST_EV_F1 | ST_EV_F2 | ST_EV_F3),
                   "put_transfer's flags");
    return put_transfer(t, p, ST_EV_WRITE_AT, call, offset, result);
}

/* The READ at h, just written, re-read all its bytes: it becomes a
 * READ_REREAD, its flags and fields kept. One byte store, and either value
 * is a whole event, so a crash in between leaves a readable trace. */
static inline void put_READ_REREAD(uint8_t *h)
{
    __atomic_store_n(h, ST_TW_HEADER(READ_REREAD, *h & 0xe0), __ATOMIC_RELEASE);
}

static inline uint8_t *put_REREAD(uint8_t *p, uint64_t n)
{
    *p++ = ST_TW_HEADER(REREAD, 0);
    return st_put_u(p, n);
}

static inline uint8_t *put_LSEEK(struct st_tw_thread *t, uint8_t *p, enum st_call call,
                                 int64_t result)
{
    unsigned f = t->call == (uint8_t)call ? ST_EV_F1 : 0;
    if (result < 0)
        f |= ST_EV_F3;
    else if (result == t->expected)
        f |= ST_EV_F2;
    *p++ = ST_TW_HEADER(LSEEK, f);
    p = put_call_unless_same(f, p, call);
    p = put_sys_time(t, p);
    if (!(f & (ST_EV_F2 | ST_EV_F3)))
        p = st_put_s(p, result - (t->expected > 0 ? t->expected : 0));
    t->call = (uint8_t)call;
    if (result >= 0)
        t->expected = result;
    return p;
}

static inline uint8_t *put_FSTAT(struct st_tw_thread *t, uint8_t *p, enum st_call call)
{
    unsigned f = t->call == (uint8_t)call ? ST_EV_F1 : 0;
    *p++ = ST_TW_HEADER(FSTAT, f);
    p = put_call_unless_same(f, p, call);
    p = put_sys_time(t, p);
    t->call = (uint8_t)call;
    return p;
}


static inline uint8_t *put_WRITTEN(uint8_t *p, uint64_t n)
{
    *p++ = ST_TW_HEADER(WRITTEN, 0);
    return st_put_u(p, n);
}

static inline uint8_t *put_DELIVER(uint8_t *p, uint64_t requested, uint64_t delivered)
{
    int same = requested == delivered;
    *p++ = ST_TW_HEADER(DELIVER, same ? ST_EV_F1 : 0);
    p = st_put_u(p, requested);
    return same ? p : st_put_u(p, delivered);
}

static inline uint8_t *put_SEEK(uint8_t *p, int kept, uint64_t resync)
{
    *p++ = ST_TW_HEADER(SEEK, kept ? ST_EV_F1 : 0);
    return kept ? st_put_u(p, resync) : p;
}

static inline uint8_t *put_FLUSH(uint8_t *p, int cause)
{
    *p++ = ST_TW_HEADER(FLUSH, 0);
    *p++ = (uint8_t)cause;
    return p;
}

static inline uint8_t *put_SITE_DEF(uint8_t *p, uint32_t id, const uintptr_t *frames, int nframes)
{
    *p++ = ST_TW_HEADER(SITE_DEF, 0);
    p = st_put_u(p, id);
    p = st_put_u(p, (uint64_t)nframes);
    for (int f = 0; f < nframes; f++)
        p = st_put_u(p, frames[f]);
    return p;
}

static inline uint8_t *put_MODULE(uint8_t *p, uintptr_t start, uintptr_t end, uint64_t file_offset,
                                  const char *path, size_t len)
{
    *p++ = ST_TW_HEADER(MODULE, 0);
    p = st_put_u(p, start);
    p = st_put_u(p, end - start);
    p = st_put_u(p, file_offset);
    p = st_put_u(p, len);
    memcpy(p, path, len);
    return p + len;
}

static inline uint8_t *put_MARK(struct st_tw_thread *t, uint8_t *p, const char *label, size_t len)
{
    *p++ = ST_TW_HEADER(MARK, 0);
    p = st_put_u(p, st_tw_delta(t, st_trace_clock_ns()));
    p = st_put_u(p, len);
    if (len)
        memcpy(p, label, len);
    return p + len;
}

static inline uint8_t *put_CLOSE(struct st_tw_thread *t, uint8_t *p, uint32_t stream)
{
    *p++ = ST_TW_HEADER(CLOSE, 0);
    p = st_put_u(p, stream);
    return st_put_u(p, st_tw_delta(t, st_trace_clock_ns()));
}

/* LOST is never written: lost events are counted in the header
 * (events_lost), which no chunk lost with them can take along. Writing one
 * does not compile. */
void put_LOST(void) __attribute__((error("the writer counts lost events in the header")));

/* A cell, which becomes the target (as the decoder takes it). */
static inline uint8_t *put_CELL_DEF(struct st_tw_thread *t, uint8_t *p, uint32_t id, uint32_t owner,
                                    uint32_t site)
{
    *p++ = ST_TW_HEADER(CELL_DEF, 0);
    p = st_put_u(p, id);
    p = st_put_u(p, owner);
    p = st_put_u(p, site);
    t->target = id;
    return p;
}

/* One stream operation (trace_format.h, "Stream operations"): n its
 * unsigned field (FSEEK: whence; OTHER: the call), x its signed one.
 * ends: it is also the END of the innermost open call (F2), now: that span
 * closes, and the call's own st_trace_call_end_ writes nothing. */
static inline uint8_t *put_OP(struct st_tw_thread *t, uint8_t *p, uint32_t stream, unsigned op,
                              int flag, uint64_t n, int64_t x, int ends)
{
    *p++ = ST_TW_HEADER(OP, (flag ? ST_EV_F1 : 0) | (ends ? ST_EV_F2 : 0));
    p = st_put_u(p, stream);
    *p++ = (uint8_t)op;
    switch (op) {
    case ST_OP_OPEN:
        p = st_put_s(p, x);
        break;
    case ST_OP_FSEEK:
        *p++ = (uint8_t)n;
        p = st_put_s(p, x);
        break;
    case ST_OP_OTHER:
        *p++ = (uint8_t)n;
        break;
    case ST_OP_SIZE: case ST_OP_FREAD: case ST_OP_GETC_RUN: case ST_OP_GETDELIM:
        p = st_put_u(p, n);
        break;
    }
    if (ends) {
        p = st_put_u(p, st_tw_delta(t, st_trace_clock_ns()));
        t->span--;
        t->call_ended = 1;
    }
    return p;
}

/* Stdio's writes were WRITE events before they named their call; the
 * library writes WRITE_AT now, and readers still decode WRITE from older
 * traces. Kept because every kind has an encoder (checked below). */
static inline uint8_t *put_WRITE(struct st_tw_thread *t, uint8_t *p, int64_t result)
{
    *p++ = ST_TW_HEADER(WRITE, 0);
    p = put_sys_time(t, p);
    p = st_put_s(p, result);
    if (result > 0 && t->expected >= 0)
        t->expected += result;
    return p;
}

/* Every kind of events.def has its encoder above. */
enum {
#define ST_TRACE_EVENT(kind, ...) ST_TW_ENCODES_##kind = sizeof(&put_##kind),
#include "seektrace/events.def"
#undef ST_TRACE_EVENT
};

#endif
