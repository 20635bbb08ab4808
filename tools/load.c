/* load.c — see tool.h: from the command's arguments to processes. A
 * directory stands for its traces; a file is a trace (its footer, or its
 * events rebuilt into a report) or a JSON report (load_json.c). */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "load_json.h"
#include "tool.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void push(struct inputs *in, size_t *cap, char *path)
{
    if (in->n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        char **p = realloc(in->paths, *cap * sizeof *p);
        if (!p)
            tool_bad_input("out of memory");
        in->paths = p;
    }
    in->paths[in->n++] = path;
}

void inputs_collect(char **args, int nargs, struct inputs *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0)
            tool_bad_input("%s: %s", args[i], strerror(errno));
        if (!S_ISDIR(st.st_mode)) {
            push(out, &cap, strdup(args[i]));
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d)
            tool_bad_input("%s: %s", args[i], strerror(errno));
        size_t first = out->n;
        struct dirent *e;
        size_t sl = strlen(ST_TRACE_SUFFIX);
        while ((e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            if (n <= sl || strcmp(e->d_name + n - sl, ST_TRACE_SUFFIX) != 0)
                continue;
            char *p;
            if (asprintf(&p, "%s/%s", args[i], e->d_name) < 0)
                tool_bad_input("out of memory");
            push(out, &cap, p);
        }
        closedir(d);
        if (out->n == first)
            tool_bad_input("%s: no trace files (*%s) in this directory", args[i], ST_TRACE_SUFFIX);
        qsort(out->paths + first, out->n - first, sizeof *out->paths, by_name);
    }
}

void inputs_free(struct inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    free(in->paths);
    memset(in, 0, sizeof *in);
}

void skipped_add(struct skipped *s, const char *path, const char *err)
{
    char **p = realloc(s->paths, (s->n + 1) * sizeof *p);
    if (p)
        s->paths = p;
    char **e = realloc(s->errors, (s->n + 1) * sizeof *e);
    if (e)
        s->errors = e;
    if (!p || !e || !(s->paths[s->n] = strdup(path)) || !(s->errors[s->n] = strdup(err)))
        tool_bad_input("out of memory");
    s->n++;
    tool_warn("skipped (--keep-going): %s", err);
}

void skipped_free(struct skipped *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->paths[i]);
        free(s->errors[i]);
    }
    free(s->paths);
    free(s->errors);
    memset(s, 0, sizeof *s);
}

void skipped_json(FILE *f, const struct skipped *s)
{
    for (size_t i = 0; i < s->n; i++) {
        fprintf(f, "%s{\"source\":", i ? "," : "");
        json_str(f, s->paths[i]);
        fputs(",\"error\":", f);
        json_str(f, s->errors[i]);
        fputc('}', f);
    }
}

int peek_trace(const char *path, long *pid, long *ppid, uint64_t *start)
{
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r)
        return -1;
    const struct st_trace_info *in = st_trace_info(r);
    *pid = in->pid;
    *ppid = in->ppid;
    *start = in->start_realtime_ns;
    st_trace_close(r);
    return 0;
}

static void free_process(struct process *p)
{
    if (p->footer_mem)
        st_trace_mem_free(p->footer_mem);
    st_trace_model_free(p->model);
    st_trace_close(p->reader);
    json_free(p->json_mem);
    free(p->source);
    free(p->exe);
    memset(p, 0, sizeof *p);
}

/* A frame the process could not name (SEEKTRACE_SYMBOLIZE=later, or a
 * report made in a signal handler) holds only its return address. */
static int is_raw(const struct st_report_frame *f)
{
    return !f->module && !f->function && f->offset;
}

/* Names a file's raw frames from the trace's modules. The footer's
 * memory is this load's own: its frames are written in place. */
static void name_raw_frames(const struct st_report_file *file, const struct st_trace_model *m,
                            const struct st_trace_info *in, void *symbolizer)
{
    for (size_t j = 0; j < file->nsites; j++) {
        const struct st_report_site *site = &file->sites[j];
        for (int k = 0; k < site->nframes; k++) {
            struct st_report_frame *f = (struct st_report_frame *)&site->frames[k];
            if (is_raw(f))
                st_trace_model_frame(m, in, f->offset, symbolize_offline, symbolizer, f);
        }
    }
}

/* The footer's device figures into a report rebuilt from the events. */
static void take_storage(struct st_report *r, const struct st_report *footer)
{
    r->storage = footer->storage;
    for (size_t i = 0; i < footer->nfiles; i++)
        if (footer->files[i].device_measured)
            for (size_t k = 0; k < r->nfiles; k++)
                if (strcmp(r->files[k].path, footer->files[i].path) == 0) {
                    r->files[k].device_measured = 1;
                    r->files[k].device_read_bytes = footer->files[i].device_read_bytes;
                }
}

/* Every file of p's report to o->each_file, then p to fn. */
static int show_files(struct process *p, const struct load_opts *o, process_fn fn, void *ctx)
{
    for (size_t i = 0; o->each_file && i < p->report.nfiles; i++)
        o->each_file(p, &p->report.files[i], ctx);
    return fn(p, ctx);
}

/* A footer's file as it is decoded (st_footer_rows.each_file): its frames
 * named, shown to the footer rows' own each_file and to load_opts'. */
struct footer_show {
    struct process *p;
    const struct load_opts *o;
    void *ctx, *symbolizer;
    const struct st_trace_info *in;
};

static void show_footer_file(void *vs, const struct st_report_file *f)
{
    struct footer_show *s = vs;
    if (s->o->rows && s->o->rows->each_file)
        s->o->rows->each_file(s->o->rows->ctx, f);
    if (s->symbolizer)
        name_raw_frames(f, s->p->model, s->in, s->symbolizer);
    s->o->each_file(s->p, f, s->ctx);
}

/* Reads p's events through to the end: into p->model, every event (all)
 * or its modules only; the end of the latest into *last_ns. 1 at the end,
 * -1 with err. */
static int read_events(struct process *p, int all, uint64_t *last_ns, char *err)
{
    struct st_trace_event ev;
    int k;
    uint64_t n = 0;
    while ((k = st_trace_next(p->reader, &ev, err)) == 1) {
        if (ev.time_ns + ev.dur_ns > *last_ns)
            *last_ns = ev.time_ns + ev.dur_ns;
        if (p->model && (all || ev.kind == ST_EV_MODULE) &&
            st_trace_model_apply(p->model, &ev) != 0) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", p->source);
            return -1;
        }
        if ((++n & 0xfffff) == 0)
            progress_step(0, st_trace_bytes_read(p->reader));
    }
    return k < 0 ? -1 : 1;
}

static int load_trace(const char *path, const struct load_opts *o, process_fn fn, void *ctx,
                      char *err)
{
    struct process p;
    memset(&p, 0, sizeof p);
    p.kind = SOURCE_TRACE;
    p.reader = st_trace_open(path, err);
    if (!p.reader)
        return -1;
    p.source = strdup(path);
    const struct st_trace_info *in = st_trace_info(p.reader);
    p.status = st_trace_status(in);
    p.start_realtime_ns = in->start_realtime_ns;
    p.events_lost = in->events_lost;
    p.stop_reason = in->stop_reason;
    p.exe = in->exe ? strdup(in->exe) : NULL;
    p.host = in->host;
    p.labels = in->labels;
    p.nlabels = in->labels ? in->nlabels : 0;
    uint64_t last_ns = in->start_ns; /* the end of the latest event */
    void *symbolizer = o->want_sites ? symbolizer_shared() : NULL;
    symbolizer_for_trace(symbolizer, in->start_realtime_ns);
    int rc;
    if (in->finished && !o->from_events) {
        /* The footer is the report. The events are still read through, so
         * that a damaged trace is never reported as if it were whole, and
         * first: their modules name the frames the process left as
         * addresses, in the footer's files as they are shown. A damaged
         * footer is said before damaged events, as a footer read first. */
        p.model = symbolizer ? st_trace_model_new() : NULL;
        if (symbolizer && !p.model) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
            free_process(&p);
            return -1;
        }
        char events_err[ST_TRACE_ERROR_MAX];
        int events = read_events(&p, 0, &last_ns, events_err);
        struct footer_show show = {&p, o, ctx, symbolizer, in};
        struct st_footer_rows rows = o->rows ? *o->rows : (struct st_footer_rows){0};
        if (o->each_file) {
            rows.each_file = show_footer_file;
            rows.ctx = &show;
        }
        rc = st_trace_footer_rows(p.reader, o->rows || o->each_file ? &rows : NULL, &p.report,
                                  &p.footer_mem, err);
        if (rc >= 0 && events < 0)
            memcpy(err, events_err, ST_TRACE_ERROR_MAX);
        if (rc < 0 || events < 0) {
            free_process(&p);
            return -1;
        }
        for (size_t i = 0; symbolizer && i < p.report.nfiles; i++)
            name_raw_frames(&p.report.files[i], p.model, in, symbolizer);
    } else {
        /* No footer (or asked not to use it): rebuild from the events. */
        struct st_report footer; /* --from-events: the device figures, which no event holds */
        memset(&footer, 0, sizeof footer);
        if (o->from_events && st_trace_footer_report(p.reader, &footer, &p.footer_mem, err) < 0)
            err[0] = '\0'; /* a damaged footer: the events are the report */
        p.model = st_trace_model_new();
        if (!p.model) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
            free_process(&p);
            return -1;
        }
        if (read_events(&p, 1, &last_ns, err) < 0) {
            free_process(&p);
            return -1;
        }
        rc = st_trace_model_report(p.model, in, symbolizer ? symbolize_offline : NULL,
                                   symbolizer, &p.report);
        if (rc != 0) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
            free_process(&p);
            return -1;
        }
        if (p.footer_mem)
            take_storage(&p.report, &footer);
        for (size_t i = 0; o->rows && o->rows->each_file && i < p.report.nfiles; i++)
            o->rows->each_file(o->rows->ctx, &p.report.files[i]);
    }
    p.duration_ns = (in->finished && in->end_ns > in->start_ns ? in->end_ns : last_ns) - in->start_ns;
    rc = in->finished && !o->from_events ? fn(&p, ctx) : show_files(&p, o, fn, ctx);
    free_process(&p);
    return rc;
}

/* A JSON report's processes: their files to o->each_file first. */
struct json_show {
    const struct load_opts *o;
    process_fn fn;
    void *ctx;
};

static int show_json(struct process *p, void *vs)
{
    const struct json_show *s = vs;
    return show_files(p, s->o, s->fn, s->ctx);
}

int load_file(const char *path, const struct load_opts *o, process_fn fn, void *ctx,
              char err[ST_TRACE_ERROR_MAX])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char head[16] = {0};
    ssize_t n = pread(fd, head, sizeof head, 0);
    size_t k = 0;
    while (n > 0 && k < (size_t)n && (head[k] == ' ' || head[k] == '\n' || head[k] == '\t' ||
                                      head[k] == '\r'))
        k++;
    if (n > 0 && k < (size_t)n && (head[k] == '{' || head[k] == '[')) {
        if ((uint64_t)st.st_size > (1ull << 31)) {
            close(fd);
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: a JSON report larger than 2 GiB", path);
            return -1;
        }
        size_t len = (size_t)st.st_size;
        char *text = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        close(fd);
        if (len && text == MAP_FAILED) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: cannot read: %s", path, strerror(errno));
            return -1;
        }
        struct json_show show = {o, fn, ctx};
        int rc = load_json(path, text, len, show_json, &show, err);
        if (len)
            munmap(text, len);
        return rc;
    }
    close(fd);
    return load_trace(path, o, fn, ctx, err);
}
