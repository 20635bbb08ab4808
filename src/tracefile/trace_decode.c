/* trace_decode.c — see trace_decode.h. One decoder per event kind, named
 * after its events.def line (decode_READ, ...); the table below is that
 * file expanded, so a kind added there without a decoder does not compile.
 * Each decoder reads its fields in the order events.def gives them. */
#include "trace_decode.h"

#include <string.h>

#include "flush_cause.h"
#include "trace_codec.h"

struct dec {
    struct st_trace_decoder *s;
    struct st_trace_event *ev;
    const uint8_t *p, *end;
    unsigned hdr;
    const char *why;
};

static int bad(struct dec *d, const char *why)
{
    d->why = why;
    return -1;
}

static int get_u(struct dec *d, uint64_t *v)
{
    if (st_get_u(&d->p, d->end, v) != 0)
        return bad(d, "a number runs past the end of the chunk's data");
    return 0;
}

static int get_s(struct dec *d, int64_t *v)
{
    uint64_t u;
    if (get_u(d, &u) != 0)
        return -1;
    *v = st_unzigzag(u);
    return 0;
}

static int get_byte(struct dec *d, unsigned *v)
{
    if (d->p >= d->end)
        return bad(d, "the event runs past the end of the chunk's data");
    *v = *d->p++;
    return 0;
}

static int get_id(struct dec *d, uint32_t *id)
{
    uint64_t v;
    if (get_u(d, &v) != 0)
        return -1;
    if (v > UINT32_MAX)
        return bad(d, "an id out of range");
    *id = (uint32_t)v;
    return 0;
}

/* A dt: the event's start time. */
static int get_time(struct dec *d)
{
    uint64_t dt;
    if (get_u(d, &dt) != 0)
        return -1;
    d->s->time += dt;
    d->ev->time_ns = d->s->time;
    return 0;
}

/* u len, bytes: the event's string (why: what runs past the end). */
static int get_text(struct dec *d, const char *why)
{
    uint64_t v;
    if (get_u(d, &v) != 0)
        return -1;
    if (v > (uint64_t)(d->end - d->p))
        return bad(d, why);
    d->ev->str = (const char *)d->p;
    d->ev->str_len = (size_t)v;
    d->p += v;
    return 0;
}

/* b call, which becomes the chunk's `call`. */
static int get_call_byte(struct dec *d)
{
    unsigned cb;
    if (get_byte(d, &cb) != 0)
        return -1;
    if (cb >= d->s->info->ncalls)
        return bad(d, "a call kind outside the trace's call table");
    d->ev->call = d->s->call = d->s->info->call_map[cb];
    return 0;
}

/* A call byte, or "same as before" when the header has same_flag. */
static int get_call(struct dec *d, unsigned same_flag)
{
    if (!(d->hdr & same_flag))
        return get_call_byte(d);
    if (d->s->call < 0)
        return bad(d, "\"same call\" with no call before it in the chunk");
    d->ev->call = d->s->call;
    return 0;
}

static int add_ok(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* A stream's buffer, as STREAM_DEF and BUF carry it. */
static int get_buffer(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    unsigned b;
    if (get_u(d, &ev->buffer_size) != 0 || get_u(d, &ev->requested_buffer_size) != 0 ||
        get_byte(d, &b) != 0)
        return -1;
    ev->buf_mode = b & 15;
    ev->buf_origin = b >> 4;
    if (ev->buf_mode > ST_TRACE_BUF_NONE || ev->buf_origin > ST_TRACE_ORIGIN_SIZE_IGNORED)
        return bad(d, "an unknown buffer mode");
    return get_text(d, "a stream's caveat runs past the end of the chunk's data");
}

static int decode_TARGET(struct dec *d)
{
    if (get_id(d, &d->s->target) != 0)
        return -1;
    d->ev->target = d->s->target;
    return 0;
}

static int decode_FILE_DEF(struct dec *d)
{
    if (get_id(d, &d->ev->id) != 0)
        return -1;
    return get_text(d, "a file name runs past the end of the chunk's data");
}

static int decode_STREAM_DEF(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    int64_t fd;
    if (get_id(d, &ev->id) != 0 || get_id(d, &ev->file) != 0 || get_s(d, &fd) != 0)
        return -1;
    if (fd < -1 || fd > INT32_MAX)
        return bad(d, "a file descriptor out of range");
    ev->fd = (int)fd;
    if (get_u(d, &ev->ordinal) != 0)
        return -1;
    return get_buffer(d);
}

static int decode_BUF(struct dec *d)
{
    if (get_id(d, &d->ev->id) != 0)
        return -1;
    return get_buffer(d);
}

static int decode_CALL(struct dec *d)
{
    if (d->hdr & ST_EV_F2) {
        if (d->s->info->version_major < 3)
            return bad(d, "a call naming its cell, which version 3 introduced");
        if (decode_TARGET(d) != 0)
            return -1;
    }
    if (get_time(d) != 0 || get_call_byte(d) != 0)
        return -1;
    d->ev->counted = (d->hdr & ST_EV_F1) != 0;
    return 0;
}

static int decode_END(struct dec *d)
{
    return get_time(d);
}

static int decode_CLOSE(struct dec *d)
{
    if (get_id(d, &d->ev->id) != 0)
        return -1;
    return get_time(d);
}

static int decode_COUNT(struct dec *d)
{
    return get_call_byte(d);
}

/* The start of every syscall event: the call it is charged to, when, how
 * long. */
static int get_syscall(struct dec *d)
{
    if (get_call(d, ST_EV_F1) != 0 || get_time(d) != 0)
        return -1;
    return get_u(d, &d->ev->dur_ns);
}

static int decode_READ(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    struct st_trace_decoder *s = d->s;
    if (get_syscall(d) != 0)
        return -1;
    int64_t off = s->expected, res = s->last_size;
    if (!(d->hdr & ST_EV_F2) && get_s(d, &off) != 0)
        return -1;
    if (!(d->hdr & ST_EV_F3) && get_s(d, &res) != 0)
        return -1;
    if (off < -1)
        return bad(d, "a negative file offset");
    ev->offset = off;
    ev->result = res;
    s->last_size = res;
    if (off >= 0 && !add_ok(off, res > 0 ? res : 0, &s->expected))
        return bad(d, "a file offset beyond 2^63");
    return 0;
}

static int decode_READ_REREAD(struct dec *d)
{
    if (decode_READ(d) != 0)
        return -1;
    d->ev->reread = d->ev->result > 0 ? (uint64_t)d->ev->result : 0;
    return 0;
}

static int decode_REREAD(struct dec *d)
{
    return get_u(d, &d->ev->reread);
}

static int decode_LSEEK(struct dec *d)
{
    struct st_trace_decoder *s = d->s;
    if (get_syscall(d) != 0)
        return -1;
    int64_t res;
    if (d->hdr & ST_EV_F3) {
        res = -1;
    } else if (d->hdr & ST_EV_F2) {
        res = s->expected;
    } else {
        int64_t delta;
        if (get_s(d, &delta) != 0)
            return -1;
        if (!add_ok(delta, s->expected > 0 ? s->expected : 0, &res) || res < 0)
            return bad(d, "an lseek result out of range");
    }
    d->ev->result = res;
    if (res >= 0)
        s->expected = res;
    if ((d->hdr & ST_EV_F2) && (d->hdr & ST_EV_F3))
        return bad(d, "flags this kind of event does not have");
    return 0;
}

static int decode_FSTAT(struct dec *d)
{
    return get_syscall(d);
}

static int decode_WRITE(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    if (get_time(d) != 0 || get_u(d, &ev->dur_ns) != 0 || get_s(d, &ev->result) != 0)
        return -1;
    if (ev->result > 0 && d->s->expected >= 0 &&
        !add_ok(d->s->expected, ev->result, &d->s->expected))
        return bad(d, "a file offset beyond 2^63");
    return 0;
}

/* A kind a trace of an older major version cannot hold: corrupt there. */
static int since_version(struct dec *d, unsigned major, const char *why)
{
    return d->s->info->version_major < major ? bad(d, why) : 0;
}

static int decode_WRITE_AT(struct dec *d)
{
    if (since_version(d, 4, "a write naming its call, which version 4 introduced") != 0)
        return -1;
    return decode_READ(d); /* the same fields, the same decoding state */
}

static int decode_WRITTEN(struct dec *d)
{
    if (since_version(d, 4, "bytes handed over to be written, which version 4 introduced") != 0)
        return -1;
    return get_u(d, &d->ev->n);
}

static int decode_DELIVER(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    if (get_u(d, &ev->requested) != 0)
        return -1;
    if (!(d->hdr & ST_EV_F1))
        return get_u(d, &ev->delivered);
    ev->delivered = ev->requested;
    return 0;
}

static int decode_SEEK(struct dec *d)
{
    d->ev->kept = (d->hdr & ST_EV_F1) != 0;
    return d->ev->kept ? get_u(d, &d->ev->resync) : 0;
}

static int decode_FLUSH(struct dec *d)
{
    unsigned cause;
    if (since_version(d, 4, "a flush, which version 4 introduced") != 0)
        return -1;
    if (get_byte(d, &cause) != 0)
        return -1;
    if (cause >= ST_FLUSH_COUNT)
        return bad(d, "an unknown flush cause");
    d->ev->cause = (int)cause;
    return 0;
}

static int decode_SITE_DEF(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    uint64_t n;
    if (get_id(d, &ev->id) != 0 || get_u(d, &n) != 0)
        return -1;
    if (n == 0 || n > 16)
        return bad(d, "a call site with no frames or more than 16");
    ev->nframes = (size_t)n;
    for (size_t i = 0; i < ev->nframes; i++)
        if (get_u(d, &ev->frames[i]) != 0)
            return -1;
    return 0;
}

static int decode_MODULE(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    if (get_u(d, &ev->start) != 0 || get_u(d, &ev->length) != 0 ||
        get_u(d, &ev->module_offset) != 0)
        return -1;
    return get_text(d, "a module path runs past the end of the chunk's data");
}

static int decode_MARK(struct dec *d)
{
    if (get_time(d) != 0)
        return -1;
    return get_text(d, "a mark's label runs past the end of the chunk's data");
}

static int decode_LOST(struct dec *d)
{
    return get_u(d, &d->ev->n);
}

static int decode_CELL_DEF(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    if (get_id(d, &ev->id) != 0 || get_id(d, &ev->owner) != 0 || get_id(d, &ev->site) != 0)
        return -1;
    d->s->target = ev->id;
    ev->target = ev->id;
    return 0;
}

/* An OP's own fields (trace_format.h, "Stream operations"). */
static int get_op_fields(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    uint64_t v;
    switch (ev->op) {
    case ST_OP_OPEN:
        return get_s(d, &ev->offset);
    case ST_OP_SIZE:
    case ST_OP_FREAD:
    case ST_OP_GETC_RUN:
    case ST_OP_GETDELIM:
        return get_u(d, &ev->n);
    case ST_OP_FGETS:
        if (get_u(d, &ev->n) != 0 || get_u(d, &v) != 0)
            return -1;
        ev->result = v > INT64_MAX ? INT64_MAX : (int64_t)v;
        return 0;
    case ST_OP_FSEEK:
        if (get_byte(d, &ev->whence) != 0)
            return -1;
        return get_s(d, &ev->offset);
    case ST_OP_OTHER:
        return get_call(d, 0);
    case ST_OP_GETC_EOF: case ST_OP_UNGETC: case ST_OP_FTELL: case ST_OP_REWIND:
    case ST_OP_FFLUSH: case ST_OP_CLEARERR: case ST_OP_EXIT:
        return 0;
    default:
        return bad(d, "an unknown stream operation");
    }
}

static int decode_OP(struct dec *d)
{
    struct st_trace_event *ev = d->ev;
    if (get_id(d, &ev->id) != 0 || get_byte(d, &ev->op) != 0)
        return -1;
    ev->op_flag = (d->hdr & ST_EV_F1) != 0;
    if (get_op_fields(d) != 0)
        return -1;
    if (d->hdr & ST_EV_F2) {
        if (d->s->info->version_major < 3)
            return bad(d, "an operation that ends its call, which version 3 introduced");
        if (get_u(d, &d->s->end_dt) != 0)
            return -1;
        d->s->end_pending = 1;
    }
    return 0;
}

struct kind_row {
    struct st_trace_kind_info info;
    int (*decode)(struct dec *d);
};

static const struct kind_row kinds[32] = {
#define ST_TRACE_EVENT(kind, value, name, flags, timed, dur, bytes, role, payload)         \
    [value] = {{name, flags, timed, dur, bytes, role}, decode_##kind},
#include "seektrace/events.def"
#undef ST_TRACE_EVENT
};

const struct st_trace_kind_info *st_trace_kind(unsigned kind)
{
    return kind < 32 && kinds[kind].decode ? &kinds[kind].info : NULL;
}

const char *st_trace_kind_name(unsigned kind)
{
    const struct st_trace_kind_info *k = st_trace_kind(kind);
    return k ? k->name : "?";
}

void st_trace_decoder_start(struct st_trace_decoder *d, const struct st_trace_info *info,
                            uint64_t base_ns)
{
    d->info = info;
    d->time = base_ns;
    d->target = 0;
    d->call = -1;
    d->expected = -1;
    d->last_size = 0;
}

int st_trace_decode(struct st_trace_decoder *s, const uint8_t **p, const uint8_t *end,
                    struct st_trace_event *ev, const char **why)
{
    struct dec d = {s, ev, *p, end, 0, "?"};
    d.hdr = *d.p++;
    unsigned kind = ST_EV_KIND(d.hdr);
    const struct kind_row *row = &kinds[kind];
    ev->kind = kind;
    ev->time_ns = s->time;
    ev->target = s->target;
    if (!row->decode) {
        *why = "an unknown event kind";
        return -1;
    }
    if (row->decode(&d) != 0) {
        *why = d.why;
        return -1;
    }
    if (d.hdr & 0xe0 & ~row->info.flags) {
        *why = "flags this kind of event does not have";
        return -1;
    }
    if (s->end_pending)
        s->end_offset = ev->file_offset;
    *p = d.p;
    return 0;
}
