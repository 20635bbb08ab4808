/* whatif_writes.c — see whatif_writes.h.
 *
 * One pass over a trace collects each stream's writing steps (what each
 * call handed over, and the flushes) with its recorded buffer; the steps
 * are then replayed through one model per configuration. */
#define _GNU_SOURCE 1
#include "whatif_writes.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "trace_objects.h"
#include "write_model.h"

/* A default buffer the trace never saw: glibc's on ext4 and tmpfs. */
#define UNSEEN_BUFFER 4096
/* Threads whose open call a trace follows at once. */
#define MAX_THREADS 64

enum step_kind { STEP_FLUSH = 16, STEP_REPOSITION };

struct step {
    unsigned kind; /* enum st_wm_put, or a step_kind */
    int ends_line; /* the call's last byte was a newline */
    uint64_t n;    /* bytes; a REPOSITION's offset sought (SEEK_SET), or UNKNOWN_OFFSET */
};
#define UNKNOWN_OFFSET UINT64_MAX

struct wstream {
    uint32_t file;
    uint64_t bufsize;
    unsigned mode;
    int frozen;       /* closed or exited: later buffer events are glibc's cleanup */
    int reads;        /* it made read syscalls: a read/write stream ("w+", "r+") */
    uint64_t pending; /* handed over inside the writing call still open */
    uint64_t written;
    struct step *steps;
    size_t nsteps, cap;
    struct whatif_write_cost measured;
};

struct thread {
    uint32_t tid;
    int in_write; /* a writing call (fwrite, fputs, puts, printf) is open */
};

struct objects {
    struct trace_objects ids;
    struct thread threads[MAX_THREADS];
    size_t nthreads;
};

static struct wstream *stream_at(struct objects *o, uint32_t id)
{
    int fresh;
    return trace_objects_stream(&o->ids, id, sizeof(struct wstream), &fresh);
}

static struct wstream *stream_of_cell(struct objects *o, uint32_t cell)
{
    return trace_objects_stream_of_cell(&o->ids, cell);
}

static void stream_free(void *p)
{
    struct wstream *s = p;
    free(s->steps);
    free(s);
}

static struct thread *thread_of(struct objects *o, uint32_t tid)
{
    for (size_t i = 0; i < o->nthreads; i++)
        if (o->threads[i].tid == tid)
            return &o->threads[i];
    if (o->nthreads == MAX_THREADS)
        return NULL;
    o->threads[o->nthreads] = (struct thread){tid, 0};
    return &o->threads[o->nthreads++];
}

static int add_step_nl(struct wstream *s, unsigned kind, uint64_t n, int ends_line)
{
    /* Bytes after bytes are one run, and flushes in a row are one. */
    if (s->nsteps && s->steps[s->nsteps - 1].kind == kind && !ends_line &&
        (kind == ST_WM_BYTES || kind == STEP_FLUSH)) {
        s->steps[s->nsteps - 1].n += n;
        return 0;
    }
    if (s->nsteps == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct step *p = realloc(s->steps, cap * sizeof *p);
        if (!p)
            return -1;
        s->steps = p;
        s->cap = cap;
    }
    s->steps[s->nsteps++] = (struct step){kind, ends_line, n};
    return 0;
}

static int add_step(struct wstream *s, unsigned kind, uint64_t n)
{
    return add_step_nl(s, kind, n, 0);
}

/* What the open call handed over, booked before anything that flushes. */
static int settle(struct wstream *s)
{
    uint64_t n = s->pending;
    s->pending = 0;
    return n ? add_step(s, ST_WM_BYTES, n) : 0;
}

static int put_kind(int call, unsigned *kind)
{
    switch (call) {
    case ST_CALL_FWRITE: case ST_CALL_FPUTS: *kind = ST_WM_XSPUTN; return 1;
    case ST_CALL_PUTS: *kind = ST_WM_PUTS; return 1;
    case ST_CALL_FPRINTF: *kind = ST_WM_PRINTF; return 1;
    default: return 0;
    }
}

static int on_op(struct objects *o, const struct st_trace_event *ev)
{
    struct wstream *s = stream_at(o, ev->id);
    if (!s)
        return -1;
    unsigned kind;
    switch (ev->op) {
    case ST_OP_OTHER:
        if (!put_kind(ev->call, &kind))
            return 0;
        struct thread *t = thread_of(o, ev->tid);
        if (t)
            t->in_write = 0;
        uint64_t n = s->pending;
        s->pending = 0;
        return n ? add_step_nl(s, kind, n, ev->op_flag) : 0;
    case ST_OP_FFLUSH:
    case ST_OP_EXIT:
        s->frozen |= ev->op == ST_OP_EXIT;
        return settle(s) || add_step(s, STEP_FLUSH, 0);
    case ST_OP_FSEEK: case ST_OP_REWIND: case ST_OP_FREAD: case ST_OP_GETC_RUN:
    case ST_OP_GETC_EOF: case ST_OP_FGETS: case ST_OP_GETDELIM: {
        uint64_t at = ev->op == ST_OP_REWIND ? 0
                      : ev->op == ST_OP_FSEEK && ev->whence == SEEK_SET && ev->offset >= 0
                          ? (uint64_t)ev->offset
                          : UNKNOWN_OFFSET;
        return s->nsteps || s->pending ? settle(s) || add_step(s, STEP_REPOSITION, at) : 0;
    }
    default:
        return 0;
    }
}

static int learn(struct objects *o, const struct st_trace_event *ev)
{
    struct wstream *s;
    struct thread *t;
    switch (ev->kind) {
    case ST_EV_FILE_DEF:
    case ST_EV_CELL_DEF:
        return trace_objects_learn(&o->ids, ev) < 0 ? -1 : 0;
    case ST_EV_STREAM_DEF:
    case ST_EV_BUF:
        if (!(s = stream_at(o, ev->id)))
            return -1;
        if (ev->kind == ST_EV_STREAM_DEF)
            s->file = ev->file;
        if (!s->frozen) {
            if (ev->buffer_size)
                s->bufsize = ev->buffer_size;
            s->mode = ev->buf_mode;
        }
        return 0;
    case ST_EV_CALL:
        if ((t = thread_of(o, ev->tid)) != NULL) {
            unsigned kind;
            t->in_write = put_kind(ev->call, &kind);
        }
        return 0;
    case ST_EV_END:
        if ((t = thread_of(o, ev->tid)) != NULL)
            t->in_write = 0;
        return 0;
    case ST_EV_WRITTEN:
        if (!(s = stream_of_cell(o, ev->target)))
            return 0;
        s->written += ev->n;
        t = thread_of(o, ev->tid);
        if (t && t->in_write) {
            s->pending += ev->n;
            return 0;
        }
        return settle(s) || add_step(s, ST_WM_BYTES, ev->n);
    case ST_EV_READ:
    case ST_EV_READ_REREAD:
        if ((s = stream_of_cell(o, ev->target)) != NULL)
            s->reads = 1;
        return 0;
    case ST_EV_WRITE:
    case ST_EV_WRITE_AT:
        if ((s = stream_of_cell(o, ev->target)) != NULL) {
            s->measured.write_syscalls++;
            if (ev->result > 0)
                s->measured.kernel_write_bytes += (uint64_t)ev->result;
        }
        return 0;
    case ST_EV_OP:
        return on_op(o, ev);
    case ST_EV_CLOSE:
        if (ev->id >= o->ids.n || !(s = o->ids.streams[ev->id]))
            return 0;
        s->frozen = 1;
        return settle(s) || add_step(s, STEP_FLUSH, 0);
    default:
        return 0;
    }
}

static void replay(const struct wstream *s, enum st_wm_mode mode, uint64_t size,
                   struct whatif_write_cost *out)
{
    struct st_write_model m;
    st_write_model_init(&m, mode, size);
    for (size_t i = 0; i < s->nsteps; i++) {
        const struct step *p = &s->steps[i];
        if (p->kind == STEP_FLUSH)
            st_write_model_flush(&m);
        else if (p->kind == STEP_REPOSITION)
            st_write_model_reposition(&m, s->reads && p->n != UNKNOWN_OFFSET ? (int64_t)p->n : -1);
        else
            st_write_model_put(&m, (enum st_wm_put)p->kind, p->n, p->ends_line);
    }
    out->write_syscalls += m.write_syscalls;
    out->kernel_write_bytes += m.kernel_write_bytes;
}

static void cost_add(struct whatif_write_cost *a, const struct whatif_write_cost *b)
{
    a->write_syscalls += b->write_syscalls;
    a->kernel_write_bytes += b->kernel_write_bytes;
}

static struct whatif_write_file *file_entry(struct whatif_writes *w, const char *path)
{
    for (size_t i = 0; i < w->nfiles; i++)
        if (!strcmp(w->files[i].path, path))
            return &w->files[i];
    struct whatif_write_file *f = realloc(w->files, (w->nfiles + 1) * sizeof *f);
    if (!f)
        return NULL;
    w->files = f;
    f = &w->files[w->nfiles];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    f->at = calloc(w->nsizes ? w->nsizes : 1, sizeof *f->at);
    if (!f->path || !f->at) {
        free(f->path);
        free(f->at);
        return NULL;
    }
    w->nfiles++;
    return f;
}

static int collect(struct whatif_writes *w, struct objects *o, const char *glob)
{
    for (uint32_t id = 0; id < o->ids.n; id++) {
        struct wstream *s = o->ids.streams[id];
        if (!s || !(s->written || s->measured.write_syscalls))
            continue;
        const char *path = trace_objects_path(&o->ids, s->file) ? trace_objects_path(&o->ids, s->file) : "?";
        if (glob && fnmatch(glob, path, 0) != 0)
            continue;
        struct whatif_write_file *f = file_entry(w, path);
        if (!f || settle(s) != 0)
            return -1;
        uint64_t size = s->bufsize ? s->bufsize : UNSEEN_BUFFER;
        enum st_wm_mode mode = s->mode == ST_TRACE_BUF_NONE   ? ST_WM_NONE
                               : s->mode == ST_TRACE_BUF_LINE ? ST_WM_LINE
                                                              : ST_WM_FULL;
        if (f->streams == 0) {
            f->recorded_size = mode == ST_WM_NONE ? 0 : size;
            f->recorded_line = mode == ST_WM_LINE;
        } else if (f->recorded_size != (mode == ST_WM_NONE ? 0 : size) ||
                   f->recorded_line != (mode == ST_WM_LINE)) {
            f->recorded_mixed = 1;
        }
        f->streams++;
        f->written_bytes += s->written;
        replay(s, mode, size, &f->recorded);
        cost_add(&f->measured, &s->measured);
        replay(s, ST_WM_NONE, 0, &f->unbuffered);
        /* Line buffering at the buffer the stream had (glibc's own when
         * it was unbuffered: what setvbuf(_IOLBF) with no buffer gives). */
        replay(s, ST_WM_LINE, mode == ST_WM_NONE ? UNSEEN_BUFFER : size, &f->line);
        f->line_size = mode == ST_WM_NONE ? UNSEEN_BUFFER : size;
        for (size_t k = 0; k < w->nsizes; k++)
            replay(s, ST_WM_FULL, w->sizes[k], &f->at[k]);
    }
    return 0;
}

int whatif_writes_init(struct whatif_writes *w, const uint64_t *sizes, size_t nsizes)
{
    memset(w, 0, sizeof *w);
    w->sizes = malloc((nsizes ? nsizes : 1) * sizeof *w->sizes);
    if (!w->sizes)
        return -1;
    memcpy(w->sizes, sizes, nsizes * sizeof *sizes);
    w->nsizes = nsizes;
    return 0;
}

int whatif_writes_add_trace(struct whatif_writes *w, const char *path, const char *glob,
                            char err[ST_TRACE_ERROR_MAX])
{
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r)
        return -1;
    struct objects o = {0};
    struct st_trace_event ev;
    int rc;
    while ((rc = st_trace_next(r, &ev, err)) > 0)
        if (learn(&o, &ev) != 0) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
            rc = -1;
            break;
        }
    st_trace_close(r);
    if (rc == 0 && collect(w, &o, glob) != 0) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
        rc = -1;
    }
    trace_objects_free(&o.ids, stream_free);
    return rc < 0 ? -1 : 0;
}

int whatif_writes_agree(const struct whatif_write_file *f)
{
    return f->recorded.write_syscalls == f->measured.write_syscalls &&
           f->recorded.kernel_write_bytes == f->measured.kernel_write_bytes;
}

void whatif_writes_free(struct whatif_writes *w)
{
    for (size_t i = 0; i < w->nfiles; i++) {
        free(w->files[i].path);
        free(w->files[i].at);
    }
    free(w->files);
    free(w->sizes);
    memset(w, 0, sizeof *w);
}
