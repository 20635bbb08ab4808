/* export_clickhouse.c — see export_clickhouse.h. The columns are the JSON
 * report's keys (docs/report-json.md) plus run_id, host and pid; their
 * types are docs/clickhouse.sql's.
 *
 * Memory does not grow with the files a run read: each file's rows are
 * written as its trace's footer is decoded (load_opts.each_file), and each
 * table's rows wait in a temporary file until every trace is read. */
#define _GNU_SOURCE 1
#include "export_clickhouse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "labels.h"
#include "tool.h"

/* The tables before runs, in the order their blocks are written. */
enum table { T_PROCESSES, T_FILES, T_STREAMS, T_SITES, T_FINDINGS, T_COUNT };
static const char *const table_names[T_COUNT] = {"processes", "files", "streams", "sites",
                                                 "findings"};

struct chx {
    const char *run_id;
    FILE *rows[T_COUNT]; /* each table's rows (tmpfile) until every trace is read */
    uint64_t nrows;
    /* The run: its root (the earliest process) and its span. */
    uint64_t first_ns, end_ns;
    char command[4096];
    char root_host[256];
    char hosts[4096];
    char labels[ST_LABELS_BYTES];
    size_t labels_len;
    uint64_t processes;
    struct st_counts totals;
};

int clickhouse_database_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64 || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

void clickhouse_run_id(char **paths, size_t n, char id[33])
{
    /* Two 64-bit hashes of each trace, summed: the set's, in any order. */
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        struct st_trace_reader *r = st_trace_open(paths[i], err);
        if (!r)
            tool_bad_input("%s", err);
        const struct st_trace_info *in = st_trace_info(r);
        uint64_t key[3] = {(uint64_t)in->pid, in->start_realtime_ns, in->start_ns};
        const char *host = in->host ? in->host : "";
        uint64_t h1 = fnv(fnv(0xcbf29ce484222325ull, host, strlen(host) + 1), key, sizeof key);
        uint64_t h2 = fnv(fnv(0x84222325cbf29ce4ull, key, sizeof key), host, strlen(host) + 1);
        a += h1 * 0x9e3779b97f4a7c15ull;
        b += h2 ^ (h2 >> 29);
        st_trace_close(r);
    }
    snprintf(id, 33, "%016" PRIx64 "%016" PRIx64, a, b);
}

static void str_field(FILE *f, const char *key, const char *s)
{
    fprintf(f, ",\"%s\":", key);
    json_str(f, s ? s : "");
}

/* The report's counts: every scalar key, and calls as a Nested column. */
static void counts(FILE *f, const struct st_counts *c)
{
#define COUNT_FIELD(name, id) fprintf(f, ",\"" #name "\":%" PRIu64, c->name);
#include "counts_fields.def"
#undef COUNT_FIELD
    const char *sep = "";
    fprintf(f, ",\"calls.name\":[");
    for (int k = 0; k < ST_CALL_COUNT; k++)
        if (c->by_call[k].calls) {
            fprintf(f, "%s\"%s\"", sep, st_call_name((enum st_call)k));
            sep = ",";
        }
    sep = "";
    fprintf(f, "],\"calls.count\":[");
    for (int k = 0; k < ST_CALL_COUNT; k++)
        if (c->by_call[k].calls) {
            fprintf(f, "%s%" PRIu64, sep, c->by_call[k].calls);
            sep = ",";
        }
    fprintf(f, "]");
}

static void labels_nested(FILE *f, char *const *labels, int n)
{
    fprintf(f, ",\"labels.key\":[");
    for (int i = 0; i < n; i++) {
        char key[ST_LABEL_KEY_MAX + 1];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(labels[i], "="), labels[i]);
        fprintf(f, "%s", i ? "," : "");
        json_str(f, key);
    }
    fprintf(f, "],\"labels.value\":[");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s", i ? "," : "");
        json_str(f, labels[i] + strcspn(labels[i], "=") + 1);
    }
    fprintf(f, "]");
}

/* {"run_id":..,"host":..,"pid":.. — every row's start. */
static FILE *row(struct chx *c, enum table t, const struct process *p)
{
    FILE *f = c->rows[t];
    fprintf(f, "{\"run_id\":\"%s\"", c->run_id);
    str_field(f, "host", p->host);
    fprintf(f, ",\"pid\":%ld,\"start_time\":%" PRIu64, p->report.pid,
            p->start_realtime_ns / 1000000000u);
    c->nrows++;
    return f;
}

static void frame(FILE *f, const struct st_report_frame *fr)
{
    str_field(f, "function", fr ? fr->function : NULL);
    str_field(f, "source", fr ? fr->source : NULL);
    fprintf(f, ",\"line\":%d", fr && fr->line > 0 ? fr->line : 0);
    str_field(f, "module", fr ? fr->module : NULL);
    fprintf(f, ",\"offset\":%" PRIu64, fr ? fr->offset : 0);
}

static void process_row(struct chx *c, const struct process *p, const char *cmd)
{
    const struct st_report *r = &p->report;
    FILE *f = row(c, T_PROCESSES, p);
    fprintf(f, ",\"ppid\":%ld", r->ppid);
    str_field(f, "command", cmd);
    fprintf(f, ",\"argv\":[");
    for (int i = 0; i < r->argc; i++) {
        fprintf(f, "%s", i ? "," : "");
        json_str(f, r->argv[i]);
    }
    fprintf(f, "]");
    str_field(f, "exe", p->exe);
    str_field(f, "status", p->status);
    str_field(f, "capture", r->capture);
    str_field(f, "libc_version", r->libc_version);
    fprintf(f, ",\"start_time_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64
               ",\"events_lost\":%" PRIu64 ",\"files\":%zu",
            p->start_realtime_ns, p->duration_ns,
            p->events_lost, r->nfiles + r->nfiles_other);
    labels_nested(f, p->labels, p->nlabels);
    counts(f, &r->totals);
    fprintf(f, "}\n");
}

/* One file's rows, files, streams and sites, as the file is shown. */
static void file_rows(const struct process *p, const struct st_report_file *rf, void *vctx)
{
    struct chx *c = vctx;
    FILE *f = row(c, T_FILES, p);
    str_field(f, "path", rf->path);
    fprintf(f, ",\"other_files\":0,\"streams\":%zu", rf->nstreams);
    counts(f, &rf->counts);
    fprintf(f, "}\n");
    for (size_t k = 0; k < rf->nstreams; k++) {
        const struct st_report_stream *s = &rf->streams[k];
        f = row(c, T_STREAMS, p);
        str_field(f, "path", rf->path);
        fprintf(f, ",\"fd\":%d,\"buffer_size\":%" PRIu64 ",\"requested_buffer_size\":%" PRIu64,
                s->fd, s->buffer_size, s->requested_buffer_size);
        str_field(f, "buffer_mode", st_buf_mode_name(s->mode));
        str_field(f, "buffer_origin", st_buf_origin_name(s->origin));
        str_field(f, "caveat", s->caveat);
        counts(f, &s->counts);
        fprintf(f, "}\n");
    }
    for (size_t k = 0; k < rf->nsites; k++) {
        const struct st_report_site *s = &rf->sites[k];
        f = row(c, T_SITES, p);
        str_field(f, "path", rf->path);
        frame(f, s->nframes > 0 ? &s->frames[0] : NULL);
        fprintf(f, ",\"frames\":[");
        for (int j = 0; j < s->nframes; j++) {
            char buf[1024];
            fprintf(f, "%s", j ? "," : "");
            json_str(f, st_frame_describe(&s->frames[j], buf, sizeof buf));
        }
        fprintf(f, "]");
        counts(f, &s->counts);
        fprintf(f, "}\n");
    }
}

static void finding_rows(struct chx *c, const struct process *p)
{
    static struct st_finding found[ST_REPORT_JSON_FINDINGS];
    size_t n = st_find_problems(&p->report, found, ST_REPORT_JSON_FINDINGS);
    for (size_t i = 0; i < n; i++) {
        FILE *f = row(c, T_FINDINGS, p);
        str_field(f, "rule", found[i].rule);
        str_field(f, "path", found[i].file->path);
        fprintf(f, ",\"cost\":%" PRIu64, found[i].cost);
        str_field(f, "what", found[i].what);
        str_field(f, "change", found[i].change);
        frame(f, found[i].site && found[i].site->nframes > 0 ? &found[i].site->frames[0] : NULL);
        fprintf(f, "}\n");
    }
}

static int on_process(struct process *p, void *vctx)
{
    struct chx *c = vctx;
    char cmd[4096];
    argv_line(&p->report, cmd, sizeof cmd);
    process_row(c, p, cmd);
    finding_rows(c, p);
    c->processes++;
    st_counts_add(&c->totals, &p->report.totals);
    if (p->host)
        list_add_once(c->hosts, sizeof c->hosts, p->host, "\n");
    if (!c->first_ns || p->start_realtime_ns < c->first_ns) {
        c->first_ns = p->start_realtime_ns;
        snprintf(c->command, sizeof c->command, "%s", cmd);
        snprintf(c->root_host, sizeof c->root_host, "%s", p->host ? p->host : "");
    }
    if (p->start_realtime_ns + p->duration_ns > c->end_ns)
        c->end_ns = p->start_realtime_ns + p->duration_ns;
    st_labels_merge(c->labels, sizeof c->labels, &c->labels_len, p->labels, p->nlabels);
    return 0;
}

static void run_row(FILE *out, struct chx *c)
{
    fprintf(out, "{\"run_id\":\"%s\"", c->run_id);
    str_field(out, "host", c->root_host);
    fprintf(out, ",\"hosts\":[");
    const char *sep = "";
    for (char *h = c->hosts, *next; *h; h = next) {
        next = h + strcspn(h, "\n");
        char one[256];
        snprintf(one, sizeof one, "%.*s", (int)(next - h), h);
        fprintf(out, "%s", sep);
        json_str(out, one);
        sep = ",";
        next += *next == '\n';
    }
    fprintf(out, "]");
    str_field(out, "command", c->command);
    fprintf(out, ",\"start_time\":%" PRIu64 ",\"start_time_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64
                 ",\"processes\":%" PRIu64,
            c->first_ns / 1000000000u, c->first_ns, c->end_ns - c->first_ns, c->processes);
    char *labels[ST_LABELS_MAX];
    int n = 0;
    for (size_t k = 0; k < c->labels_len && n < ST_LABELS_MAX; k += strlen(c->labels + k) + 1)
        labels[n++] = c->labels + k;
    labels_nested(out, labels, n);
    counts(out, &c->totals);
    fprintf(out, "}\n");
    c->nrows++;
}

/* A table's rows, from its temporary file to out. */
static void copy_rows(FILE *f, FILE *out)
{
    char buf[1 << 16];
    size_t n;
    rewind(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, out);
    if (ferror(f))
        tool_bad_input("cannot read the rows back from a temporary file");
}

uint64_t clickhouse_export(FILE *out, char **paths, size_t n, const char *db,
                           const char *suffix)
{
    char id[33];
    clickhouse_run_id(paths, n, id);
    struct chx *c = calloc(1, sizeof *c);
    if (!c)
        tool_bad_input("out of memory");
    c->run_id = id;
    for (int t = 0; t < T_COUNT; t++)
        if (!(c->rows[t] = tmpfile()))
            tool_bad_input("cannot make a temporary file for the rows: %s", strerror(errno));
    /* Each process keeps only the rows its findings come from; every file
     * has had its rows written when the process is. */
    struct st_footer_rows kept = {.files = 1, .findings = ST_REPORT_JSON_FINDINGS};
    struct load_opts lo = {.want_sites = 1, .rows = &kept, .each_file = file_rows};
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_process, c, err) != 0)
            tool_bad_input("%s", err);
        progress_step(i + 1, 0);
    }
    for (int t = 0; t < T_COUNT; t++) {
        FILE *f = c->rows[t];
        long len = ftell(f);
        if (len < 0 || fflush(f) != 0 || ferror(f))
            tool_bad_input("cannot write the rows to a temporary file");
        if (len) {
            fprintf(out, "INSERT INTO %s.%s%s FORMAT JSONEachRow\n", db, table_names[t], suffix);
            copy_rows(f, out);
            fprintf(out, "\n");
        }
        fclose(f);
    }
    uint64_t events = export_events_clickhouse(out, paths, n, db, suffix, id);
    fprintf(out, "INSERT INTO %s.runs%s FORMAT JSONEachRow\n", db, suffix);
    run_row(out, c);
    fprintf(out, "\n");
    uint64_t rows = c->nrows + events;
    free(c);
    return rows;
}
