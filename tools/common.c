/* common.c — see tool.h: messages, progress, inputs, loading processes,
 * rendering. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "json_out.h"
#include "name_text.h"
#include "outbuf.h"
#include "tool.h"
#include "units.h"

const char *st_prog = "seektrace";

/* "PREFIX: message" on stderr, always one line: a message quoting a file
 * name or a system error never breaks it. */
static void vline(const char *prefix, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    for (char *c = line; *c; c++)
        if (*c == '\n')
            *c = ' ';
    fprintf(stderr, "%s: %s\n", prefix, line);
}

void tool_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(st_prog, fmt, ap);
    va_end(ap);
}

void tool_bad_input(const char *fmt, ...)
{
    va_list ap;
    progress_end();
    va_start(ap, fmt);
    vline(st_prog, fmt, ap);
    va_end(ap);
    exit(EXIT_BAD_INPUT);
}

int tool_cmd_error(const char *cmd, const char *fmt, ...)
{
    char prefix[64];
    va_list ap;
    snprintf(prefix, sizeof prefix, "%s %s", st_prog, cmd);
    va_start(ap, fmt);
    vline(prefix, fmt, ap);
    va_end(ap);
    return EXIT_BAD_INPUT;
}

void tool_usage_error(const char *cmd, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s %s: %s; try '%s %s --help'\n", st_prog, cmd, line, st_prog, cmd);
    exit(EXIT_BAD_INPUT);
}

int opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        tool_usage_error(cmd, "%s needs a value", name);
    *value = argv[++*i];
    return 1;
}

/* ---- progress ---------------------------------------------------------------- */

static struct {
    int on, shown;
    const char *what;
    uint64_t total;
    double start, last;
} prog;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(const char *what, uint64_t total)
{
    prog.on = isatty(2);
    prog.shown = 0;
    prog.what = what;
    prog.total = total;
    prog.start = prog.last = now_s();
}

void progress_step(uint64_t done, uint64_t bytes)
{
    if (!prog.on)
        return;
    double t = now_s();
    /* Only for long analyses: nothing in the first second. */
    if (t - prog.start < 1.0 || t - prog.last < 0.2)
        return;
    prog.last = t;
    prog.shown = 1;
    if (prog.total)
        fprintf(stderr, "\r%s: %s %llu/%llu, %.1f MB   ", st_prog, prog.what,
                (unsigned long long)done, (unsigned long long)prog.total, (double)bytes / 1e6);
    else
        fprintf(stderr, "\r%s: %s %.1f MB   ", st_prog, prog.what, (double)bytes / 1e6);
}

void progress_end(void)
{
    if (prog.shown)
        fprintf(stderr, "\r%*s\r", 70, "");
    prog.shown = 0;
}

/* ---- inputs ---------------------------------------------------------------------- */

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

/* ---- loading --------------------------------------------------------------------- */

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
    symbolizer_free(p->symbolizer);
    st_trace_close(p->reader);
    json_free(p->json_mem);
    free(p->source);
    free(p->exe);
    memset(p, 0, sizeof *p);
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
    int rc = 0;
    if (!o->from_events)
        rc = st_trace_footer_report(p.reader, &p.report, &p.footer_mem, err);
    if (rc < 0) {
        free_process(&p);
        return -1;
    }
    if (rc == 1) {
        /* The footer is the report; the events are still read through, so
         * that a damaged trace is never reported as if it were whole. */
        struct st_trace_event ev;
        int k;
        uint64_t n = 0;
        while ((k = st_trace_next(p.reader, &ev, err)) == 1)
            if ((++n & 0xfffff) == 0)
                progress_step(0, st_trace_bytes_read(p.reader));
        if (k < 0) {
            free_process(&p);
            return -1;
        }
    }
    if (rc == 0) {
        /* No footer (or asked not to use it): rebuild from the events. */
        p.model = st_trace_model_new();
        if (!p.model) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
            free_process(&p);
            return -1;
        }
        struct st_trace_event ev;
        int k;
        while ((k = st_trace_next(p.reader, &ev, err)) == 1) {
            if (st_trace_model_apply(p.model, &ev) != 0) {
                snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
                free_process(&p);
                return -1;
            }
            if ((st_trace_model_events(p.model) & 0xfffff) == 0)
                progress_step(0, st_trace_bytes_read(p.reader));
        }
        if (k < 0) {
            free_process(&p);
            return -1;
        }
        p.symbolizer = o->want_sites ? symbolizer_new() : NULL;
        rc = st_trace_model_report(p.model, in, p.symbolizer ? symbolize_offline : NULL,
                                   p.symbolizer, &p.report);
        if (rc != 0) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
            free_process(&p);
            return -1;
        }
    }
    rc = fn(&p, ctx);
    free_process(&p);
    return rc;
}

/* ---- JSON reports ---------------------------------------------------------------- */

static const struct {
    const char *name;
    size_t off;
} json_counts[] = {
#define COUNT_FIELD(name, id) {#name, offsetof(struct st_counts, name)},
#include "counts_fields.def"
#undef COUNT_FIELD
};

static int j_u64(const struct jval *v, uint64_t *out)
{
    if (!v || v->type != J_NUMBER || !v->is_u64)
        return -1;
    *out = v->u64;
    return 0;
}

static int j_counts(const struct jval *o, struct st_counts *c, const char **why)
{
    for (size_t i = 0; i < sizeof json_counts / sizeof json_counts[0]; i++) {
        const struct jval *v = json_get(o, json_counts[i].name);
        if (!v)
            continue; /* older reports lack newer counters */
        if (j_u64(v, (uint64_t *)((char *)c + json_counts[i].off)) != 0) {
            *why = json_counts[i].name;
            return -1;
        }
    }
    const struct jval *by = json_get(o, "by_call");
    for (size_t i = 0; by && by->type == J_OBJECT && i < by->n; i++) {
        int k = ST_CALL_OTHER;
        for (int c2 = 0; c2 < ST_CALL_COUNT; c2++)
            if (strcmp(by->keys[i], st_call_name((enum st_call)c2)) == 0)
                k = c2;
        static const char *const sub[] = {"calls", "read_syscalls", "kernel_read_bytes",
                                           "lseek_syscalls", "fstat_syscalls"};
        uint64_t *dst[] = {&c->by_call[k].calls, &c->by_call[k].read_syscalls,
                           &c->by_call[k].kernel_read_bytes, &c->by_call[k].lseek_syscalls,
                           &c->by_call[k].fstat_syscalls};
        for (int s = 0; s < 5; s++) {
            uint64_t v;
            const struct jval *jv = json_get(&by->items[i], sub[s]);
            if (jv && j_u64(jv, &v) != 0) {
                *why = "by_call";
                return -1;
            }
            if (jv)
                *dst[s] += v;
        }
    }
    return 0;
}

static const char *j_string(const struct jval *v)
{
    return v && v->type == J_STRING ? v->str : NULL;
}

static int j_frame(const struct jval *o, struct st_report_frame *f)
{
    f->function = j_string(json_get(o, "function"));
    f->source = j_string(json_get(o, "source"));
    f->module = j_string(json_get(o, "module"));
    const struct jval *line = json_get(o, "line");
    f->line = line && line->type == J_NUMBER ? (int)line->number : 0;
    uint64_t off = 0;
    j_u64(json_get(o, "offset"), &off);
    f->offset = off;
    return 0;
}

/* Every string value under v back to the bytes it names (name_text.h).
 * Recursion: no deeper than json.c parses (MAX_DEPTH). */
static void decode_names(struct jval *v) // NOLINT(misc-no-recursion)
{
    if (v->type == J_STRING) {
        v->len = st_name_decode(v->str, v->len);
        v->str[v->len] = '\0';
    }
    for (size_t i = 0; (v->type == J_ARRAY || v->type == J_OBJECT) && i < v->n; i++)
        decode_names(&v->items[i]);
}

/* A seektrace.report/2 object (or /1, whose strings json.c already turned
 * back into bytes: it wrote a byte that is not UTF-8 as \udcXX) as a report;
 * memory from the JSON arena (alloc). Returns NULL or a reason. */
static const char *json_report(struct jval *v, struct st_report *r)
{
    memset(r, 0, sizeof *r);
    const char *schema = j_string(json_get(v, "schema"));
    if (!schema)
        return "not a seektrace report (no \"schema\")";
    if (strcmp(schema, "seektrace.report/2") == 0)
        decode_names(v);
    else if (strcmp(schema, "seektrace.report/1") != 0)
        return strncmp(schema, "seektrace.report/", 17) == 0
                   ? "a newer report schema than this seektrace reads (seektrace.report/2)"
                   : "not a seektrace.report/2 report";
    const struct jval *files = json_get(v, "files");
    if (!files || files->type != J_ARRAY)
        return "no \"files\" array";
    r->capture = j_string(json_get(v, "capture"));
    if (!r->capture)
        r->capture = "exact";
    r->capture_reason = j_string(json_get(v, "capture_reason"));
    r->libc_version = j_string(json_get(v, "libc_version"));
    const struct jval *pid = json_get(v, "pid"), *ppid = json_get(v, "ppid");
    r->pid = pid && pid->type == J_NUMBER ? (long)pid->number : 0;
    r->ppid = ppid && ppid->type == J_NUMBER ? (long)ppid->number : 0;
    const struct jval *argv = json_get(v, "argv");
    if (argv && argv->type == J_ARRAY) {
        const char **a = calloc(argv->n + 1, sizeof *a);
        if (!a)
            return "out of memory";
        for (size_t i = 0; i < argv->n; i++)
            a[i] = j_string(&argv->items[i]) ? j_string(&argv->items[i]) : "";
        r->argv = a;
        r->argc = (int)argv->n;
    }
    r->files = calloc(files->n ? files->n : 1, sizeof *r->files);
    if (!r->files)
        return "out of memory";
    const char *why = NULL;
    for (size_t i = 0; i < files->n; i++) {
        const struct jval *f = &files->items[i];
        struct st_report_file *rf = &r->files[r->nfiles];
        rf->path = j_string(json_get(f, "path"));
        if (!rf->path || j_counts(f, &rf->counts, &why) != 0)
            return why ? "a file's counter is not a non-negative integer" : "a file without \"path\"";
        const struct jval *streams = json_get(f, "streams");
        if (streams && streams->type == J_ARRAY && streams->n) {
            rf->streams = calloc(streams->n, sizeof *rf->streams);
            if (!rf->streams)
                return "out of memory";
            for (size_t k = 0; k < streams->n; k++) {
                const struct jval *s = &streams->items[k];
                struct st_report_stream *rs = &rf->streams[rf->nstreams++];
                const struct jval *fd = json_get(s, "fd");
                rs->fd = fd && fd->type == J_NUMBER ? (int)fd->number : -1;
                j_u64(json_get(s, "buffer_size"), &rs->buffer_size);
                j_u64(json_get(s, "requested_buffer_size"), &rs->requested_buffer_size);
                const char *mode = j_string(json_get(s, "buffer_mode"));
                rs->mode = !mode ? ST_BUF_UNKNOWN : !strcmp(mode, "full") ? ST_BUF_FULL
                         : !strcmp(mode, "line") ? ST_BUF_LINE : !strcmp(mode, "none") ? ST_BUF_NONE
                         : ST_BUF_UNKNOWN;
                const char *origin = j_string(json_get(s, "buffer_origin"));
                rs->origin = origin && !strcmp(origin, "user") ? ST_BUF_USER
                           : origin && !strcmp(origin, "setvbuf-size-ignored") ? ST_BUF_SIZE_IGNORED
                           : ST_BUF_DEFAULT;
                rs->caveat = j_string(json_get(s, "caveat"));
                if (j_counts(s, &rs->counts, &why) != 0)
                    return "a stream's counter is not a non-negative integer";
            }
        }
        const struct jval *sites = json_get(f, "sites");
        if (sites && sites->type == J_ARRAY && sites->n) {
            rf->sites = calloc(sites->n, sizeof *rf->sites);
            if (!rf->sites)
                return "out of memory";
            for (size_t k = 0; k < sites->n; k++) {
                const struct jval *s = &sites->items[k];
                struct st_report_site *rs = &rf->sites[rf->nsites++];
                const struct jval *frames = json_get(s, "frames");
                if (frames && frames->type == J_ARRAY && frames->n) {
                    struct st_report_frame *fr = calloc(frames->n, sizeof *fr);
                    if (!fr)
                        return "out of memory";
                    for (size_t q = 0; q < frames->n; q++)
                        j_frame(&frames->items[q], &fr[q]);
                    rs->frames = fr;
                    rs->nframes = (int)frames->n;
                }
                if (j_counts(s, &rs->counts, &why) != 0)
                    return "a site's counter is not a non-negative integer";
            }
        }
        r->nfiles++;
    }
    for (size_t i = 0; i < r->nfiles; i++)
        st_counts_add(&r->totals, &r->files[i].counts);
    return NULL;
}

static void free_json_report(struct st_report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].streams);
        for (size_t k = 0; k < r->files[i].nsites; k++)
            free((void *)r->files[i].sites[k].frames);
        free(r->files[i].sites);
    }
    free(r->files);
    free((void *)r->argv);
}

static int load_json(const char *path, const char *text, size_t len, process_fn fn, void *ctx,
                     char *err)
{
    size_t pos = 0;
    int count = 0;
    while (pos < len) {
        /* JSON lines, or reports one after another: skip blank space and
         * any line that is not JSON (a text report in the same stream). */
        while (pos < len && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\t' ||
                             text[pos] == '\r'))
            pos++;
        if (pos >= len)
            break;
        struct jdoc *doc = NULL;
        char why[256];
        size_t at = pos;
        struct jval *v = json_parse(&doc, text, len, &pos, why, sizeof why);
        if (!v) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: not a JSON report: %s at byte %zu", path, why,
                     pos);
            json_free(doc);
            return -1;
        }
        struct process p;
        memset(&p, 0, sizeof p);
        p.kind = SOURCE_JSON;
        p.status = "report";
        p.json_mem = doc;
        const char *bad = v->type == J_OBJECT ? json_report(v, &p.report)
                                              : "not a JSON object";
        if (bad) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: %s (the value at byte %zu)", path, bad, at);
            free_json_report(&p.report);
            json_free(doc);
            return -1;
        }
        p.source = strdup(path);
        int rc = fn(&p, ctx);
        free_json_report(&p.report);
        json_free(doc);
        free(p.source);
        if (rc != 0)
            return rc;
        count++;
    }
    if (!count) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: empty: neither a trace nor a JSON report", path);
        return -1;
    }
    return 0;
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
        int rc = load_json(path, text, len, fn, ctx, err);
        if (len)
            munmap(text, len);
        return rc;
    }
    close(fd);
    return load_trace(path, o, fn, ctx, err);
}

/* ---- rendering ---------------------------------------------------------------------- */

char *render_report(const struct st_report *r, int json, size_t *len)
{
    int fd = memfd_create("seektrace-report", MFD_CLOEXEC);
    if (fd < 0)
        tool_bad_input("cannot render a report: %s", strerror(errno));
    static struct st_outbuf out;
    st_out_init(&out, fd);
    if (json)
        st_report_write_json(r, &out);
    else
        st_report_write_text(r, &out);
    if (st_out_flush(&out) != 0)
        tool_bad_input("cannot render a report: %s", strerror(errno));
    off_t size = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)size + 1);
    if (!buf || pread(fd, buf, (size_t)size, 0) != size)
        tool_bad_input("cannot render a report");
    buf[size] = '\0';
    close(fd);
    *len = (size_t)size;
    return buf;
}

void argv_line(const struct st_report *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->argc && n + 1 < size; i++) {
        int k = snprintf(buf + n, size - n, "%s%s", i ? " " : "", r->argv[i]);
        if (k < 0)
            break;
        n += (size_t)k;
    }
    if (n >= size && size > 4)
        memcpy(buf + size - 4, "...", 4);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = '?';
}

void out_write(const char *buf, size_t len)
{
    if (fwrite(buf, 1, len, stdout) != len)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

void out_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vprintf(fmt, ap);
    va_end(ap);
    if (rc < 0)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

static void file_sink(void *f, const char *s, size_t n)
{
    fwrite(s, 1, n, f);
}

void json_str(FILE *f, const char *s)
{
    st_json_write_string(s ? s : "", file_sink, f);
}

size_t size_list_parse(const char *cmd, const char *list, uint64_t *sizes)
{
    char *copy = strdup(list), *save = NULL;
    size_t n = 0;
    if (!copy)
        tool_bad_input("out of memory");
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (st_parse_size(t, &v) != 0 || v == 0 || v > (1ull << 30))
            tool_usage_error(cmd, "--sizes: '%s' is not a size from 1 B to 1 GiB", t);
        if (n == TOOL_MAX_SIZES)
            tool_usage_error(cmd, "--sizes: at most %d sizes", TOOL_MAX_SIZES);
        sizes[n++] = v;
    }
    free(copy);
    if (!n)
        tool_usage_error(cmd, "--sizes needs at least one size");
    return n;
}
