/* html_events.c — see html.h: one pass over each trace's events for the
 * access maps and the I/O rate.
 *
 * A kernel read's file comes from the cell it is charged to, a delivered
 * range's from its stream: the model of the trace (trace_model.h) resolves
 * both as its definitions arrive. Where each stdio call read is followed
 * from the stream's recorded calls (OP events: open offset, fseek, the
 * bytes each call asked for), the same input whatif replays. Times are
 * wall clock, so that processes line up. The program's own read calls
 * deliver what their syscall read, at its offset. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "tool.h"
#include "trace_model.h"

/* Ranges kept per file and kind: beyond them a run is counted, not drawn
 * (the page says so). 24 bytes each. */
#define MAX_RANGES (4u << 20)

/* What one trace's ids resolve to. */
struct stream_pos {
    int file; /* index in ev->files, -1: none of them, -2: not resolved yet */
    int64_t pos;
    int64_t size; /* -1 until glibc's fstat told it */
};

struct per_trace {
    struct html_range *last_read; /* the last kernel read kept, for REREAD */
    int *cells; /* cell id -> file index, -1 none, -2 unresolved */
    size_t ncells;
    struct stream_pos *streams;
    size_t nstreams;
};

static int file_index(const struct html_events *ev, const char *path)
{
    for (size_t i = 0; path && i < ev->nfiles; i++)
        if (strcmp(ev->files[i].path, path) == 0)
            return (int)i;
    return -1;
}

static void *grow(void *p, size_t *n, size_t want, size_t each)
{
    if (want < *n)
        return p;
    size_t cap = *n ? *n : 64;
    while (cap <= want)
        cap *= 2;
    p = realloc(p, cap * each);
    if (!p)
        tool_bad_input("out of memory");
    *n = cap;
    return p;
}

static void add_range(struct html_range **a, size_t *n, size_t *cap, uint64_t *seen,
                      uint64_t *max_off, uint64_t t, uint64_t off, uint64_t len)
{
    (*seen)++;
    if (off + len > *max_off)
        *max_off = off + len;
    if (*n >= MAX_RANGES)
        return;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        *a = realloc(*a, *cap * sizeof **a);
        if (!*a)
            tool_bad_input("out of memory");
    }
    (*a)[(*n)++] = (struct html_range){t, off, len, 0};
}

/* The rate's buckets start HTML_RATE_BUCKETS wide at 1 µs; a time beyond
 * the last doubles their width (pairs summed), so the buckets cover the
 * whole run however long, each byte in exactly one. */
static void rate_add(struct html_events *ev, uint64_t t, uint64_t kernel, uint64_t delivered)
{
    if (t < ev->t0)
        t = ev->t0;
    while ((t - ev->t0) / ev->rate_width >= HTML_RATE_BUCKETS) {
        for (size_t i = 0; i < HTML_RATE_BUCKETS / 2; i++) {
            ev->rate_kernel[i] = ev->rate_kernel[2 * i] + ev->rate_kernel[2 * i + 1];
            ev->rate_delivered[i] = ev->rate_delivered[2 * i] + ev->rate_delivered[2 * i + 1];
        }
        memset(ev->rate_kernel + HTML_RATE_BUCKETS / 2, 0,
               HTML_RATE_BUCKETS / 2 * sizeof ev->rate_kernel[0]);
        memset(ev->rate_delivered + HTML_RATE_BUCKETS / 2, 0,
               HTML_RATE_BUCKETS / 2 * sizeof ev->rate_delivered[0]);
        ev->rate_width *= 2;
    }
    size_t b = (size_t)((t - ev->t0) / ev->rate_width);
    ev->rate_kernel[b] += kernel;
    ev->rate_delivered[b] += delivered;
    if (t > ev->t1)
        ev->t1 = t;
}

static int cell_file(struct html_events *ev, struct per_trace *pt, struct st_trace_model *model,
                     uint32_t cell)
{
    size_t old = pt->ncells;
    pt->cells = grow(pt->cells, &pt->ncells, cell, sizeof *pt->cells);
    for (size_t i = old; i < pt->ncells; i++)
        pt->cells[i] = -2;
    if (pt->cells[cell] == -2) {
        const char *path = NULL;
        int fd;
        uint32_t site;
        uint64_t pc;
        pt->cells[cell] = st_trace_model_cell(model, cell, &path, &fd, &site, &pc)
                              ? file_index(ev, path)
                              : -1;
    }
    return pt->cells[cell];
}

static struct stream_pos *stream_of(struct html_events *ev, struct per_trace *pt,
                                    struct st_trace_model *model, uint32_t id)
{
    size_t old = pt->nstreams;
    pt->streams = grow(pt->streams, &pt->nstreams, id, sizeof *pt->streams);
    for (size_t i = old; i < pt->nstreams; i++)
        pt->streams[i] = (struct stream_pos){-2, 0, -1};
    struct stream_pos *s = &pt->streams[id];
    if (s->file == -2) {
        const char *path = NULL;
        int fd;
        s->file = st_trace_model_stream(model, id, &path, &fd) ? file_index(ev, path) : -1;
    }
    return s;
}

/* Where a stdio call read, from the stream's recorded position. */
static void follow_op(struct html_events *ev, struct stream_pos *s, const struct st_trace_event *e,
                      uint64_t t)
{
    uint64_t n;
    int64_t x, len = -1;
    st_trace_op_fields(e, &n, &x);
    switch (e->op) {
    case ST_OP_OPEN:
        s->pos = x > 0 ? x : 0;
        return;
    case ST_OP_SIZE:
        s->size = (int64_t)n;
        return;
    case ST_OP_FREAD:
        len = (int64_t)n;
        if (s->size >= 0)
            len = s->pos >= s->size ? 0 : len < s->size - s->pos ? len : s->size - s->pos;
        break;
    case ST_OP_GETC_RUN:
    case ST_OP_GETDELIM:
        len = (int64_t)n;
        break;
    case ST_OP_FGETS:
        len = x;
        break;
    case ST_OP_UNGETC:
        s->pos -= s->pos > 0;
        return;
    case ST_OP_FSEEK:
        if (n == SEEK_SET)
            s->pos = x;
        else if (n == SEEK_CUR)
            s->pos += x;
        else if (s->size >= 0)
            s->pos = s->size + x;
        if (s->pos < 0)
            s->pos = 0;
        return;
    case ST_OP_REWIND:
        s->pos = 0;
        return;
    default:
        return;
    }
    if (len <= 0)
        return;
    struct html_file_events *f = &ev->files[s->file];
    add_range(&f->delivered, &f->ndelivered, &f->capdelivered, &f->delivered_seen, &f->max_off,
              t, (uint64_t)s->pos, (uint64_t)len);
    s->pos += len;
}

static void gather_trace(struct html_events *ev, const char *path)
{
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r)
        tool_bad_input("%s", err);
    const struct st_trace_info *info = st_trace_info(r);
    struct st_trace_model *model = st_trace_model_new();
    if (!model)
        tool_bad_input("out of memory");
    struct per_trace pt = {0};
    struct st_trace_event e;
    int k;
    while ((k = st_trace_next(r, &e, err)) == 1) {
        if (st_trace_model_apply(model, &e) != 0)
            tool_bad_input("out of memory");
        uint64_t t = info->start_realtime_ns +
                     (e.time_ns > info->start_ns ? e.time_ns - info->start_ns : 0);
        if ((e.kind == ST_EV_READ || e.kind == ST_EV_READ_REREAD) && e.result > 0) {
            rate_add(ev, t, (uint64_t)e.result, 0);
            pt.last_read = NULL;
            int fi = e.target ? cell_file(ev, &pt, model, e.target) : -1;
            if (fi >= 0 && e.offset >= 0) {
                struct html_file_events *f = &ev->files[fi];
                size_t before = f->nreads;
                add_range(&f->reads, &f->nreads, &f->capreads, &f->reads_seen, &f->max_off, t,
                          (uint64_t)e.offset, (uint64_t)e.result);
                if (f->nreads > before) {
                    pt.last_read = &f->reads[before];
                    if (e.kind == ST_EV_READ_REREAD)
                        pt.last_read->reread = (uint64_t)e.result;
                }
                /* The program's own read calls take every byte they make
                 * the kernel read: the same range, delivered. */
                if (e.call == ST_CALL_READ || e.call == ST_CALL_PREAD || e.call == ST_CALL_READV ||
                    e.call == ST_CALL_PREADV)
                    add_range(&f->delivered, &f->ndelivered, &f->capdelivered,
                              &f->delivered_seen, &f->max_off, t, (uint64_t)e.offset,
                              (uint64_t)e.result);
            }
        } else if (e.kind == ST_EV_REREAD && pt.last_read) {
            pt.last_read->reread += e.reread;
        } else if (e.kind == ST_EV_DELIVER && e.delivered) {
            rate_add(ev, t, 0, e.delivered);
        } else if (e.kind == ST_EV_OP) {
            struct stream_pos *s = stream_of(ev, &pt, model, e.id);
            if (s->file >= 0)
                follow_op(ev, s, &e, t);
        }
    }
    if (k < 0)
        tool_bad_input("%s", err);
    free(pt.cells);
    free(pt.streams);
    st_trace_model_free(model);
    st_trace_close(r);
    ev->traces_read++;
}

static int by_time(const void *a, const void *b)
{
    const struct html_range *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

void html_events_gather(const struct html_input *in, struct html_events *ev)
{
    memset(ev, 0, sizeof *ev);
    /* The costliest files that were read (the report's order). */
    for (size_t i = 0; i < in->m->nfiles && ev->nfiles < HTML_MAP_FILES; i++)
        if (in->m->files[i].counts.kernel_read_bytes)
            ev->files[ev->nfiles++].path = in->m->files[i].path;
    ev->t0 = UINT64_MAX;
    for (size_t i = 0; i < in->ntraces; i++) {
        long pid, ppid;
        uint64_t start;
        if (peek_trace(in->traces[i], &pid, &ppid, &start) == 0 && start < ev->t0)
            ev->t0 = start;
    }
    if (ev->t0 == UINT64_MAX)
        ev->t0 = 0;
    ev->t1 = ev->t0;
    ev->rate_width = 1000;
    progress_start("reading events", in->ntraces);
    for (size_t i = 0; i < in->ntraces; i++) {
        gather_trace(ev, in->traces[i]);
        progress_step(i + 1, 0);
    }
    progress_end();
    /* Traces were read one after another: in time order across them. */
    for (size_t i = 0; i < ev->nfiles; i++) {
        struct html_file_events *f = &ev->files[i];
        if (f->nreads) /* none: no array at all, which qsort must not be given */
            qsort(f->reads, f->nreads, sizeof *f->reads, by_time);
        if (f->ndelivered)
            qsort(f->delivered, f->ndelivered, sizeof *f->delivered, by_time);
    }
}

void html_events_free(struct html_events *ev)
{
    for (size_t i = 0; i < ev->nfiles; i++) {
        free(ev->files[i].reads);
        free(ev->files[i].delivered);
    }
}
