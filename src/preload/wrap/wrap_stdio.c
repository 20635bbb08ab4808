/* wrap_stdio.c — the interposed stdio functions, generated from
 * wrap_stdio.def, wrap_printf.def and wrap_scanf*.def; the few whose bodies differ
 * (opening a stream, choosing its buffer) follow by hand. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "real.h"
#include "streams.h"
#include "sync.h"
#include "thread_state.h"
#include "attribution.h"
#include "bufsize.h"
#include "export.h"
#include "fdtable.h"
#include "fold.h"
#include "infer.h"
#include "ledger.h"
#include "ops.h"
#include "staleness.h"
#include "wrappers.h"
#include "trace_writer.h"


int st_call_begin(enum st_call call, FILE *fp, struct st_frame frame)
{
    struct st_thread *t = &st_self;
    if (t->busy || t->in_call)
        return 0;
    void *caller = (void *)frame.ra;
    t->in_call = ST_IN_WRAPPER;
    t->call = call;
    st_site_begin_frame(frame);
    if (fp) {
        st_stream_note_map_at(fp);
        t->busy++;
        uint64_t now = st_staleness_now();
        struct st_stream *s = st_stream_current(fp);
        struct st_tally *c = s ? st_stream_counts(s) : NULL;
        struct st_call_cost *cost = c ? st_tally_count_call(c, call) : NULL;
        /* The next call on fp from here can take the fast path: at once
         * when the return address alone decides the site, else once a
         * check up the stack from its frame finds this site again (the walk
         * that found it was keyed by that frame: st_site_begin_frame).
         * st_stream_counts has just made this (stream, site) the cell
         * cache's entry. */
        int decided = st_site_decided_by_caller(t->site, caller);
        if (cost && !s->carry && !st_capture_inferred && (decided || t->site)) {
            struct st_fast_call *f = &t->fast[ST_FAST_SLOT(caller)];
            *f = (struct st_fast_call){.fp = fp,
                                       .ra = caller,
                                       .staleness = now,
                                       .site = t->site,
                                       .stream = s,
                                       .cell = t->cached_cell,
                                       .cost = cost,
                                       .desc = st_fd_desc(st_fd_peek(fp->_fileno)),
                                       .call = call,
                                       .check_stack = !decided,
                                       .ops = st_ops_wanted(s),
                                       .way = (unsigned short)st_site_last_way()};
        }
        if (st_capture_inferred && s)
            st_infer_begin(s, fp);
        st_trace_call_begin(c, call);
        if (s && st_ops_wanted(s))
            st_ops_call_begins(s, fp);
        t->busy--;
    }
    return 1;
}

void st_call_end(int began)
{
    if (began) {
        st_self.lean = NULL;
        if (st_capture_inferred) {
            st_self.busy++;
            st_infer_end();
            st_self.busy--;
        }
        st_trace_call_end();
        st_self.in_call = ST_IN_NONE;
        st_site_end();
    }
}

/* A fast entry matched: the call is marked and counted with a few loads
 * and stores, and the cell cache primed for the hooks inside it. When the
 * stream's operations are neither traced nor followed (ops.h: nothing to
 * record), it also ends without touching errno (nothing on this path can
 * change it): ST_BEGAN_LEAN, and the hooks inside take their lean path
 * (t->lean). Otherwise ST_BEGAN_FAST_OPS: the trace and the ops are still
 * to be told (call_begin_rest), and the call ends like a slow-path one. */
static inline __attribute__((always_inline)) enum st_began
fast_call_matched(struct st_thread *t, struct st_fast_call *f, enum st_call call, void *caller)
{
    t->call = call;
    t->site = f->site;
    t->site_ra = caller;
    t->site_pending = 0;
    t->cached_cell = f->cell;
    st_add(&f->cost->calls, 1);
    if (__builtin_expect(f->ops, 0) && !st_ops_wanted(f->stream))
        f->ops = 0; /* its what-if has stopped (thread_state.h) */
    if (__builtin_expect(!f->ops, 1)) {
        t->lean = f;
        return ST_BEGAN_LEAN;
    }
    /* Followed but not traced: the ops are told around the call, and the
     * hooks inside record nothing of their own unless the call reads a
     * byte at a time (buffer_slot_enter): lean too. */
    if (!st_trace_on && !st_ops_reads_per_byte(call))
        t->lean = f;
    return ST_BEGAN_FAST_OPS;
}

/* The fast path: this thread's last call of this kind on the same stream
 * from the same return address found its site and cell (st_call_begin),
 * and where the cell counts this kind (tally.h); the stream is still
 * bound and no fd has changed (staleness.h; entries are made with exact
 * capture only, and the switch to inferred makes older ones stale). Then
 * fast_call_matched's answer, or, where the return address alone does not
 * decide the site, ST_BEGAN_CHECK_STACK: in the call, the stack above the
 * wrapper's frame still to compare with the one that found the site
 * (call_begin_rest: out of line, so that this path keeps no registers of
 * its own across the real call). Else ST_BEGAN_NOT, with nothing done. */
static inline __attribute__((always_inline)) enum st_began
call_begin_fast(enum st_call call, FILE *fp, struct st_frame frame)
{
    void *caller = (void *)frame.ra;
    struct st_thread *t = &st_self;
    if (__builtin_expect(t->busy | t->in_call, 0))
        return ST_BEGAN_NOT;
    /* In a call from here on: a signal handler's calls pass through, so
     * the entry cannot be rewritten while it is read. (Entries are made for
     * a FILE*, never NULL, so an empty one matches no call.) */
    t->in_call = ST_IN_WRAPPER;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    struct st_fast_call *f = &t->fast[ST_FAST_SLOT(caller)];
    if (__builtin_expect(fp == f->fp && caller == f->ra && call == f->call &&
                             st_staleness_now() == f->staleness,
                         1))
        return __builtin_expect(f->check_stack, 0) ? ST_BEGAN_CHECK_STACK
                                                    : fast_call_matched(t, f, call, caller);
    t->in_call = ST_IN_NONE;
    return ST_BEGAN_NOT;
}

/* What the wrapper's call_begin_fast left to do. ST_BEGAN_CHECK_STACK:
 * the stack check (a few return-address slots compared, starting where
 * the unwind cache kept the entry's walk: sites.h), then the rest of the
 * fast path, or, when the stack differs, the slow one. ST_BEGAN_NOT:
 * st_call_begin (whose 1 is ST_BEGAN_SLOW). ST_BEGAN_FAST_OPS, a
 * fast-path call whose stream's operations are traced or followed
 * (ops.h), is told to them with the cell already known, and ends like a
 * slow-path call. */
static enum st_began call_begin_rest(enum st_began began, enum st_call call, FILE *fp,
                                     struct st_frame frame)
{
    struct st_thread *t = &st_self;
    struct st_fast_call *f = &t->fast[ST_FAST_SLOT(frame.ra)];
    if (began == ST_BEGAN_CHECK_STACK) {
        if (st_site_above_from(frame, f->way) == f->site) {
            began = fast_call_matched(t, f, call, (void *)frame.ra);
        } else {
            t->in_call = ST_IN_NONE;
            began = ST_BEGAN_NOT;
        }
    }
    if (began == ST_BEGAN_NOT)
        return st_call_begin(call, fp, frame);
    if (began != ST_BEGAN_FAST_OPS)
        return began;
    t->busy++;
    st_trace_call_begin(&f->cell->counts, call);
    st_ops_call_begins(f->stream, fp);
    t->busy--;
    return ST_BEGAN_FAST_OPS;
}

static inline __attribute__((always_inline)) void call_end_fast(void)
{
    st_self.lean = NULL;
    st_self.in_call = ST_IN_NONE;
    st_site_end();
}

/* Whether calls of this kind put bytes on their stream (a constant in
 * each wrapper, so the others compile to nothing). */
static inline int puts_bytes(enum st_call call)
{
    return call == ST_CALL_FWRITE || call == ST_CALL_FPUTS || call == ST_CALL_FPRINTF ||
           call == ST_CALL_PUTS;
}

/* A write call on fp has returned, on the lean path: what it put in the
 * buffer is booked on its cell (ledger.h; the write slot booked what glibc
 * wrote meanwhile). */
static inline __attribute__((always_inline)) void wrote_lean(FILE *fp)
{
    const struct st_fast_call *f = st_self.lean;
    st_self.busy++;
    st_ledger_put_sync_unlocked(f->stream, fp, &f->cell->counts);
    st_self.busy--;
}

/* The same for a call that began on any other path. */
static void wrote(FILE *fp)
{
    st_self.busy++;
    struct st_stream *s = fp ? st_stream_current(fp) : NULL;
    struct st_tally *c = s ? st_stream_counts(s) : NULL;
    if (c)
        st_ledger_put_sync_unlocked(s, fp, c);
    st_self.busy--;
}

/* Each wrapper is its fast path, and a call to the rest kept out of line
 * (general_<name>, told what the fast path found): the fast path then
 * keeps no registers of its own across the real call. */
#define ST_UNPAREN(...) __VA_ARGS__
#define STDIO(call, ret, name, params, args, stream, op)                             \
    static __attribute__((noinline)) ret general_##name(enum st_began began,         \
                                                        struct st_frame frame,       \
                                                        ST_UNPAREN params)           \
    {                                                                                \
        began = call_begin_rest(began, ST_CALL_##call, stream, frame);               \
        ret r = ST_REAL(name) args;                                                 \
        if (began == ST_BEGAN_LEAN) { /* it ends as the fast path does */            \
            if (puts_bytes(ST_CALL_##call))                                          \
                wrote_lean(stream);                                                  \
            call_end_fast();                                                         \
            return r;                                                                \
        }                                                                            \
        int e = errno;                                                               \
        if (began && puts_bytes(ST_CALL_##call))                                     \
            wrote(stream);                                                           \
        if (began)                                                                   \
            op;                                                                      \
        st_stream_note_map_at(stream);                                               \
        st_call_end(began);                                                          \
        errno = e;                                                                   \
        return r;                                                                    \
    }                                                                                \
    ST_EXPORT(ret, name, params)                                                     \
    {                                                                                \
        st_ensure_init();                                                            \
        struct st_frame frame = ST_FRAME_HERE;                                       \
        enum st_began began = call_begin_fast(ST_CALL_##call, stream, frame);        \
        if (__builtin_expect(began != ST_BEGAN_LEAN, 0))                             \
            return general_##name(began, frame, ST_UNPAREN args);                    \
        ret r = ST_REAL(name) args;                                                 \
        if (puts_bytes(ST_CALL_##call))                                              \
            wrote_lean(stream);                                                      \
        call_end_fast();                                                             \
        return r;                                                                    \
    }
#define STDIO_VOID(call, name, params, args, stream, op)                             \
    static __attribute__((noinline)) void general_##name(enum st_began began,        \
                                                         struct st_frame frame,      \
                                                         ST_UNPAREN params)          \
    {                                                                                \
        began = call_begin_rest(began, ST_CALL_##call, stream, frame);               \
        ST_REAL(name) args;                                                         \
        if (began == ST_BEGAN_LEAN) { /* it ends as the fast path does */            \
            call_end_fast();                                                         \
            return;                                                                  \
        }                                                                            \
        int e = errno;                                                               \
        if (began)                                                                   \
            op;                                                                      \
        st_stream_note_map_at(stream);                                               \
        st_call_end(began);                                                          \
        errno = e;                                                                   \
    }                                                                                \
    ST_EXPORT(void, name, params)                                                    \
    {                                                                                \
        st_ensure_init();                                                            \
        struct st_frame frame = ST_FRAME_HERE;                                       \
        enum st_began began = call_begin_fast(ST_CALL_##call, stream, frame);        \
        if (__builtin_expect(began != ST_BEGAN_LEAN, 0)) {                           \
            general_##name(began, frame, ST_UNPAREN args);                           \
            return;                                                                  \
        }                                                                            \
        ST_REAL(name) args;                                                         \
        call_end_fast();                                                             \
    }
#include "wrap_stdio.def"
#undef STDIO
#undef STDIO_VOID

/* The variadic printf family: the v-function's wrapper, entered here so
 * that the program's return address is this frame's. */
#define PRINTF(name, vname, params, vargs, stream)                                   \
    ST_EXPORT(int, name, params)                                                     \
    {                                                                                \
        st_ensure_init();                                                            \
        struct st_frame frame = ST_FRAME_HERE;                                       \
        va_list ap;                                                                  \
        va_start(ap, fmt);                                                           \
        int r;                                                                       \
        enum st_began began = call_begin_fast(ST_CALL_FPRINTF, stream, frame);       \
        if (__builtin_expect(began != ST_BEGAN_LEAN, 0)) {                           \
            r = general_##vname(began, frame, ST_UNPAREN vargs);                     \
        } else {                                                                     \
            r = ST_REAL(vname) vargs;                                               \
            wrote_lean(stream);                                                      \
            call_end_fast();                                                         \
        }                                                                            \
        va_end(ap);                                                                  \
        return r;                                                                    \
    }
#include "wrap_printf.def"
#undef PRINTF
#undef ST_UNPAREN

#define SCANF(name, vname, param, stream)                                            \
    ST_EXPORT(int, name, (param, const char *fmt, ...))                              \
    {                                                                                \
        va_list ap;                                                                  \
        va_start(ap, fmt);                                                           \
        int r = st_wrap_##vname(stream, fmt, ap);                                    \
        va_end(ap);                                                                  \
        return r;                                                                    \
    }
#include "wrap_scanf.def"
#undef SCANF
#define SCANF_STDIN(name, vname)                                                     \
    ST_EXPORT(int, name, (const char *fmt, ...))                                     \
    {                                                                                \
        va_list ap;                                                                  \
        va_start(ap, fmt);                                                           \
        int r = st_wrap_##vname(fmt, ap);                                            \
        va_end(ap);                                                                  \
        return r;                                                                    \
    }
#include "wrap_scanf_stdin.def"
#undef SCANF_STDIN

/* Opening: the new stream is bound to a fresh record, of the file named
 * path; for fdopen and freopen(NULL, ...), path NULL, to what we know of
 * its fd. */
#define OPEN_STREAM(name, params, args, mode, path)                                  \
    ST_EXPORT(FILE *, name, params)                                                  \
    {                                                                                \
        st_ensure_init();                                                            \
        int began = st_call_begin(ST_CALL_FOPEN, NULL, ST_FRAME_HERE);               \
        FILE *fp = ST_REAL(name) args;                                              \
        int e = errno;                                                               \
        if (began && fp) {                                                           \
            st_self.busy++;                                                          \
            struct st_stream *s = st_stream_opened(fp, path);                        \
            st_bufsize_apply(fp, s);                                                 \
            st_op_open(s, mode, path != NULL);                                       \
            struct st_tally *c = s ? st_stream_counts(s) : NULL;                     \
            if (c)                                                                   \
                st_tally_count_call(c, ST_CALL_FOPEN);                               \
            st_trace_count(c, ST_CALL_FOPEN);                                        \
            st_self.busy--;                                                          \
        }                                                                            \
        st_call_end(began);                                                          \
        errno = e;                                                                   \
        return fp;                                                                   \
    }
OPEN_STREAM(fopen, (const char *p, const char *m), (p, m), m, p)
OPEN_STREAM(fopen64, (const char *p, const char *m), (p, m), m, p)
OPEN_STREAM(fdopen, (int fd, const char *m), (fd, m), m, NULL)
OPEN_STREAM(freopen, (const char *p, const char *m, FILE *f), (p, m, f), m, p)
OPEN_STREAM(freopen64, (const char *p, const char *m, FILE *f), (p, m, f), m, p)
#undef OPEN_STREAM

/* Buffer choice: remember what the program asked for, because glibc's
 * answer to setvbuf(fp, NULL, _IOFBF, size) is to ignore size. */
static void note_buffer_request(FILE *fp, char *buf, int mode, size_t size)
{
    struct st_stream *s = st_stream_of(fp);
    if (!s)
        return;
    if (buf == NULL && mode == _IOFBF && size > 0) {
        s->origin = ST_BUF_SIZE_IGNORED;
        s->requested_buffer_size = size;
    } else if (buf != NULL && mode != _IONBF) {
        s->origin = ST_BUF_USER;
        s->requested_buffer_size = size;
    }
    st_trace_buffer(s);
}

ST_EXPORT(int, setvbuf, (FILE *fp, char *buf, int mode, size_t size))
{
    st_ensure_init();
    int began = st_call_begin(ST_CALL_SETVBUF, fp, ST_FRAME_HERE);
    if (st_bufsize_overrides(mode)) {
        st_call_end(began);
        return 0;
    }
    int r = ST_REAL(setvbuf)(fp, buf, mode, size);
    int e = errno;
    if (began && r == 0) {
        st_self.busy++;
        note_buffer_request(fp, buf, mode, size);
        st_self.busy--;
    }
    st_call_end(began);
    errno = e;
    return r;
}

#define SET_BUFFER(name, params, args, buf, mode, size)                              \
    ST_EXPORT(void, name, params)                                                    \
    {                                                                                \
        st_ensure_init();                                                            \
        int began = st_call_begin(ST_CALL_SETVBUF, fp, ST_FRAME_HERE);               \
        int forced = st_bufsize_overrides(mode);                                     \
        if (!forced)                                                                 \
            ST_REAL(name) args;                                                     \
        int e = errno;                                                               \
        if (began && !forced) {                                                      \
            st_self.busy++;                                                          \
            note_buffer_request(fp, buf, mode, size);                                \
            st_self.busy--;                                                          \
        }                                                                            \
        st_call_end(began);                                                          \
        errno = e;                                                                   \
    }
SET_BUFFER(setbuf, (FILE *fp, char *b), (fp, b), b, b ? _IOFBF : _IONBF, BUFSIZ)
SET_BUFFER(setbuffer, (FILE *fp, char *b, size_t n), (fp, b, n), b, b ? _IOFBF : _IONBF, n)
SET_BUFFER(setlinebuf, (FILE *fp), (fp), NULL, _IOLBF, 0)
#undef SET_BUFFER

/* ungetc moves the read pointer back where no hook sees it. Book what was
 * consumed before it and resume counting after it, under the stream's lock
 * (recursive, as ungetc takes it too), so that a byte pushed back counts
 * again when the program reads it again. */
ST_EXPORT(int, ungetc, (int ch, FILE *fp))
{
    st_ensure_init();
    int began = st_call_begin(ST_CALL_UNGETC, fp, ST_FRAME_HERE);
    struct st_stream *s = began && !st_capture_inferred && fp ? st_stream_of(fp) : NULL;
    int matches = 0;
    if (s) {
        flockfile(fp);
        st_ledger_sync(s, fp);
        matches = st_op_ungetc_matches(fp, ch);
    }
    int r = ST_REAL(ungetc)(ch, fp);
    int e = errno;
    if (s) {
        st_ledger_mark(s, fp, 0);
        funlockfile(fp);
        st_op_ungetc(fp, ch, r, matches);
    }
    st_call_end(began);
    errno = e;
    return r;
}

/* Closing. Files close through the jump-table slot we hook (stdio_slots.c);
 * popen's pipes through one of glibc's own. So book what was consumed and
 * unbind the stream here too, or a report at exit would read a freed FILE.
 * The record is retired here, after the last use of s, not in the slot:
 * once retired it may become another thread's next stream. */
#define CLOSE_STREAM(name)                                                           \
    ST_EXPORT(int, name, (FILE *fp))                                                 \
    {                                                                                \
        st_ensure_init();                                                            \
        int began = st_call_begin(ST_CALL_FCLOSE, fp, ST_FRAME_HERE);                \
        struct st_stream *s = began && fp ? st_stream_of(fp) : NULL;                 \
        if (s && !st_capture_inferred) {                                             \
            flockfile(fp);                                                           \
            st_ledger_sync(s, fp);                                                   \
            funlockfile(fp);                                                         \
        }                                                                            \
        int fd = s ? s->fd : -1;                                                     \
        int r = ST_REAL(name)(fp);                                                  \
        int e = errno;                                                               \
        if (s && !s->closed) {                                                       \
            st_stream_closed(s);                                                     \
            st_fd_closed(fd);                                                        \
        }                                                                            \
        if (s)                                                                       \
            st_stream_retire(s);                                                     \
        if (began) /* not inside seektrace's bookkeeping (a signal handler's) */        \
            st_fold_offer_closed();                                                   \
        st_call_end(began);                                                          \
        errno = e;                                                                   \
        return r;                                                                    \
    }
CLOSE_STREAM(fclose)
CLOSE_STREAM(pclose)
#undef CLOSE_STREAM
