/* stdio_slots.c — the hooked jump-table slots.
 *
 * Two kinds. The syscall slots (read, write, seek, stat, close) each make
 * exactly one syscall in glibc, so counting their calls counts syscalls the
 * way strace does. The buffer slots (underflow, uflow, xsgetn, seekoff,
 * setbuf, sync, overflow) are every place where glibc can refill, move or
 * drop a read buffer; they run the delivered-bytes ledger (ledger.h).
 *
 * glibc calls slots with the stream locked (or, for the _unlocked calls,
 * with the program responsible), so per-stream state here needs no lock of
 * ours. Streams that are not on a file descriptor (string and memory
 * streams share some of these slots) pass straight through. */
#define _GNU_SOURCE 1
#include "stdio_slots.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "attribution.h"
#include "bufsize.h"
#include "cells.h"
#include "fdtable.h"
#include "flush_cause.h"
#include "ledger.h"
#include "own_fds.h"
#include "ops.h"
#include "record.h"
#include "staleness.h"
#include "streams.h"
#include "sync.h"
#include "storage.h"
#include "thread_state.h"
#include "trace_events.h"

int st_in_exit_cleanup;

typedef int (*overflow_fn)(FILE *, int);
typedef int (*flow_fn)(FILE *);
typedef size_t (*xsgetn_fn)(FILE *, void *, size_t);
typedef off64_t (*seekoff_fn)(FILE *, off64_t, int, int);
typedef FILE *(*setbuf_fn)(FILE *, char *, ssize_t);
typedef ssize_t (*read_fn)(FILE *, void *, ssize_t);
typedef ssize_t (*write_fn)(FILE *, const void *, ssize_t);
typedef off64_t (*seek_fn)(FILE *, off64_t, int);
typedef int (*stat_fn)(FILE *, void *);

/* glibc's implementations we replace, filled in by the installer. */
static void *orig_overflow, *orig_underflow, *orig_uflow, *orig_xsgetn, *orig_default_xsgetn,
    *orig_seekoff, *orig_setbuf, *orig_sync, *orig_read, *orig_write, *orig_seek, *orig_close,
    *orig_stat;

#define ORIG(name, type) ((type)orig_##name)

/* The stream a slot call concerns, or NULL to pass through untouched. */
static struct st_stream *tracked(FILE *fp)
{
    struct st_thread *t = &st_self;
    if (t->busy || fp->_fileno < 0)
        return NULL;
    if (t->slot_depth && fp == t->slot_fp)
        return t->slot_stream;
    t->busy++;
    struct st_stream *s = st_stream_current(fp);
    t->busy--;
    return s;
}

/* The outermost buffer slot claims fp for the slots and syscalls it runs
 * into (tracked); an inner one only counts the depth. Returns whether this
 * one is the outermost. */
static inline int slot_claim(struct st_stream *s, FILE *fp)
{
    struct st_thread *t = &st_self;
    if (t->slot_depth++ > 0)
        return 0;
    t->slot_fp = fp;
    t->slot_stream = s;
    return 1;
}

/* A refill outside any wrapped call, on a stream whose operations nothing
 * traces or follows: the slots and the read it runs into on its FILE take
 * the lean path, as inside a fast-path call, with the cell at the
 * refill's site. The record stays for the next refill (refill_again):
 * valid while staleness.h's word is the one the stream was last checked
 * current under (tracked), which also moves if tracing starts. */
static void lean_refill(struct st_thread *t, struct st_stream *s, FILE *fp)
{
    if (t->current_fp != fp || t->current_stream != s || s->carry || !st_stream_counts(s))
        return; /* st_stream_counts also made the cell the cache's entry */
    struct st_call_cost *cost = st_tally_cost(&t->cached_cell->counts, t->call);
    if (!cost)
        return;
    t->refill = (struct st_fast_call){.fp = fp,
                                      .staleness = t->current_staleness,
                                      .site = t->site,
                                      .stream = s,
                                      .cell = t->cached_cell,
                                      .cost = cost,
                                      .desc = st_fd_desc(st_fd_peek(fp->_fileno)),
                                      .call = t->call};
    t->lean = &t->refill;
}

/* A refill outside any wrapped call begins (in_call already ST_IN_SLOT), from
 * `site`: it is charged to the reader the program called there, as far as
 * a walk has told. */
static inline void refill_call_begin(struct st_thread *t, struct st_site *site,
                                     enum st_call fallback)
{
    t->call = st_site_via(site, fallback);
    st_site_begin_found(site);
}

/* The end of what a slot began (in_call ST_IN_SLOT). */
static inline void slot_call_end(struct st_thread *t)
{
    t->in_call = ST_IN_NONE;
    t->lean = NULL;
    st_site_end();
    st_trace_call_end();
}

/* Entering a buffer slot: book consumption at the outermost one. refill:
 * the slot is reached only once the get area is exhausted, and `frame`
 * is the hook's own. Returns whether this call is the outermost, which
 * must then mark on the way out. */
static int buffer_slot_enter(struct st_stream *s, FILE *fp, enum st_call fallback, int refill,
                             struct st_frame frame)
{
    struct st_thread *t = &st_self;
    if (!s || !slot_claim(s, fp))
        return 0;
    if (!t->in_call) {
        /* No interposed call is in progress: the slot tells what the program
         * did (a getc or fgets refill, glibc's exit cleanup, ...), and the
         * stack where. A refill reads, so its site is needed anyway: found
         * now, from the hook's frame up, it also names the reader the
         * program called there. */
        t->in_call = ST_IN_SLOT; /* set here, cleared on leaving */
        if (st_in_exit_cleanup) {
            t->call = ST_CALL_EXIT;
            st_site_begin(ST_SITE_NONE);
        } else if (refill) {
            refill_call_begin(t, st_site_above(frame), fallback);
            if (!st_ops_wanted(s))
                lean_refill(t, s, fp);
        } else {
            t->call = fallback;
            st_site_begin(ST_SITE_UNWIND);
        }
        st_trace_slot_begin(t->call);
    }
    if (st_ledger_at_mark(s, fp)) /* a wrapped call's slots, most of the time */
        return 1;
    uint64_t consumed = refill ? st_ledger_sync_refill(s, fp) : st_ledger_sync(s, fp);
    /* Outside any wrapped call, consumption since the mark was per-byte
     * reads (a wrapped call books its own when it begins and ends). */
    if (consumed && (t->in_call == ST_IN_SLOT || st_ops_reads_per_byte(t->call)) &&
        st_ops_wanted(s))
        st_ops_getc_run(s, consumed);
    return 1;
}

static void buffer_slot_leave(struct st_stream *s, FILE *fp, int outer, size_t handed_out)
{
    struct st_thread *t = &st_self;
    if (s)
        t->slot_depth--;
    if (!outer)
        return;
    st_ledger_mark(s, fp, handed_out);
    if (t->in_call == ST_IN_SLOT)
        slot_call_end(t);
}

/* A buffer slot that the outermost one runs into on the same FILE (a
 * refill's underflow inside uflow or xsgetn): the ledger and the counts are
 * the outer one's business, so it only keeps the depth. */
static inline int inner_slot(const FILE *fp)
{
    return st_self.slot_depth && fp == st_self.slot_fp;
}

/* The lean path. Inside a wrapper's fast-path call that records nothing
 * but counts (wrap_stdio.c), a hook on that call's own FILE already knows
 * the stream (checked current when the fast path was primed), the cell
 * every event books on and the site; and that nothing is traced or
 * followed. It books the same counts as the general path, without the
 * look-ups, the trace's checks and the errno saves that only guard calls
 * which can fail. NULL: take the general path. */
static inline const struct st_fast_call *lean_call(const FILE *fp)
{
    const struct st_fast_call *f = st_self.lean;
    return f && f->fp == fp && !st_self.busy ? f : NULL;
}

/* buffer_slot_enter and _leave, for a lean call: the call is counted
 * already, and consumption booked outside it has no ops to record. */
static inline int lean_slot_enter(struct st_stream *s, FILE *fp, int refill)
{
    if (!slot_claim(s, fp))
        return 0;
    if (!st_ledger_at_mark(s, fp))
        refill ? st_ledger_sync_refill(s, fp) : st_ledger_sync(s, fp);
    return 1;
}

static inline void lean_slot_leave(const struct st_fast_call *f, FILE *fp, int outer,
                                   size_t handed_out)
{
    st_self.slot_depth--;
    if (outer)
        st_ledger_mark_at(f->stream, fp, handed_out, st_ledger_reads(fp) ? f->site : NULL);
}

/* Each hook below is its lean path, and a call to the general one kept out
 * of line: the lean path then saves only the registers it uses. */
#define GENERAL __attribute__((noinline))

/* The buffer slots that need nothing but the ledger around them; refill:
 * the slot is reached only once the get area is exhausted. */
#define BUFFER_SLOT(name, ret, type, params, args, fallback, refill)                 \
    static GENERAL ret general_##name params                                         \
    {                                                                                \
        struct st_stream *s = tracked(fp);                                           \
        int outer = buffer_slot_enter(s, fp, fallback, refill, ST_FRAME_HERE);       \
        ret r = ORIG(name, type) args;                                               \
        int e = errno;                                                               \
        buffer_slot_leave(s, fp, outer, 0);                                          \
        errno = e;                                                                   \
        return r;                                                                    \
    }                                                                                \
    static ret hook_##name params                                                    \
    {                                                                                \
        if (inner_slot(fp)) {                                                        \
            st_self.slot_depth++;                                                    \
            ret r = ORIG(name, type) args;                                           \
            st_self.slot_depth--;                                                    \
            return r;                                                                \
        }                                                                            \
        const struct st_fast_call *f = lean_call(fp);                                \
        if (!f)                                                                      \
            return general_##name args;                                              \
        int outer = lean_slot_enter(f->stream, fp, refill);                          \
        ret r = ORIG(name, type) args;                                               \
        lean_slot_leave(f, fp, outer, 0);                                            \
        return r;                                                                    \
    }
BUFFER_SLOT(underflow, int, flow_fn, (FILE *fp), (fp), ST_CALL_OTHER, 1)
BUFFER_SLOT(sync, int, flow_fn, (FILE *fp), (fp), ST_CALL_FFLUSH, 0)
BUFFER_SLOT(overflow, int, overflow_fn, (FILE *fp, int ch), (fp, ch), ST_CALL_OTHER, 0)
#undef BUFFER_SLOT

static GENERAL int general_uflow(FILE *fp)
{
    struct st_stream *s = tracked(fp);
    int outer = buffer_slot_enter(s, fp, ST_CALL_GETC, 1, ST_FRAME_HERE);
    int r = ORIG(uflow, flow_fn)(fp);
    int e = errno;
    if (r == EOF && outer && st_self.in_call == ST_IN_SLOT)
        st_ops_getc_eof(s);
    buffer_slot_leave(s, fp, outer, r != EOF);
    errno = e;
    return r;
}

/* A getc or fgets refill outside any wrapped call, on the FILE the last
 * one took the lean path on (lean_refill), from the same site, with the
 * stream still current: it takes the lean path too, with what the general
 * path would find again. Begun as a refill when it returns the record;
 * NULL: take the general path, with nothing done. */
static inline const struct st_fast_call *refill_again(FILE *fp, struct st_frame frame)
{
    struct st_thread *t = &st_self;
    if (t->busy | t->in_call | t->slot_depth)
        return NULL;
    /* In a call from here on: a signal handler's calls pass through, so
     * the record cannot be rewritten while it is read. */
    t->in_call = ST_IN_SLOT;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    const struct st_fast_call *f = &t->refill;
    if (fp == f->fp && st_staleness_now() == f->staleness &&
        f->stream->fd == fp->_fileno && !st_in_exit_cleanup) {
        struct st_site *site = st_site_above(frame);
        if (site == f->site && st_site_via(site, ST_CALL_GETC) == f->call) {
            refill_call_begin(t, site, ST_CALL_GETC);
            t->lean = f;
            return f;
        }
    }
    t->in_call = ST_IN_NONE;
    return NULL;
}

static int hook_uflow(FILE *fp)
{
    const struct st_fast_call *f = lean_call(fp);
    const struct st_fast_call *again = f ? NULL : refill_again(fp, ST_FRAME_HERE);
    if (!f && !(f = again))
        return general_uflow(fp);
    int outer = lean_slot_enter(f->stream, fp, 1);
    int r = ORIG(uflow, flow_fn)(fp);
    lean_slot_leave(f, fp, outer, r != EOF);
    if (again)
        slot_call_end(&st_self);
    return r;
}

/* fread's slot. Files use _IO_file_xsgetn; popen streams glibc's generic
 * _IO_default_xsgetn: one body for both, told which to call on. */
static GENERAL size_t general_xsgetn(xsgetn_fn real, FILE *fp, void *buf, size_t n)
{
    struct st_stream *s = tracked(fp);
    int outer = buffer_slot_enter(s, fp, ST_CALL_FREAD, 0, ST_FRAME_HERE);
    struct st_carry carry = st_ledger_carry(s, fp);
    size_t r = real(fp, buf, n);
    int e = errno;
    if (outer)
        st_ledger_fread(s, n, r, carry);
    buffer_slot_leave(s, fp, outer, 0);
    errno = e;
    return r;
}

static inline size_t xsgetn(xsgetn_fn real, FILE *fp, void *buf, size_t n)
{
    const struct st_fast_call *f = lean_call(fp);
    if (!f)
        return general_xsgetn(real, fp, buf, n);
    int outer = lean_slot_enter(f->stream, fp, 0);
    size_t r = real(fp, buf, n);
    if (outer)
        st_ledger_deliver(&f->cell->counts, n, r);
    lean_slot_leave(f, fp, outer, 0);
    return r;
}

static size_t hook_xsgetn(FILE *fp, void *buf, size_t n)
{
    return xsgetn(ORIG(xsgetn, xsgetn_fn), fp, buf, n);
}

static size_t hook_default_xsgetn(FILE *fp, void *buf, size_t n)
{
    return xsgetn(ORIG(default_xsgetn, xsgetn_fn), fp, buf, n);
}

static int is_seek_call(enum st_call c)
{
    return c == ST_CALL_FSEEK || c == ST_CALL_FSETPOS || c == ST_CALL_REWIND;
}

/* The get area and the syscall counts as an fseek-family call found them,
 * to tell afterwards whether it kept the buffer. */
struct seek_before {
    char *base, *end;
    uint64_t reads, lseeks;
};

static inline struct seek_before seek_before(const FILE *fp)
{
    return (struct seek_before){fp->_IO_read_base, fp->_IO_read_end, st_self.reads,
                                st_self.lseeks};
}

/* Kept: buffered data before, the same window after, nothing read.
 * lean: a lean call's seek, which nothing traces. */
static inline __attribute__((always_inline)) void note_seek(struct st_tally *c,
                                                            const struct seek_before *b,
                                                            const FILE *fp, int lean)
{
    int kept = b->end > b->base && fp->_IO_read_base == b->base && fp->_IO_read_end == b->end &&
               st_self.reads == b->reads;
    uint64_t resync = kept ? st_self.lseeks - b->lseeks : 0;
    st_add(kept ? &c->seeks_in_buffer : &c->seeks_discarding_buffer, 1);
    if (kept)
        st_add(&c->resync_lseeks, resync);
    if (!lean)
        st_trace_seek(c, kept, resync);
}

static GENERAL off64_t general_seekoff(FILE *fp, off64_t off, int dir, int mode)
{
    struct st_stream *s = tracked(fp);
    int outer = buffer_slot_enter(s, fp, ST_CALL_FSEEK, 0, ST_FRAME_HERE);
    struct seek_before b = seek_before(fp);
    off64_t r = ORIG(seekoff, seekoff_fn)(fp, off, dir, mode);
    int e = errno;
    if (outer && is_seek_call(st_self.call)) {
        struct st_tally *c = st_stream_counts(s);
        if (c)
            note_seek(c, &b, fp, 0);
    }
    buffer_slot_leave(s, fp, outer, 0);
    errno = e;
    return r;
}

static off64_t hook_seekoff(FILE *fp, off64_t off, int dir, int mode)
{
    const struct st_fast_call *f = lean_call(fp);
    if (!f)
        return general_seekoff(fp, off, dir, mode);
    int outer = lean_slot_enter(f->stream, fp, 0);
    struct seek_before b = seek_before(fp);
    off64_t r = ORIG(seekoff, seekoff_fn)(fp, off, dir, mode);
    if (outer && is_seek_call(st_self.call))
        note_seek(&f->cell->counts, &b, fp, 1);
    lean_slot_leave(f, fp, outer, 0);
    return r;
}

static FILE *hook_setbuf(FILE *fp, char *buf, ssize_t n)
{
    struct st_stream *s = tracked(fp);
    int outer = buffer_slot_enter(s, fp, ST_CALL_SETVBUF, 0, ST_FRAME_HERE);
    FILE *r = ORIG(setbuf, setbuf_fn)(fp, buf, n);
    int e = errno;
    /* glibc's exit cleanup unbuffers every stream still open: neither the
     * program's choice nor the buffer its reads went through. */
    if (s && !st_in_exit_cleanup) {
        st_stream_observe_buffer(s, fp);
        st_trace_buffer(s);
    }
    buffer_slot_leave(s, fp, outer, 0);
    errno = e;
    return r;
}

/* The offset a stdio syscall starts at: our shadow of the fd's offset when
 * we know it (glibc's _offset is stale inside fseek), else glibc's. */
static int64_t stdio_offset(const struct st_desc *d, FILE *fp)
{
    int64_t off = st_desc_offset(d);
    return off >= 0 ? off : fp->_offset;
}

/* A read of s's that returned r at off: booked on c, charged to call; the
 * fd's offset and the stream's buffer followed. lean: a lean call's, which
 * nothing traces, booked inline. The caller is busy. */
static inline __attribute__((always_inline)) void book_read(struct st_stream *s, FILE *fp,
                                                            struct st_tally *c,
                                                            struct st_call_cost *cc,
                                                            enum st_call call,
                                                            struct st_desc *d, int64_t off,
                                                            ssize_t r, int lean)
{
    if (lean) {
        st_self.reads++;
        st_record_read_counts(s->file, c, cc, off, r);
    } else {
        st_record_read_at(s->file, c, cc, call, off, r);
    }
    if (r > 0)
        st_desc_set(d, off >= 0 ? off + r : -1);
    if (st_stream_observe_buffer(s, fp))
        st_trace_buffer(s);
}

static GENERAL ssize_t general_read(FILE *fp, void *buf, ssize_t n)
{
    struct st_stream *s = tracked(fp);
    struct st_desc *d = s ? st_fd_desc(st_fd_get(fp->_fileno)) : NULL;
    int64_t off = s ? stdio_offset(d, fp) : -1;
    st_trace_sys_begin();
    uint64_t mark = st_storage_mark();
    ssize_t r = ORIG(read, read_fn)(fp, buf, n);
    if (!s) {
        if (st_record_in_handler())
            st_record_handler_read(fp->_fileno, r);
        return r;
    }
    int err = errno;
    st_storage_charge(s->file, mark);
    st_self.busy++;
    s->carry = NULL; /* the buffer holds this file's bytes from here on */
    struct st_tally *c = st_stream_counts(s);
    enum st_call call = st_charge(ST_CALL_OTHER);
    book_read(s, fp, c, c ? st_tally_cost(c, call) : NULL, call, d, off, r, 0);
    st_self.busy--;
    errno = err;
    return r;
}

/* A lean call's read: the fd's description is the one the fast entry
 * kept (no fd has changed since it was made), and nothing is traced.
 * Nothing the booking does can change errno (the arena keeps it), so the
 * read's stays. */
static ssize_t hook_read(FILE *fp, void *buf, ssize_t n)
{
    const struct st_fast_call *f = lean_call(fp);
    if (!f)
        return general_read(fp, buf, n);
    struct st_thread *t = &st_self;
    struct st_stream *s = f->stream;
    int64_t off = stdio_offset(f->desc, fp);
    uint64_t mark = st_storage_mark();
    ssize_t r = ORIG(read, read_fn)(fp, buf, n);
    st_storage_charge(s->file, mark);
    t->busy++;
    book_read(s, fp, &f->cell->counts, f->cost, f->call, f->desc, off, r, 1);
    t->busy--;
    return r;
}

/* The cell a stdio write books on: the call's site when a wrapper's call
 * is in progress or the site is known already; outside any (a putc's
 * overflow, which the inline macro reaches once a buffer, or for each
 * byte when unbuffered), no site: unwinding for every such write would
 * cost the program. */
static struct st_tally *write_counts(struct st_stream *s)
{
    struct st_thread *t = &st_self;
    if (t->in_call == ST_IN_SLOT && t->site_pending)
        return st_cell_counts(s, &s->cells, NULL);
    return st_stream_counts(s);
}

static ssize_t hook_write(FILE *fp, const void *buf, ssize_t n)
{
    struct st_stream *s = tracked(fp);
    int64_t off = -1;
    if (s) {
        /* Booked before the syscall, while glibc's pointers still say what
         * it writes: the bytes handed over, and why it writes. */
        int err = errno;
        st_self.busy++;
        struct st_tally *c = write_counts(s);
        st_ledger_put_write(s, fp, c, buf, n > 0 ? (uint64_t)n : 0);
        int last = n > 0 ? ((const unsigned char *)buf)[n - 1] : -1;
        st_record_flush(c, st_flush_cause_of(st_charge(ST_CALL_OTHER), fp->_flags, last));
        if (last >= 0)
            s->last_written = last;
        off = st_desc_offset(st_fd_desc(st_fd_get(fp->_fileno)));
        st_self.busy--;
        errno = err;
    }
    st_trace_sys_begin();
    ssize_t r = ORIG(write, write_fn)(fp, buf, n);
    if (!s)
        return r;
    int err = errno;
    st_self.busy++; /* a handler's stdio must not meet the caches half updated */
    const struct st_fd *e = st_fd_get(fp->_fileno);
    /* Charged to the call that made glibc write (fflush, fseek, fclose,
     * fwrite...), at the offset it wrote at: what the write rules and the
     * write what-if read. */
    struct st_tally *c = write_counts(s);
    if (c) {
        enum st_call call = st_charge(ST_CALL_OTHER);
        st_record_write_at(s->file, c, st_tally_cost(c, call), call, off, r);
    }
    st_desc_wrote(st_fd_desc(e), r); /* O_APPEND ("a", "a+"): the end, unknown */
    /* A stream that only writes never refills: its buffer is first seen
     * here (else the report says "no buffer yet" of a stream that wrote). */
    if (st_stream_observe_buffer(s, fp))
        st_trace_buffer(s);
    st_self.busy--;
    errno = err;
    return r;
}

static GENERAL off64_t general_seek(FILE *fp, off64_t off, int whence)
{
    struct st_stream *s = tracked(fp);
    st_trace_sys_begin();
    off64_t r = ORIG(seek, seek_fn)(fp, off, whence);
    if (!s) {
        if (st_record_in_handler())
            st_record_handler_lseek(fp->_fileno);
        return r;
    }
    int err = errno;
    st_self.busy++; /* a handler's stdio must not meet the caches half updated */
    struct st_tally *c = st_stream_counts(s);
    st_record_lseek(c, st_charge(ST_CALL_OTHER));
    st_trace_lseek(c, st_charge(ST_CALL_OTHER), r);
    if (r >= 0)
        st_desc_set(st_fd_desc(st_fd_get(fp->_fileno)), r);
    st_self.busy--;
    errno = err;
    return r;
}

static off64_t hook_seek(FILE *fp, off64_t off, int whence)
{
    const struct st_fast_call *f = lean_call(fp);
    if (!f)
        return general_seek(fp, off, whence);
    off64_t r = ORIG(seek, seek_fn)(fp, off, whence);
    st_record_lseek_at(&f->cell->counts, f->cost);
    if (r >= 0)
        st_desc_set(f->desc, r);
    return r;
}

static int hook_stat(FILE *fp, void *st)
{
    struct st_stream *s = tracked(fp);
    st_trace_sys_begin();
    int r = ORIG(stat, stat_fn)(fp, st);
    if (s) {
        int err = errno;
        st_self.busy++; /* a handler's stdio must not meet the caches half updated */
        st_record_fstat(st_stream_counts(s), st_charge(ST_CALL_OTHER));
        /* glibc's own fstat tells whatif the file's size for free. */
        if (r == 0) {
            const struct stat64 *sb = st;
            st_ops_size(s, S_ISREG(sb->st_mode), (uint64_t)sb->st_size);
        }
        st_self.busy--;
        errno = err;
    }
    return r;
}

static int hook_close(FILE *fp)
{
    struct st_stream *s = tracked(fp);
    int fd = fp->_fileno;
    if (s && st_self.slot_depth == 0)
        st_ledger_sync(s, fp);
    st_lifecycle_fd_closing(fd);
    /* Forgotten before the kernel frees the number, which another thread's
     * open could take at once (wrap_posix.c's close says why); released by
     * the kernel even if close fails. */
    if (s)
        st_fd_closed(fd);
    int r = ORIG(close, flow_fn)(fp);
    if (s) {
        int err = errno;
        st_stream_closed(s);
        st_bufsize_release(s);
        st_trace_close(s);
        errno = err;
    }
    return r;
}

#define PATCH(slot, name, orig, hook) {ST_SLOT_##slot, name, &orig_##orig, (void *)hook}
const struct st_slot_patch st_slot_patches[] = {
    PATCH(OVERFLOW, NULL, overflow, hook_overflow),
    PATCH(UNDERFLOW, NULL, underflow, hook_underflow),
    PATCH(UFLOW, NULL, uflow, hook_uflow),
    PATCH(XSGETN, NULL, xsgetn, hook_xsgetn),
    PATCH(XSGETN, "_IO_default_xsgetn", default_xsgetn, hook_default_xsgetn),
    PATCH(SEEKOFF, NULL, seekoff, hook_seekoff),
    PATCH(SETBUF, NULL, setbuf, hook_setbuf),
    PATCH(SYNC, NULL, sync, hook_sync),
    PATCH(READ, NULL, read, hook_read),
    PATCH(WRITE, NULL, write, hook_write),
    PATCH(SEEK, NULL, seek, hook_seek),
    PATCH(CLOSE, NULL, close, hook_close),
    PATCH(STAT, NULL, stat, hook_stat),
};
#undef PATCH
const int st_slot_patch_count = sizeof st_slot_patches / sizeof st_slot_patches[0];
