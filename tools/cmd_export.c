/* cmd_export.c — seektrace export: the events of traces as Chrome Trace
 * Event JSON (Perfetto, chrome://tracing), CSV or JSON lines.
 *
 * Streaming, two passes per trace: the first collects the definitions
 * (files, streams, sites, cells — a use may come before its definition in
 * file order when threads interleave), the second writes the events. Memory
 * holds the definitions, never the events. */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_clickhouse.h"
#include "export_select.h"
#include "tool.h"

static const char usage[] =
    "usage: seektrace export --format chrome|csv|jsonl|clickhouse TRACE|DIR ...\n"
    "\n"
    "Writes every recorded event to stdout.\n"
    "  chrome  Chrome Trace Event JSON, for Perfetto (ui.perfetto.dev) and\n"
    "          chrome://tracing: a track per thread of each process; each stdio call\n"
    "          a slice, the syscalls glibc made inside it nested under it\n"
    "  csv     one event per line with a header row, for DuckDB, pandas, Spark\n"
    "  jsonl   one JSON object per event per line\n"
    "  clickhouse  the traces as one run's rows for ClickHouse (docs/clickhouse.sql,\n"
    "          docs/fleet.md): per table an INSERT ... FORMAT JSONEachRow line, its\n"
    "          rows, an empty line; tables processes, files, streams, sites, findings,\n"
    "          events, then runs. The run id comes from the traces' hosts, pids and\n"
    "          start times: the same traces give the same id (seektrace load)\n"
    "Columns (csv; the same keys in jsonl, absent when empty): pid, tid, time_ns (since\n"
    "the process's trace began), dur_ns, event (call, end, count, read, lseek, fstat,\n"
    "write, deliver, seek, buffer, close, mark, lost), call (the stdio or POSIX call it\n"
    "belongs to), path, fd, offset, bytes (read/write result; lseek: the new offset),\n"
    "requested, delivered, reread, kept, site, label (a mark's, seektrace_mark).\n"
    "jsonl also has the stream operations whatif replays: event \"op\", op (open,\n"
    "size, fread, getc_run, getc_eof, fgets, getdelim, ungetc, fseek, ftell, rewind,\n"
    "fflush, clearerr, exit, other) and its fields (n, len, delim, offset, whence, ...).\n"
    "\n"
    "  --format F   chrome, csv, jsonl or clickhouse (required)\n"
    "  --database DB  clickhouse: the tables' database (default seektrace)\n"
    "  --pid N      only the process N (repeatable)\n"
    "  --file GLOB  only events on files whose path matches GLOB ('*' matches '/'\n"
    "               too; repeatable); marks are kept, and a call's end goes with it\n"
    "  --from T, --to T  only events from T and before T, counted from the start\n"
    "               of the earliest trace given (1.5, 1.5s, 250ms, 40us)\n"
    "  --aggregate P  chrome: instead of each call and syscall, one slice \"I/O\"\n"
    "               per thread and period P (10ms, 1s) with their sums: calls,\n"
    "               read_syscalls, kernel_read_bytes, delivered_bytes,\n"
    "               lseek_syscalls, write_syscalls, kernel_write_bytes, and\n"
    "               top_file, the file of its largest read or write\n"
    "  --keep-going skip traces that cannot be read (corrupt, truncated): each is\n"
    "               named on stderr, and in the output (chrome: otherData.skipped;\n"
    "               jsonl: an event \"skipped\"); exit 3\n"
    "  --help       this text\n"
    "Options may come before or after the traces; '--' ends them.\n"
    "Exit status: 0 success, 2 bad usage or a trace that cannot be read (with\n"
    "--keep-going: when none can), 3 --keep-going skipped some.\n";

enum fmt { CHROME, CSV, JSONL, CLICKHOUSE };

struct tstate {
    uint32_t tid;
    int depth;
    int named;
    uint64_t last_ns; /* end of its last event */
    int raw_depth;    /* calls open in the trace, selected or not */
    uint64_t kept;    /* bit d: the call open at depth d was selected */
    struct export_bucket bucket; /* --aggregate */
};

struct ex {
    enum fmt fmt;
    struct export_select sel;
    FILE *out;
    long pid;
    uint64_t base_ns;    /* chrome: the earliest trace start */
    uint64_t trace_ns;   /* csv/jsonl: this trace's start */
    struct st_trace_model *defs;
    void *sym;
    char **site_names;   /* by site id */
    size_t nsite_names;
    struct tstate *threads;
    size_t nthreads, capthreads;
    int first_event;
    uint64_t events;
    /* clickhouse: what starts each row ("run_id":..,"host":..,) and the
     * rows written */
    const char *run_id;
    char *row_prefix;
    uint64_t rows;
};

static struct tstate *thread_of(struct ex *x, uint32_t tid)
{
    for (size_t i = 0; i < x->nthreads; i++)
        if (x->threads[i].tid == tid)
            return &x->threads[i];
    if (x->nthreads == x->capthreads) {
        x->capthreads = x->capthreads ? x->capthreads * 2 : 16;
        x->threads = realloc(x->threads, x->capthreads * sizeof *x->threads);
        if (!x->threads)
            tool_bad_input("out of memory");
    }
    struct tstate *t = &x->threads[x->nthreads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

/* "main (fseek2006.c:101)" for a site id, symbolized once. */
static const char *site_name(struct ex *x, uint32_t site, uint64_t pc)
{
    if (!site || !pc)
        return NULL;
    if (site >= x->nsite_names) {
        size_t n = site + 64;
        char **v = realloc(x->site_names, n * sizeof *v);
        if (!v)
            tool_bad_input("out of memory");
        memset(v + x->nsite_names, 0, (n - x->nsite_names) * sizeof *v);
        x->site_names = v;
        x->nsite_names = n;
    }
    if (!x->site_names[site]) {
        struct st_report_frame f;
        memset(&f, 0, sizeof f);
        const struct st_trace_module *m = st_trace_model_module_of(x->defs, pc);
        if (m) {
            f.module = m->path;
            f.offset = pc - (m->start - m->file_offset);
        } else {
            f.offset = pc;
        }
        symbolize_offline(x->sym, m, pc, &f);
        char buf[512];
        x->site_names[site] = strdup(st_frame_describe(&f, buf, sizeof buf));
    }
    return x->site_names[site];
}

static void csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* What an event is about, from the definitions. */
struct about {
    const char *path;
    int fd;
    const char *site;
};

static struct about about_cell(struct ex *x, uint32_t cell)
{
    struct about a = {NULL, -1, NULL};
    uint32_t site;
    uint64_t pc;
    if (st_trace_model_cell(x->defs, cell, &a.path, &a.fd, &site, &pc))
        a.site = site_name(x, site, pc);
    return a;
}

static double us(struct ex *x, uint64_t ns)
{
    return ns >= x->base_ns ? (double)(ns - x->base_ns) / 1000.0 : 0.0;
}

static void chrome_args_start(struct ex *x, const struct about *a, const char *call)
{
    FILE *f = x->out;
    fprintf(f, ",\"args\":{");
    int comma = 0;
    if (a->path) {
        fprintf(f, "\"path\":");
        json_str(f, a->path);
        comma = 1;
    }
    if (a->fd >= 0) {
        fprintf(f, "%s\"fd\":%d", comma ? "," : "", a->fd);
        comma = 1;
    }
    if (a->site) {
        fprintf(f, "%s\"site\":", comma ? "," : "");
        json_str(f, a->site);
        comma = 1;
    }
    if (call) {
        fprintf(f, "%s\"call\":", comma ? "," : "");
        json_str(f, call);
        comma = 1;
    }
    if (!comma)
        fprintf(f, "\"_\":0");
}

/* A syscall (an event with a duration, events.def) as a complete event. */
static void chrome_syscall(struct ex *x, const struct st_trace_event *ev, const char *call)
{
    FILE *f = x->out;
    struct about a = about_cell(x, ev->target);
    fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"syscall\",\"ph\":\"X\",\"ts\":%.3f,"
               "\"dur\":%.3f,\"pid\":%ld,\"tid\":%" PRIu32,
            st_trace_kind_name(ev->kind), us(x, ev->time_ns), (double)ev->dur_ns / 1000.0, x->pid,
            ev->tid);
    chrome_args_start(x, &a, call);
    if (ev->kind == ST_EV_READ || ev->kind == ST_EV_READ_REREAD)
        fprintf(f, ",\"offset\":%" PRId64 ",\"bytes\":%" PRId64 ",\"reread\":%" PRIu64,
                ev->offset, ev->result, ev->reread);
    else if (ev->kind == ST_EV_WRITE_AT)
        fprintf(f, ",\"offset\":%" PRId64 ",\"bytes\":%" PRId64, ev->offset, ev->result);
    else if (ev->kind == ST_EV_LSEEK || ev->kind == ST_EV_WRITE)
        fprintf(f, ",\"%s\":%" PRId64, ev->kind == ST_EV_LSEEK ? "offset" : "bytes", ev->result);
    fprintf(f, "}}");
}

static void chrome_event(struct ex *x, const struct st_trace_event *ev)
{
    FILE *f = x->out;
    struct tstate *t = thread_of(x, ev->tid);
    if (!t->named) {
        t->named = 1;
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%" PRIu32
                   ",\"args\":{\"name\":\"thread %" PRIu32 "\"}}",
                x->pid, ev->tid, ev->tid);
    }
    const char *call = ev->call >= 0 ? st_call_name((enum st_call)ev->call) : NULL;
    if (ev->time_ns + ev->dur_ns > t->last_ns)
        t->last_ns = ev->time_ns + ev->dur_ns;
    switch (ev->kind) {
    case ST_EV_CALL: {
        struct about a = ev->counted ? about_cell(x, ev->target) : (struct about){NULL, -1, NULL};
        t->depth++;
        /* "other" (stdio work outside any interposed call, as libc's own nss
         * reading /etc/nsswitch.conf) names no call a person would look for. */
        fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"B\",\"ts\":%.3f,\"pid\":%ld,"
                   "\"tid\":%" PRIu32,
                ev->call == ST_CALL_OTHER ? "stdio, no interposed call" : call,
                ev->counted ? "call" : "stdio-internal", us(x, ev->time_ns), x->pid, ev->tid);
        chrome_args_start(x, &a, NULL);
        fprintf(f, "}}");
        break;
    }
    case ST_EV_END:
        if (t->depth <= 0)
            break; /* its call began before the trace did */
        t->depth--;
        fprintf(f, ",\n{\"ph\":\"E\",\"ts\":%.3f,\"pid\":%ld,\"tid\":%" PRIu32 "}",
                us(x, ev->time_ns), x->pid, ev->tid);
        break;
    case ST_EV_MARK:
        fprintf(f, ",\n{\"name\":");
        {
            char *label = strndup(ev->str, ev->str_len);
            json_str(f, label ? label : "");
            free(label);
        }
        fprintf(f, ",\"cat\":\"mark\",\"ph\":\"i\",\"s\":\"p\",\"ts\":%.3f,\"pid\":%ld,"
                   "\"tid\":%" PRIu32 "}",
                us(x, ev->time_ns), x->pid, ev->tid);
        break;
    default:
        if (st_trace_kind(ev->kind)->dur)
            chrome_syscall(x, ev, call);
        break;
    }
}

/* A row of its own in CSV and JSON lines: what the process did
 * (events.def's role), not a definition or decoding context. */
static int exported(unsigned kind)
{
    const struct st_trace_kind_info *k = st_trace_kind(kind);
    return k && k->role == ST_EV_HAPPENS;
}

/* A stream operation, JSON lines only: what whatif replays. */
static void row_op(struct ex *x, const struct st_trace_event *ev)
{
    FILE *f = x->out;
    struct about a = {NULL, -1, NULL};
    st_trace_model_stream(x->defs, ev->id, &a.path, &a.fd);
    fprintf(f, "{\"pid\":%ld,\"tid\":%" PRIu32 ",\"event\":\"op\",\"op\":\"%s\"", x->pid,
            ev->tid, st_trace_op_name(ev->op));
    if (a.path) {
        fprintf(f, ",\"path\":");
        json_str(f, a.path);
    }
    if (a.fd >= 0)
        fprintf(f, ",\"fd\":%d", a.fd);
    switch (ev->op) {
    case ST_OP_OPEN:
        fprintf(f, ",\"offset\":%" PRId64 ",\"read_only\":%s", ev->offset,
                ev->op_flag ? "true" : "false");
        break;
    case ST_OP_SIZE:
        fprintf(f, ",\"size\":%" PRIu64 ",\"regular\":%s", ev->n, ev->op_flag ? "true" : "false");
        break;
    case ST_OP_FREAD: case ST_OP_GETC_RUN:
        fprintf(f, ",\"n\":%" PRIu64, ev->n);
        break;
    case ST_OP_FGETS:
        fprintf(f, ",\"n\":%" PRIu64 ",\"len\":%" PRId64 ",\"delim\":%s", ev->n, ev->result,
                ev->op_flag ? "true" : "false");
        break;
    case ST_OP_GETDELIM:
        fprintf(f, ",\"len\":%" PRIu64 ",\"delim\":%s", ev->n, ev->op_flag ? "true" : "false");
        break;
    case ST_OP_UNGETC:
        fprintf(f, ",\"in_place\":%s", ev->op_flag ? "true" : "false");
        break;
    case ST_OP_FSEEK:
        fprintf(f, ",\"offset\":%" PRId64 ",\"whence\":%u", ev->offset, ev->whence);
        break;
    case ST_OP_OTHER:
        if (ev->call >= 0)
            fprintf(f, ",\"call\":\"%s\"", st_call_name((enum st_call)ev->call));
        /* A writing call whose last byte was a newline (format 4.3). */
        if (ev->op_flag)
            fputs(",\"ends_line\":true", f);
        break;
    }
    fputs("}\n", f);
}

static void row_event(struct ex *x, const struct st_trace_event *ev)
{
    if (ev->kind == ST_EV_OP && x->fmt == JSONL)
        row_op(x, ev);
    if (!exported(ev->kind))
        return;
    FILE *f = x->out;
    struct about a = {NULL, -1, NULL};
    if (ev->kind == ST_EV_BUF || ev->kind == ST_EV_CLOSE)
        st_trace_model_stream(x->defs, ev->id, &a.path, &a.fd);
    else if (ev->kind != ST_EV_END && ev->kind != ST_EV_MARK && ev->kind != ST_EV_LOST &&
             !(ev->kind == ST_EV_CALL && !ev->counted))
        a = about_cell(x, ev->target);
    const char *call = ev->call >= 0 ? st_call_name((enum st_call)ev->call) : NULL;
    uint64_t t = ev->time_ns >= x->trace_ns ? ev->time_ns - x->trace_ns : 0;
    const struct st_trace_kind_info *k = st_trace_kind(ev->kind);
    int is_read = ev->kind == ST_EV_READ || ev->kind == ST_EV_READ_REREAD;
    int has_offset = (is_read || ev->kind == ST_EV_WRITE_AT) && ev->offset >= 0;
    char *label = ev->kind == ST_EV_MARK ? strndup(ev->str, ev->str_len) : NULL;
    if (x->fmt == CSV) {
        fprintf(f, "%ld,%" PRIu32 ",", x->pid, ev->tid);
        if (k->timed)
            fprintf(f, "%" PRIu64, t);
        fputc(',', f);
        if (k->dur)
            fprintf(f, "%" PRIu64, ev->dur_ns);
        fprintf(f, ",%s,", k->name);
        csv_field(f, call);
        fputc(',', f);
        csv_field(f, a.path);
        fputc(',', f);
        if (a.fd >= 0)
            fprintf(f, "%d", a.fd);
        fputc(',', f);
        if (has_offset)
            fprintf(f, "%" PRId64, ev->offset);
        fputc(',', f);
        if (k->bytes)
            fprintf(f, "%" PRId64, ev->result);
        else if (ev->kind == ST_EV_BUF)
            fprintf(f, "%" PRIu64, ev->buffer_size);
        else if (ev->kind == ST_EV_LOST || ev->kind == ST_EV_WRITTEN)
            fprintf(f, "%" PRIu64, ev->n);
        fputc(',', f);
        if (ev->kind == ST_EV_DELIVER)
            fprintf(f, "%" PRIu64 ",%" PRIu64, ev->requested, ev->delivered);
        else
            fputc(',', f);
        fputc(',', f);
        if (is_read || ev->kind == ST_EV_REREAD)
            fprintf(f, "%" PRIu64, ev->reread);
        fputc(',', f);
        if (ev->kind == ST_EV_SEEK)
            fprintf(f, "%d", ev->kept);
        fputc(',', f);
        csv_field(f, a.site);
        fputc(',', f);
        csv_field(f, label);
        fputc('\n', f);
    } else {
        fprintf(f, "{%s\"pid\":%ld,\"tid\":%" PRIu32, x->row_prefix ? x->row_prefix : "", x->pid,
                ev->tid);
        x->rows++;
        if (k->timed)
            fprintf(f, ",\"time_ns\":%" PRIu64, t);
        if (k->dur)
            fprintf(f, ",\"dur_ns\":%" PRIu64, ev->dur_ns);
        fprintf(f, ",\"event\":\"%s\"", k->name);
        if (call)
            fprintf(f, ",\"call\":\"%s\"", call);
        if (ev->kind == ST_EV_CALL)
            fprintf(f, ",\"counted\":%s", ev->counted ? "true" : "false");
        if (a.path) {
            fprintf(f, ",\"path\":");
            json_str(f, a.path);
        }
        if (label) {
            fprintf(f, ",\"label\":");
            json_str(f, label);
        }
        /* ClickHouse reads a missing key as 0: a row says -1 itself. */
        if (a.fd >= 0 || x->fmt == CLICKHOUSE)
            fprintf(f, ",\"fd\":%d", a.fd);
        if (has_offset || x->fmt == CLICKHOUSE)
            fprintf(f, ",\"offset\":%" PRId64, has_offset ? ev->offset : -1);
        if (k->bytes)
            fprintf(f, ",\"bytes\":%" PRId64, ev->result);
        if (ev->kind == ST_EV_BUF)
            fprintf(f, ",\"buffer_size\":%" PRIu64, ev->buffer_size);
        if (ev->kind == ST_EV_LOST)
            fprintf(f, ",\"lost\":%" PRIu64, ev->n);
        if (ev->kind == ST_EV_WRITTEN)
            fprintf(f, ",\"written\":%" PRIu64, ev->n);
        if (ev->kind == ST_EV_DELIVER)
            fprintf(f, ",\"requested\":%" PRIu64 ",\"delivered\":%" PRIu64, ev->requested,
                    ev->delivered);
        if (is_read || ev->kind == ST_EV_REREAD)
            fprintf(f, ",\"reread\":%" PRIu64, ev->reread);
        if (ev->kind == ST_EV_SEEK)
            fprintf(f, ",\"kept\":%s,\"resync\":%" PRIu64, ev->kept ? "true" : "false", ev->resync);
        if (a.site) {
            fprintf(f, ",\"site\":");
            json_str(f, a.site);
        }
        fprintf(f, "}\n");
    }
    free(label);
}

/* The file an event is about, or NULL. */
static const char *event_path(struct ex *x, const struct st_trace_event *ev)
{
    const char *path = NULL;
    int fd;
    if (ev->kind == ST_EV_BUF || ev->kind == ST_EV_CLOSE || ev->kind == ST_EV_OP)
        st_trace_model_stream(x->defs, ev->id, &path, &fd);
    else if (ev->target && !(ev->kind == ST_EV_CALL && !ev->counted))
        path = about_cell(x, ev->target).path;
    return path;
}

/* Whether --file, --from and --to keep ev; a call's end goes with its
 * beginning, so that every slice written is closed. */
static int selected(struct ex *x, const struct st_trace_event *ev)
{
    const struct export_select *s = &x->sel;
    if (!s->nglobs && !s->from_ns && !s->to_set)
        return 1;
    struct tstate *t = thread_of(x, ev->tid);
    if (ev->kind == ST_EV_END) {
        if (t->raw_depth <= 0)
            return 1; /* its call began before the trace did */
        t->raw_depth--;
        return t->raw_depth >= 64 || ((t->kept >> (unsigned)t->raw_depth) & 1);
    }
    uint64_t rel = ev->time_ns >= x->base_ns ? ev->time_ns - x->base_ns : 0;
    int keep = export_select_time(s, rel);
    if (keep && s->nglobs && ev->kind != ST_EV_MARK && ev->kind != ST_EV_LOST)
        keep = export_select_path(s, event_path(x, ev));
    if (ev->kind == ST_EV_CALL) {
        if (t->raw_depth >= 0 && t->raw_depth < 64) {
            uint64_t bit = 1ull << (unsigned)t->raw_depth;
            t->kept = keep ? t->kept | bit : t->kept & ~bit;
        }
        t->raw_depth++;
    }
    return keep;
}

/* --aggregate: ev into its thread's bucket. */
static void aggregate(struct ex *x, const struct st_trace_event *ev)
{
    struct tstate *t = thread_of(x, ev->tid);
    if (!t->named) {
        t->named = 1;
        fprintf(x->out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%" PRIu32
                        ",\"args\":{\"name\":\"thread %" PRIu32 "\"}}",
                x->pid, ev->tid, ev->tid);
    }
    if (st_trace_kind(ev->kind)->role != ST_EV_HAPPENS)
        return;
    uint64_t rel = ev->time_ns >= x->base_ns ? ev->time_ns - x->base_ns : 0;
    export_bucket_add(&t->bucket, &x->sel, x->out, x->pid, ev->tid, rel, ev, event_path(x, ev));
}

/* Exports one trace; returns 0, or -1 with err when it cannot be read.
 * Pass 1 reads the whole trace before anything of it is written, so a
 * damaged trace leaves nothing of itself in the output. */
static int export_trace(struct ex *x, const char *path, char err[ST_TRACE_ERROR_MAX])
{
    struct st_trace_event ev;
    int k;
    /* Pass 1: definitions. */
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r)
        return -1;
    x->defs = st_trace_model_new();
    if (!x->defs)
        tool_bad_input("out of memory");
    while ((k = st_trace_next(r, &ev, err)) == 1)
        if (st_trace_kind(ev.kind)->role == ST_EV_DEFINES)
            if (st_trace_model_apply(x->defs, &ev) != 0)
                tool_bad_input("out of memory");
    if (k < 0) {
        st_trace_close(r);
        st_trace_model_free(x->defs);
        x->defs = NULL;
        return -1;
    }
    const struct st_trace_info *in = st_trace_info(r);
    x->pid = in->pid;
    x->trace_ns = in->start_ns;
    if (x->fmt == CLICKHOUSE) {
        free(x->row_prefix);
        char *host = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&host, &len);
        if (!m)
            tool_bad_input("out of memory");
        json_str(m, in->host ? in->host : "");
        fclose(m);
        if (asprintf(&x->row_prefix, "\"run_id\":\"%s\",\"host\":%s,", x->run_id, host) < 0)
            tool_bad_input("out of memory");
        free(host);
    }
    symbolizer_for_trace(x->sym, in->start_realtime_ns);
    x->nthreads = 0;
    if (!export_select_pid(&x->sel, x->pid)) {
        st_trace_close(r);
        st_trace_model_free(x->defs);
        x->defs = NULL;
        return 0;
    }
    if (x->fmt == CHROME) {
        char cmd[200];
        struct st_report tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.argc = in->argc;
        tmp.argv = (const char *const *)in->argv;
        argv_line(&tmp, cmd, sizeof cmd);
        fprintf(x->out, "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":0,"
                        "\"args\":{\"name\":",
                x->first_event ? "" : ",", x->pid);
        char name[256];
        snprintf(name, sizeof name, "%s (pid %ld)", cmd, x->pid);
        json_str(x->out, name);
        fprintf(x->out, "}}");
        x->first_event = 0;
    }
    st_trace_close(r);
    /* Pass 2: events. */
    if (!(r = st_trace_open(path, err)))
        tool_bad_input("%s", err);
    while ((k = st_trace_next(r, &ev, err)) == 1) {
        x->events++;
        if (!selected(x, &ev))
            continue;
        if (x->sel.bucket_ns)
            aggregate(x, &ev);
        else if (x->fmt == CHROME)
            chrome_event(x, &ev);
        else
            row_event(x, &ev);
        if ((x->events & 0xfffff) == 0)
            progress_step(0, st_trace_bytes_read(r));
    }
    if (k < 0)
        tool_bad_input("%s", err);
    /* Calls still open when the trace ended (a crash inside one): closed at
     * their thread's last event so that every slice has an end. */
    for (size_t t = 0; t < x->nthreads; t++)
        export_bucket_flush(&x->threads[t].bucket, &x->sel, x->out, x->pid, x->threads[t].tid);
    if (x->fmt == CHROME)
        for (size_t t = 0; t < x->nthreads; t++)
            while (x->threads[t].depth > 0) {
                x->threads[t].depth--;
                fprintf(x->out, ",\n{\"ph\":\"E\",\"ts\":%.3f,\"pid\":%ld,\"tid\":%" PRIu32 "}",
                        us(x, x->threads[t].last_ns), x->pid, x->threads[t].tid);
            }
    st_trace_close(r);
    st_trace_model_free(x->defs);
    x->defs = NULL;
    for (size_t i = 0; i < x->nsite_names; i++)
        free(x->site_names[i]);
    free(x->site_names);
    x->site_names = NULL;
    x->nsite_names = 0;
    return 0;
}

uint64_t export_events_clickhouse(FILE *out, char **paths, size_t n, const char *db,
                                  const char *suffix, const char *run_id)
{
    struct ex x;
    memset(&x, 0, sizeof x);
    x.fmt = CLICKHOUSE;
    x.out = out;
    x.run_id = run_id;
    x.sym = symbolizer_shared();
    fprintf(out, "INSERT INTO %s.events%s FORMAT JSONEachRow\n", db, suffix);
    for (size_t k = 0; k < n; k++) {
        char err[ST_TRACE_ERROR_MAX];
        if (export_trace(&x, paths[k], err) != 0)
            tool_bad_input("%s", err);
    }
    fprintf(out, "\n");
    free(x.threads);
    free(x.row_prefix);
    return x.rows;
}

int cmd_export(int argc, char **argv)
{
    struct ex x;
    memset(&x, 0, sizeof x);
    const char *format = NULL, *database = "seektrace";
    int keep_going = 0;
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    if (!pos)
        tool_bad_input("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            free(pos);
            export_select_free(&x.sel);
            return 0;
        } else if (opt_value("export", argc, argv, &i, "--format", &v)) {
            format = v;
        } else if (opt_value("export", argc, argv, &i, "--database", &v)) {
            database = v;
        } else if (strcmp(a, "--keep-going") == 0) {
            keep_going = 1;
        } else if (export_select_parse(&x.sel, argc, argv, &i)) {
            continue;
        } else {
            opt_positional("export", argc, argv, &i, pos, &npos);
        }
    }
    if (!format)
        tool_usage_error("export", "--format chrome|csv|jsonl|clickhouse is required");
    if (strcmp(format, "chrome") == 0)
        x.fmt = CHROME;
    else if (strcmp(format, "csv") == 0)
        x.fmt = CSV;
    else if (strcmp(format, "jsonl") == 0)
        x.fmt = JSONL;
    else if (strcmp(format, "clickhouse") == 0)
        x.fmt = CLICKHOUSE;
    else
        tool_usage_error("export", "--format takes chrome, csv, jsonl or clickhouse, not '%s'",
                         format);
    if (!npos)
        tool_usage_error("export", "no trace or directory given");
    if (x.sel.bucket_ns && x.fmt != CHROME)
        tool_usage_error("export", "--aggregate is for --format chrome");
    if (x.fmt == CLICKHOUSE && (keep_going || x.sel.npids || x.sel.nglobs || x.sel.bucket_ns ||
                                x.sel.from_ns || x.sel.to_set))
        tool_usage_error("export", "--format clickhouse exports whole runs: no selection, "
                                   "no --keep-going");
    if (!clickhouse_database_ok(database))
        tool_usage_error("export", "--database takes a name of A-Z a-z 0-9 _, not '%s'", database);
    struct inputs in;
    inputs_collect(pos, npos, &in);
    free(pos);
    static char buf[1 << 20];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    if (x.fmt == CLICKHOUSE) {
        clickhouse_export(stdout, in.paths, in.n, database, "");
        inputs_free(&in);
        export_select_free(&x.sel);
        if (fflush(stdout) != 0 || ferror(stdout))
            tool_bad_input("cannot write the output");
        return 0;
    }
    x.out = stdout;
    x.sym = symbolizer_shared();
    x.first_event = 1;
    /* Chrome: one time base for all processes, so a tree lines up. */
    x.base_ns = UINT64_MAX;
    struct skipped skipped = {0};
    for (size_t k = 0; k < in.n; k++) {
        char err[ST_TRACE_ERROR_MAX];
        struct st_trace_reader *r = st_trace_open(in.paths[k], err);
        if (!r && !keep_going)
            tool_bad_input("%s", err);
        if (r && st_trace_info(r)->start_ns < x.base_ns)
            x.base_ns = st_trace_info(r)->start_ns;
        st_trace_close(r);
    }
    if (x.fmt == CHROME)
        fprintf(stdout, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    else if (x.fmt == CSV)
        fprintf(stdout, "pid,tid,time_ns,dur_ns,event,call,path,fd,offset,bytes,requested,"
                        "delivered,reread,kept,site,label\n");
    progress_start("exporting", in.n);
    for (size_t k = 0; k < in.n; k++) {
        char err[ST_TRACE_ERROR_MAX];
        if (export_trace(&x, in.paths[k], err) == 0)
            continue;
        if (!keep_going)
            tool_bad_input("%s", err);
        skipped_add(&skipped, in.paths[k], err);
        if (x.fmt == JSONL) {
            fprintf(stdout, "{\"event\":\"skipped\",\"source\":");
            json_str(stdout, in.paths[k]);
            fprintf(stdout, ",\"error\":");
            json_str(stdout, err);
            fprintf(stdout, "}\n");
        }
    }
    progress_end();
    if (in.n && skipped.n == in.n)
        tool_bad_input("none of the %zu traces could be read", in.n);
    if (x.fmt == CHROME) {
        /* After the events: only then is it known what was skipped. */
        fprintf(stdout, "\n],\"otherData\":{\"generator\":\"seektrace\"");
        if (skipped.n) {
            fprintf(stdout, ",\"skipped\":[");
            skipped_json(stdout, &skipped);
            fprintf(stdout, "]");
        }
        fprintf(stdout, "}}\n");
    }
    free(x.threads);
    export_select_free(&x.sel);
    inputs_free(&in);
    if (fflush(stdout) != 0 || ferror(stdout))
        tool_bad_input("cannot write the output");
    int rc = skipped.n ? EXIT_SKIPPED : 0;
    skipped_free(&skipped);
    return rc;
}
