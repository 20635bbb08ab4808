/* whatif_replay.c — see whatif_replay.h.
 *
 * Two passes over each trace. The first learns what each stream is (its
 * file, buffer, how it was opened, the file's size) and what the trace
 * measured for it; only then is it known which streams the model can
 * replay, and at what file size. The second replays their calls, in the
 * order each thread made them, at every size at once. */
#define _GNU_SOURCE 1
#include "whatif_replay.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "trace_objects.h"
#include "whatif_stream.h"

/* A default-size buffer whose size the trace never saw (no read filled
 * it): what glibc picks on ext4 and tmpfs, min(st_blksize, BUFSIZ). */
#define UNSEEN_BUFFER 4096

struct stream {
    int defined;
    uint32_t file;
    int fd;
    uint64_t bufsize;
    unsigned mode, origin;
    int caveat;
    /* pass 1 */
    int has_ops, opened, read_only, size_known, not_regular, written, approximate;
    int reads; /* a call asked it for data */
    /* The buffer as the program's calls saw it (glibc's exit cleanup turns
     * every stream unbuffered before the trace's last word on it). */
    uint64_t rec_bufsize;
    unsigned rec_mode, rec_origin;
    int64_t open_offset;
    uint64_t size, max_end;
    int64_t eof_at;
    uint32_t tid;
    int shared;
    struct whatif_cost measured;
    /* pass 2 */
    const char *skip;
    struct st_model *models; /* [0] the recorded configuration, [1 + k] sizes[k] */
    struct whatif_cost *cost; /* the same order; delivered bytes are counted here */
    struct whatif_cost exact;
};

static struct stream *stream_at(struct trace_objects *o, uint32_t id)
{
    int fresh;
    struct stream *s = trace_objects_stream(o, id, sizeof *s, &fresh);
    if (fresh)
        s->eof_at = -1;
    return s;
}

/* The stream a counting event's cell belongs to, or NULL. */
static struct stream *stream_of_cell(struct trace_objects *o, uint32_t cell)
{
    return trace_objects_stream_of_cell(o, cell);
}

static void stream_free(void *p)
{
    struct stream *s = p;
    free(s->models);
    free(s->cost);
    free(s);
}

/* ---- pass 1 ---------------------------------------------------------------- */

/* One function per event kind, named after its events.def line: what the
 * kind tells pass 1. 0, or -1 out of memory. */
typedef int learn_fn(struct trace_objects *o, const struct st_trace_event *ev);

static int learn_nothing(struct trace_objects *o, const struct st_trace_event *ev)
{
    return 0;
}
#define learn_TARGET learn_nothing
#define learn_CALL learn_nothing
#define learn_END learn_nothing
#define learn_COUNT learn_nothing
#define learn_REREAD learn_nothing
#define learn_SEEK learn_nothing
#define learn_WRITTEN learn_nothing
#define learn_FLUSH learn_nothing /* the WRITE that follows marks the stream */
#define learn_SITE_DEF learn_nothing
#define learn_MODULE learn_nothing
#define learn_MARK learn_nothing
#define learn_CLOSE learn_nothing
#define learn_LOST learn_nothing
#define learn_WRITTEN learn_nothing

static int learn_READ(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_of_cell(o, ev->target);
    if (!s)
        return 0;
    s->measured.read_syscalls++;
    if (ev->result > 0)
        s->measured.kernel_read_bytes += (uint64_t)ev->result;
    if (ev->offset >= 0 && ev->result >= 0) {
        uint64_t end = (uint64_t)ev->offset + (uint64_t)ev->result;
        if (end > s->max_end)
            s->max_end = end;
        if (ev->result == 0)
            s->eof_at = ev->offset;
    }
    return 0;
}
#define learn_READ_REREAD learn_READ

static int learn_LSEEK(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_of_cell(o, ev->target);
    if (s)
        s->measured.lseek_syscalls++;
    return 0;
}

static int learn_FSTAT(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_of_cell(o, ev->target);
    if (s)
        s->measured.fstat_syscalls++;
    return 0;
}

static int learn_WRITE(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_of_cell(o, ev->target);
    if (s)
        s->written = 1;
    return 0;
}

#define learn_WRITE_AT learn_WRITE
static int learn_DELIVER(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_of_cell(o, ev->target);
    if (s)
        s->measured.delivered_bytes += ev->delivered;
    return 0;
}

static void learn_op(struct stream *s, const struct st_trace_event *ev)
{
    if (!s->has_ops) {
        s->has_ops = 1;
        s->tid = ev->tid;
    } else if (s->tid != ev->tid) {
        s->shared = 1;
    }
    switch (ev->op) {
    case ST_OP_OPEN:
        s->opened = 1;
        s->read_only = ev->op_flag;
        s->open_offset = ev->offset;
        break;
    case ST_OP_SIZE:
        if (!ev->op_flag) {
            s->not_regular = 1;
        } else if (!s->size_known) {
            s->size_known = 1;
            s->size = ev->n;
        }
        break;
    case ST_OP_OTHER:
        s->approximate = 1;
        break;
    case ST_OP_FREAD: case ST_OP_GETC_RUN: case ST_OP_GETC_EOF: case ST_OP_FGETS:
    case ST_OP_GETDELIM:
        s->reads = 1;
        break;
    }
    if (ev->op != ST_OP_EXIT && ev->op != ST_OP_OPEN && ev->op != ST_OP_SIZE && s->bufsize) {
        s->rec_bufsize = s->bufsize;
        s->rec_mode = s->mode;
        s->rec_origin = s->origin;
    }
}

static int learn_FILE_DEF(struct trace_objects *o, const struct st_trace_event *ev)
{
    return trace_objects_learn(o, ev) < 0 ? -1 : 0;
}

static int learn_BUF(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_at(o, ev->id);
    if (!s)
        return -1;
    if (ev->buffer_size)
        s->bufsize = ev->buffer_size;
    s->mode = ev->buf_mode;
    s->origin = ev->buf_origin;
    s->caveat = ev->str_len > 0;
    return 0;
}

static int learn_STREAM_DEF(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_at(o, ev->id);
    if (!s)
        return -1;
    s->defined = 1;
    s->file = ev->file;
    s->fd = ev->fd;
    return learn_BUF(o, ev);
}

static int learn_CELL_DEF(struct trace_objects *o, const struct st_trace_event *ev)
{
    return trace_objects_learn(o, ev) < 0 ? -1 : 0;
}

static int learn_OP(struct trace_objects *o, const struct st_trace_event *ev)
{
    struct stream *s = stream_at(o, ev->id);
    if (!s)
        return -1;
    learn_op(s, ev);
    return 0;
}

static int learn(struct trace_objects *o, const struct st_trace_event *ev)
{
    static learn_fn *const by_kind[32] = {
#define ST_TRACE_EVENT(kind, value, ...) [value] = learn_##kind,
#include "seektrace/events.def"
#undef ST_TRACE_EVENT
    };
    learn_fn *fn = by_kind[ev->kind & 31];
    return fn ? fn(o, ev) : 0;
}

/* ---- deciding what to replay ------------------------------------------------ */

static const char *why_not(const struct stream *s)
{
    if (!s->defined)
        return "never defined in the trace";
    if (s->caveat)
        return "its figures carry a caveat (an mmap'ed \"rm\" stream)";
    if (!s->opened)
        return "not opened by fopen/fdopen/freopen (stdin, or a library's own stream)";
    if (!s->read_only)
        return "not opened read-only";
    if (s->written)
        return "written to";
    if (s->not_regular)
        return "not a regular file";
    if (s->open_offset < 0)
        return "the descriptor's offset when fdopen'ed is unknown";
    return NULL;
}

static struct st_model_config recorded_config(const struct stream *s,
                                              const struct st_model_config *base)
{
    struct st_model_config c = *base;
    c.bufsize = s->rec_bufsize ? s->rec_bufsize : UNSEEN_BUFFER;
    if (s->rec_mode == ST_TRACE_BUF_NONE)
        c.buffering = ST_M_BUF_NONE;
    else if (s->rec_origin == ST_TRACE_ORIGIN_USER)
        c.buffering = ST_M_BUF_USER;
    else
        c.buffering = ST_M_BUF_ALLOC;
    return c;
}

static int prepare(struct stream *s, const struct whatif *w, unsigned glibc)
{
    s->skip = why_not(s);
    if (s->skip)
        return 0;
    struct st_model_config base = {.glibc = glibc};
    /* Pseudo files (/proc) say 0 bytes and yield more: sized by what was
     * read. A regular file that grows while it is read keeps the size its
     * fstat saw (whatif.workload_eof). */
    if (s->size_known && (s->size > 0 || s->max_end == 0)) {
        base.file_size = s->size;
    } else if (s->eof_at >= 0 && (uint64_t)s->eof_at == s->max_end) {
        base.file_size = s->max_end; /* a read returned 0 right where the data ended */
    } else {
        base.file_size = s->max_end;
        base.size_is_lower_bound = 1;
    }
    size_t n = 1 + w->nsizes;
    s->models = calloc(n, sizeof *s->models);
    s->cost = calloc(n, sizeof *s->cost);
    if (!s->models || !s->cost)
        return -1;
    struct st_model_config rec = recorded_config(s, &base);
    st_model_init(&s->models[0], &rec);
    for (size_t k = 0; k < w->nsizes; k++) {
        struct st_model_config c = base;
        c.bufsize = w->sizes[k];
        c.buffering = ST_M_BUF_USER;
        st_model_init(&s->models[1 + k], &c);
    }
    return 0;
}

/* ---- pass 2 ---------------------------------------------------------------- */

/* The model's op for a recorded one; returns 0 for ops the model ignores. */
static int model_op(const struct st_trace_event *ev, struct st_model_op *op)
{
    uint64_t n;
    int64_t x;
    st_trace_op_fields(ev, &n, &x);
    return st_model_op_from_trace(ev->op, ev->op_flag, n, x, op);
}

static int reads_data(enum st_model_op_kind k)
{
    return k == ST_M_FREAD || k == ST_M_GETC || k == ST_M_GETC_RUN || k == ST_M_FGETS ||
           k == ST_M_GETDELIM;
}

/* The lower bound: each call a pread of exactly what it asked for (a getc
 * run: one per byte), no lseek, no buffer. */
static void exact_step(struct whatif_cost *c, const struct st_model_op *op, int64_t got)
{
    if (op->kind == ST_M_GETC_RUN)
        c->read_syscalls += (uint64_t)op->arg;
    else if (!(op->kind == ST_M_FREAD && op->arg == 0) && !(op->kind == ST_M_FGETS && op->arg <= 1))
        c->read_syscalls++;
    if (got > 0) {
        c->kernel_read_bytes += (uint64_t)got;
        c->delivered_bytes += (uint64_t)got;
    }
}

static void replay(struct stream *s, const struct st_model_op *op, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int64_t got = st_model_step(&s->models[k], op);
        if (reads_data(op->kind) && got > 0)
            s->cost[k].delivered_bytes += (uint64_t)got;
        if (k == 0 && reads_data(op->kind))
            exact_step(&s->exact, op, got);
    }
}

static void apply(struct trace_objects *o, const struct st_trace_event *ev, size_t n)
{
    struct stream *s = ev->id < o->n ? o->streams[ev->id] : NULL;
    if (!s || s->skip || !s->models)
        return;
    struct st_model_op op;
    if (ev->kind == ST_EV_CLOSE)
        op = (struct st_model_op){.kind = ST_M_CLOSE};
    else if (!model_op(ev, &op))
        return;
    replay(s, &op, n);
}

/* ---- results ------------------------------------------------------------- */

static void cost_add(struct whatif_cost *a, const struct whatif_cost *b)
{
    a->read_syscalls += b->read_syscalls;
    a->lseek_syscalls += b->lseek_syscalls;
    a->fstat_syscalls += b->fstat_syscalls;
    a->kernel_read_bytes += b->kernel_read_bytes;
    a->delivered_bytes += b->delivered_bytes;
    a->assumed_end_reads += b->assumed_end_reads;
}

static void cost_of_model(struct whatif_cost *c, const struct st_model *m)
{
    c->read_syscalls = m->cost.read_syscalls;
    c->lseek_syscalls = m->cost.lseek_syscalls;
    c->fstat_syscalls = m->cost.fstat_syscalls;
    c->kernel_read_bytes = m->cost.kernel_read_bytes;
    c->assumed_end_reads = m->cost.assumed_end_reads;
}

/* The file entry for path, added if new. */
static struct whatif_file *file_entry(struct whatif *w, const char *path)
{
    for (size_t i = 0; i < w->nfiles; i++)
        if (!strcmp(w->files[i].path, path))
            return &w->files[i];
    struct whatif_file *f = realloc(w->files, (w->nfiles + 1) * sizeof *f);
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

static int add_skip(struct whatif_file *f, long pid, int fd, const char *why)
{
    struct whatif_skip *k = realloc(f->skipped, (f->nskipped + 1) * sizeof *k);
    if (!k)
        return -1;
    f->skipped = k;
    k[f->nskipped++] = (struct whatif_skip){pid, fd, why};
    return 0;
}

static int collect(struct whatif *w, struct trace_objects *o, long pid, const char *glob)
{
    for (uint32_t id = 0; id < o->n; id++) {
        struct stream *s = o->streams[id];
        if (!s || !(s->reads || s->measured.read_syscalls))
            continue;
        const char *path = trace_objects_path(o, s->file) ? trace_objects_path(o, s->file) : "?";
        if (glob && fnmatch(glob, path, 0) != 0)
            continue;
        struct whatif_file *f = file_entry(w, path);
        if (!f)
            return -1;
        if (s->skip || !s->models) {
            const char *why = s->skip ? s->skip : why_not(s);
            if (add_skip(f, pid, s->fd, why ? why : "no calls recorded (a format 1 trace)") != 0)
                return -1;
            continue;
        }
        struct whatif_cost c;
        cost_of_model(&c, &s->models[0]);
        c.delivered_bytes = s->cost[0].delivered_bytes;
        cost_add(&f->recorded, &c);
        cost_add(&f->measured, &s->measured);
        cost_add(&f->exact, &s->exact);
        for (size_t k = 0; k < w->nsizes; k++) {
            cost_of_model(&c, &s->models[1 + k]);
            c.delivered_bytes = s->cost[1 + k].delivered_bytes;
            cost_add(&f->at[k], &c);
        }
        uint64_t size = s->models[0].bufsize;
        if (f->streams == 0)
            f->recorded_size = size;
        else if (f->recorded_size != size)
            f->recorded_mixed = 1;
        f->streams++;
        f->approximate |= s->approximate;
        f->threads_shared |= s->shared;
    }
    return 0;
}

/* ---- driving ---------------------------------------------------------------- */

int whatif_init(struct whatif *w, const uint64_t *sizes, size_t nsizes)
{
    memset(w, 0, sizeof *w);
    w->sizes = malloc((nsizes ? nsizes : 1) * sizeof *w->sizes);
    if (!w->sizes)
        return -1;
    memcpy(w->sizes, sizes, nsizes * sizeof *sizes);
    w->nsizes = nsizes;
    return 0;
}

static int command_line(struct whatif *w, const struct st_trace_info *info)
{
    if (w->command || info->argc == 0)
        return 0;
    size_t len = 1;
    for (int i = 0; i < info->argc; i++)
        len += strlen(info->argv[i]) + 1;
    w->command = malloc(len);
    if (!w->command)
        return -1;
    char *p = w->command;
    for (int i = 0; i < info->argc; i++)
        p += sprintf(p, "%s%s", i ? " " : "", info->argv[i]);
    *p = 0;
    return 0;
}

static void oom(char err[ST_TRACE_ERROR_MAX], const char *path)
{
    snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
}

/* One pass over the trace at path: learn (pass 1) or apply (pass 2). */
static int pass(struct whatif *w, const char *path, struct trace_objects *o, int second,
                char err[ST_TRACE_ERROR_MAX])
{
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r)
        return -1;
    const struct st_trace_info *info = st_trace_info(r);
    if (!second) {
        w->processes++;
        if (info->version_major < 2)
            w->old_traces++;
        if (command_line(w, info) != 0) {
            st_trace_close(r);
            oom(err, path);
            return -1;
        }
    }
    struct st_trace_event ev;
    int rc;
    while ((rc = st_trace_next(r, &ev, err)) > 0) {
        if (!second) {
            if (learn(o, &ev) != 0) {
                oom(err, path);
                rc = -1;
                break;
            }
        } else if (ev.kind == ST_EV_OP || ev.kind == ST_EV_CLOSE) {
            apply(o, &ev, 1 + w->nsizes);
        }
    }
    st_trace_close(r);
    return rc < 0 ? -1 : 0;
}

/* Traces from before libc_version was recorded replay with 2.28's rules,
 * those of every glibc up to 2.41. */
static void note_rules(struct whatif *w, unsigned glibc)
{
    char name[16];
    snprintf(name, sizeof name, "glibc %s", st_model_rules_name(glibc));
    list_add_once(w->stdio_rules, sizeof w->stdio_rules, name, ", ");
}

int whatif_add_trace(struct whatif *w, const char *path, const char *glob,
                     char err[ST_TRACE_ERROR_MAX])
{
    struct trace_objects o = {0};
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r)
        return -1;
    long pid = st_trace_info(r)->pid;
    unsigned glibc = st_model_glibc(st_trace_info(r)->libc_version);
    st_trace_close(r);
    note_rules(w, glibc);
    int rc = pass(w, path, &o, 0, err);
    for (uint32_t id = 0; rc == 0 && id < o.n; id++) {
        struct stream *s = o.streams[id];
        if (s && s->has_ops && prepare(s, w, glibc) != 0) {
            oom(err, path);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = pass(w, path, &o, 1, err);
    if (rc == 0 && collect(w, &o, pid, glob) != 0) {
        oom(err, path);
        rc = -1;
    }
    trace_objects_free(&o, stream_free);
    return rc;
}

void whatif_total(const struct whatif *w, struct whatif_file *out)
{
    memset(out, 0, sizeof *out);
    out->path = (char *)"total";
    out->at = calloc(w->nsizes ? w->nsizes : 1, sizeof *out->at);
    for (size_t i = 0; i < w->nfiles; i++) {
        const struct whatif_file *f = &w->files[i];
        if (!f->streams)
            continue;
        if (out->streams == 0)
            out->recorded_size = f->recorded_size;
        else if (out->recorded_size != f->recorded_size || f->recorded_mixed)
            out->recorded_mixed = 1;
        out->streams += f->streams;
        out->nskipped += f->nskipped;
        out->approximate |= f->approximate;
        out->threads_shared |= f->threads_shared;
        cost_add(&out->recorded, &f->recorded);
        cost_add(&out->measured, &f->measured);
        cost_add(&out->exact, &f->exact);
        for (size_t k = 0; out->at && k < w->nsizes; k++)
            cost_add(&out->at[k], &f->at[k]);
    }
}

void whatif_free(struct whatif *w)
{
    for (size_t i = 0; i < w->nfiles; i++) {
        free(w->files[i].path);
        free(w->files[i].skipped);
        free(w->files[i].at);
    }
    free(w->files);
    free(w->sizes);
    free(w->command);
    memset(w, 0, sizeof *w);
}
