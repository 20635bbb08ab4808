/* cmd_report.c — seektrace report: the report of one or many processes.
 *
 * One process: exactly the report it printed at exit (its footer), or, for
 * a trace the process never finished, the same report rebuilt from the
 * events. Several: a line per process, then their accounts merged by file.
 * Traces are read one at a time: memory holds the merged accounts and a
 * line per process, never all traces at once. */
#define _GNU_SOURCE 1
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "labels.h"
#include "report_cli.h"
#include "tool.h"
#include "trace_codec.h"
#include "units.h"

static const char usage[] =
    "usage: seektrace report [OPTIONS] TRACE|DIR|REPORT.json ...\n"
    "\n"
    "Prints the report of the traced processes: one process's report exactly as it\n"
    "printed it at exit, or, for several, a line per process and their accounts\n"
    "merged by file. A directory stands for the *.sktrace files in it. JSON reports\n"
    "are read too: the library's (SEEKTRACE_FORMAT=json) and the command's own\n"
    "(report --json, run --json). Options may come before or after the inputs;\n"
    "'--' ends them.\n"
    "\n"
    "  --by file|site|process  what to list: files (default), call sites over all\n"
    "                          processes, or processes\n"
    "  --json                  JSON: seektrace.report/2 for one process,\n"
    "                          seektrace.merged/2 for several\n"
    "  --top N                 at most N rows in site and process tables and, for\n"
    "                          several processes, the file and command tables (text:\n"
    "                          20 sites and processes, 10 files and commands by\n"
    "                          default; JSON lists all, of more than 1000 files the\n"
    "                          worst 1000 and the rest summed)\n"
    "  --full                  text, several processes: list everything: every\n"
    "                          process, file, stream and call site (by default the\n"
    "                          processes are grouped by command, and files and sites\n"
    "                          costing under 1 % of the run, or 64 KiB, are summed\n"
    "                          on one line); more than 1000 files: keep every\n"
    "                          file's row, for --json to list\n"
    "  --from-events           rebuild the accounts from the events even where the\n"
    "                          trace has a footer (a check of the trace itself)\n"
    "  --stats                 statistics of the trace files instead of a report:\n"
    "                          events, bytes, bytes per event, events by kind\n"
    "  --keep-going            skip inputs that cannot be read (corrupt, truncated,\n"
    "                          not a trace): each is named on stderr and in the\n"
    "                          output, and the exit status is 3\n"
    "  --help                  this text\n"
    "\n"
    "Exit status: 0 success, 2 bad usage or an input that cannot be read (one line\n"
    "on stderr names the file, what is wrong and the byte offset; with --keep-going\n"
    "only when none can be), 3 --keep-going skipped some inputs.\n";

struct rctx {
    const struct report_opts *o;
    struct merged *merged;
    struct prow *rows;
    size_t nrows, caprows;
    size_t loaded, ninputs;
    int json_started;
    size_t json_count;
    struct skipped skipped;
    /* single process: rendered directly, from the rows it prints */
    int single;
    struct devices devices; /* of every file it read */
    /* Where and when the run was, over its traces (origin_*). */
    char hosts[1024];
    uint64_t first_ns, end_ns;
    char labels[ST_LABELS_BYTES];
    size_t labels_len;
};

static void note_status(const struct process *p)
{
    if (p->kind != SOURCE_TRACE || strcmp(p->status, "complete") == 0)
        return;
    /* Traces before format 3.1 say no reason: theirs was the cap, or an
     * unsaid full disk. */
    const char *why = st_trace_stop_text(p->stop_reason);
    const char *until = "the figures cover everything it recorded until then";
    if (strcmp(p->status, "partial") == 0 && why)
        tool_warn("note: %s is partial: pid %ld could not finish its trace because %s; %s",
                  p->source, p->report.pid, why, until);
    else if (strcmp(p->status, "partial") == 0)
        tool_warn("note: %s is partial: pid %ld never finished its trace (killed, crashed, or "
                  "still running); %s",
                  p->source, p->report.pid, until);
    else
        tool_warn("note: %s is truncated: pid %ld %s%s and %" PRIu64
                  " events were not recorded; %s",
                  p->source, p->report.pid, why ? "stopped recording because " : "",
                  why ? why : "reached the trace size cap", p->events_lost,
                  p->footer_mem ? "the accounts are complete (from the footer), the event "
                                  "timeline stops early"
                                : until);
}

/* "labels":{"k":"v",...} from n "k=v" strings. */
static void labels_json(char *const *labels, int n)
{
    out_printf(",\"labels\":{");
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        char key[ST_LABEL_KEY_MAX + 1];
        size_t klen = strcspn(labels[i], "=");
        snprintf(key, sizeof key, "%.*s", (int)klen, labels[i]);
        out_printf("%s", i ? "," : "");
        fflush(stdout);
        json_str(stdout, key);
        out_printf(":");
        fflush(stdout);
        json_str(stdout, labels[i] + klen + 1);
    }
    out_printf("}");
}

/* The encoded list's strings, for labels_json. */
static int labels_split(char *list, size_t len, char **out)
{
    int n = 0;
    for (size_t k = 0; k < len && n < ST_LABELS_MAX; k += strlen(list + k) + 1)
        out[n++] = list + k;
    return n;
}

/* Where and when a trace's process ran: host, wall-clock start, duration,
 * the run's labels (docs/report-json.md). */
static void origin_json(const char *host, uint64_t start_ns, uint64_t duration_ns,
                        char *const *labels, int nlabels)
{
    out_printf(",\"host\":");
    fflush(stdout);
    if (host)
        json_str(stdout, host);
    else
        out_printf("null");
    out_printf(",\"start_time_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64, start_ns,
               duration_ns);
    labels_json(labels, nlabels);
}

/* "host h, started 2026-12-07 05:13:44.123 UTC, ran 1.234 s; labels: k=v k=v" */
static void origin_text(const char *host, uint64_t start_ns, uint64_t duration_ns,
                        char *const *labels, int nlabels)
{
    time_t t = (time_t)(start_ns / 1000000000u);
    struct tm tm;
    char when[64] = "?";
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    out_printf("  host %s, started %s.%03u UTC, ran %.3f s", host && *host ? host : "unknown",
               when, (unsigned)(start_ns / 1000000u % 1000u), (double)duration_ns / 1e9);
    for (int i = 0; i < nlabels; i++)
        out_printf("%s%s", i ? " " : "; labels: ", labels[i]);
    out_printf("\n");
}

/* Adds a process to the run's origin: its host, time span and labels (a
 * key's first value is kept). */
static void origin_add(struct rctx *c, const struct process *p)
{
    if (!p->start_realtime_ns)
        return;
    if (p->host)
        list_add_once(c->hosts, sizeof c->hosts, p->host, ",");
    if (!c->first_ns || p->start_realtime_ns < c->first_ns)
        c->first_ns = p->start_realtime_ns;
    if (p->start_realtime_ns + p->duration_ns > c->end_ns)
        c->end_ns = p->start_realtime_ns + p->duration_ns;
    st_labels_merge(c->labels, sizeof c->labels, &c->labels_len, p->labels, p->nlabels);
}

/* A rendered seektrace.report/2 object with, for a trace, its origin and
 * a "trace" member when the trace was not complete (the object ends in
 * "}\n"). */
static void write_json_object(const struct process *p)
{
    if (!(p->kind == SOURCE_TRACE || p->start_realtime_ns)) {
        out_report_json(&p->report, 0);
        return;
    }
    out_report_json(&p->report, 1);
    if (p->start_realtime_ns)
        origin_json(p->host, p->start_realtime_ns, p->duration_ns, p->labels, p->nlabels);
    if (p->kind != SOURCE_TRACE || strcmp(p->status, "complete") == 0) {
        out_printf("}\n");
        return;
    }
    out_printf(",\"trace\":{\"status\":\"%s\",\"source\":", p->status);
    fflush(stdout);
    json_str(stdout, p->source);
    out_printf(",\"events_lost\":%" PRIu64, p->events_lost);
    const char *stopped = st_trace_stop_name(p->stop_reason);
    if (stopped)
        out_printf(",\"stopped\":\"%s\"", stopped);
    out_printf("}}\n");
}

/* The merged document's head, once, before its first process: an input
 * that cannot be read (without --keep-going) then leaves stdout empty. */
static void merged_json_start(struct rctx *c)
{
    if (!c->json_started)
        out_printf("{\"schema\":\"seektrace.merged/2\",\"processes\":[");
    c->json_started = 1;
}

/* The inputs --keep-going skipped, in text. */
static void skipped_text(const struct skipped *s)
{
    if (!s->n)
        return;
    out_printf("  skipped %zu input%s that could not be read (--keep-going):\n", s->n,
               s->n == 1 ? "" : "s");
    for (size_t i = 0; i < s->n; i++)
        out_printf("    %s\n", s->errors[i]);
}

/* The file table: 10 rows as at exit, or --top's; its last line says how
 * to see the rest in this command's terms (JSON lists the worst
 * ST_REPORT_JSON_FILES unless --full, as the library's report does). */
static struct st_text_opts text_opts(const struct report_opts *o, const struct st_report *r)
{
    int bounded = !o->full && r->nfiles + r->nfiles_other > ST_REPORT_JSON_FILES;
    struct st_text_opts t = {.max_files = o->top ? o->top : ST_REPORT_TEXT_FILES,
                             .more_hint = bounded ? "--top N shows more, --json lists the worst "
                                                    "1000, --json --full every one"
                                                  : "--top N shows more, --json lists all"};
    return t;
}

/* The rows one process's report keeps (report_select.h): past
 * ST_REPORT_JSON_FILES files, what its text or JSON prints, so that memory
 * does not grow with the files it read; every row up to there (the report
 * is then the same as with every row, to the order of tied call sites),
 * and with --full. The devices are counted over every file. */
static struct st_footer_rows single_rows(const struct report_opts *o, struct devices *devices)
{
    struct st_footer_rows rows = {0};
    if (!o->json) {
        rows.each_file = devices_add;
        rows.ctx = devices;
    }
    if (o->full)
        return rows;
    rows.every_up_to = ST_REPORT_JSON_FILES;
    rows.files = o->json ? ST_REPORT_JSON_FILES : o->top ? o->top : ST_REPORT_TEXT_FILES;
    rows.pairs = o->json ? 0 : ST_REPORT_TEXT_SITES;
    rows.findings = o->json ? ST_REPORT_JSON_FINDINGS : ST_REPORT_TEXT_FINDINGS;
    return rows;
}

/* The rows a report of several processes keeps: as single_rows for the
 * JSON (past ST_REPORT_JSON_FILES merged files, the 1000 worst); the text
 * only ever prints the files above its noise floor and --top's, so it
 * keeps those whatever the number of files (the same text; a configure
 * run's 449 files 12.0 -> 6.9 MB); every row with --full, and by site,
 * whose table sums every file's sites. The devices are counted over every
 * file. */
static struct st_footer_rows merged_rows(const struct report_opts *o, struct devices *devices)
{
    struct st_footer_rows rows = single_rows(o, devices);
    if (o->by != BY_FILE)
        return (struct st_footer_rows){0};
    if (!o->json && rows.files) {
        rows.files = merged_text_files(o);
        rows.every_up_to = 0;
    }
    return rows;
}

static int on_process(struct process *p, void *vctx)
{
    struct rctx *c = vctx;
    const struct report_opts *o = c->o;
    note_status(p);
    origin_add(c, p);
    if (c->single && o->by == BY_FILE) {
        if (o->json) {
            write_json_object(p);
        } else {
            size_t len;
            struct st_text_opts t = text_opts(o, &p->report);
            char *s = render_report(&p->report, 0, &t, &len);
            out_write(s, len);
            free(s);
            origin_text(p->host, p->start_realtime_ns, p->duration_ns, p->labels, p->nlabels);
            devices_print(&c->devices);
        }
        c->loaded++;
        return 0;
    }
    if (o->json && o->by != BY_SITE) {
        merged_json_start(c);
        out_printf("%s", c->json_count++ ? "," : "");
        write_json_object(p);
    }
    merged_add(c->merged, &p->report);
    prow_push(&c->rows, &c->nrows, &c->caprows, p);
    c->loaded++;
    progress_step(c->loaded, 0);
    return 0;
}

static void site_table(const struct st_report *m, const struct report_opts *o,
                       const struct skipped *skipped)
{
    size_t n;
    struct srow *rows = site_rows(m, &n);
    /* Text shows the worst 20 and says how many more; JSON lists every site
     * unless --top asks for fewer. */
    size_t top = o->full ? n : o->top ? o->top : o->json ? n : 20;
    if (o->json) {
        out_printf("{\"schema\":\"seektrace.sites/1\",\"sites\":[");
        for (size_t i = 0; i < n && i < top; i++) {
            const struct st_report_site *s = rows[i].site;
            const struct st_report_frame *f = s->nframes ? &s->frames[0] : NULL;
            const struct st_counts *c = &s->counts;
            fflush(stdout);
            out_printf("%s{\"path\":", i ? "," : "");
            fflush(stdout);
            json_str(stdout, rows[i].path);
            out_printf(",\"function\":");
            fflush(stdout);
            if (f && f->function)
                json_str(stdout, f->function);
            else
                out_printf("null");
            out_printf(",\"source\":");
            fflush(stdout);
            if (f && f->source)
                json_str(stdout, f->source);
            else
                out_printf("null");
            out_printf(",\"line\":%d,\"module\":", f ? f->line : 0);
            fflush(stdout);
            json_str(stdout, f && f->module ? f->module : "");
            out_printf(",\"offset\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"requested_bytes\":%" PRIu64
                       ",\"delivered_bytes\":%" PRIu64 ",\"kernel_read_bytes\":%" PRIu64
                       ",\"read_syscalls\":%" PRIu64 ",\"lseek_syscalls\":%" PRIu64
                       ",\"reread_bytes\":%" PRIu64 ",\"write_syscalls\":%" PRIu64
                       ",\"kernel_write_bytes\":%" PRIu64 ",\"written_bytes\":%" PRIu64
                       ",\"amplification\":",
                       f ? f->offset : 0, calls_of(c), c->requested_bytes, c->delivered_bytes,
                       c->kernel_read_bytes, c->read_syscalls, c->lseek_syscalls, c->reread_bytes,
                       c->write_syscalls, c->kernel_write_bytes, c->written_bytes);
            if (c->delivered_bytes)
                out_printf("%.6g}", st_counts_amplification(c));
            else
                out_printf("null}");
        }
        out_printf("],\"total_sites\":%zu", n);
        if (skipped->n) {
            out_printf(",\"skipped\":[");
            fflush(stdout);
            skipped_json(stdout, skipped);
            out_printf("]");
        }
        out_printf("}\n");
    } else {
        skipped_text(skipped);
        /* The write columns only when a site shown wrote. */
        int writes = 0;
        for (size_t i = 0; i < n && i < top; i++)
            writes |= rows[i].site->counts.write_syscalls || rows[i].site->counts.written_bytes;
        out_printf("  %9s %11s %11s %9s %9s", "amplif.", "kernel read", "delivered", "reads",
                   "lseeks");
        if (writes)
            out_printf(" %11s %9s %11s", "handed over", "writes", "kernel wrote");
        out_printf(" %9s  %s\n", "calls", "site / file");
        for (size_t i = 0; i < n && i < top; i++) {
            const struct st_report_site *s = rows[i].site;
            const struct st_counts *c = &s->counts;
            char a[32], b1[32], b2[32], n1[32], n2[32], n3[32], d[512];
            out_printf("  %9s %11s %11s %9s %9s", st_fmt_ratio(a, sizeof a, st_counts_amplification(c)),
                       st_fmt_bytes(b1, sizeof b1, c->kernel_read_bytes),
                       st_fmt_bytes(b2, sizeof b2, c->delivered_bytes),
                       st_fmt_count(n1, sizeof n1, c->read_syscalls),
                       st_fmt_count(n2, sizeof n2, c->lseek_syscalls));
            if (writes)
                out_printf(" %11s %9s %11s", st_fmt_bytes(b1, sizeof b1, c->written_bytes),
                           st_fmt_count(n1, sizeof n1, c->write_syscalls),
                           st_fmt_bytes(b2, sizeof b2, c->kernel_write_bytes));
            out_printf(" %9s  %s\n      %s\n", st_fmt_count(n3, sizeof n3, calls_of(c)),
                       st_frame_describe(s->nframes ? &s->frames[0] : NULL, d, sizeof d),
                       rows[i].path);
        }
        if (n == 0)
            out_printf("  no call sites recorded (SEEKTRACE_STACK=0, or nothing was read)\n");
        else if (n > top)
            out_printf("  ... and %zu more sites (--top N shows more)\n", n - top);
    }
    free(rows);
}

static int stats(const struct report_opts *o, char **paths, size_t n)
{
    uint64_t all_events = 0, all_bytes = 0, by_kind[32] = {0};
    struct skipped skipped = {0};
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        struct st_trace_reader *r = st_trace_open(paths[i], err);
        struct st_trace_event ev;
        int k = -1;
        uint64_t events = 0, kinds[32] = {0};
        while (r && (k = st_trace_next(r, &ev, err)) == 1) {
            events++;
            kinds[ev.kind & 31]++;
        }
        if (k < 0 && !o->keep_going)
            tool_bad_input("%s", err);
        if (k < 0) {
            skipped_add(&skipped, paths[i], err);
            st_trace_close(r);
            continue;
        }
        const struct st_trace_info *in = st_trace_info(r);
        uint64_t bytes = st_trace_bytes_read(r);
        out_printf("%s: pid %ld, %s, %" PRIu64 " events in %" PRIu64 " bytes (%.2f bytes/event), "
                   "%" PRIu64 " chunks of %u bytes, file %" PRIu64 " bytes, %" PRIu64 " lost, %.3f s\n",
                   paths[i], in->pid, st_trace_status(in), events, bytes,
                   events ? (double)bytes / (double)events : 0.0, st_trace_chunks_read(r),
                   in->chunk_size, in->file_size, in->events_lost,
                   in->end_ns > in->start_ns ? (double)(in->end_ns - in->start_ns) / 1e9 : 0.0);
        all_events += events;
        all_bytes += bytes;
        for (int q = 0; q < 32; q++)
            by_kind[q] += kinds[q];
        st_trace_close(r);
    }
    out_printf("total: %" PRIu64 " events in %" PRIu64 " bytes (%.2f bytes/event)\n", all_events,
               all_bytes, all_events ? (double)all_bytes / (double)all_events : 0.0);
    for (unsigned q = 1; q <= ST_EV_KIND_MAX; q++)
        if (by_kind[q])
            out_printf("  %-8s %12" PRIu64 "%s\n", st_trace_kind_name(q), by_kind[q],
                       q == ST_EV_READ_REREAD ? " (re-reads)" : "");
    skipped_text(&skipped);
    int rc = skipped.n ? EXIT_SKIPPED : 0;
    if (n && skipped.n == n)
        tool_bad_input("none of the %zu inputs could be read", n);
    skipped_free(&skipped);
    return rc;
}

int report_paths(const struct report_opts *o, char **paths, size_t n)
{
    if (o->stats)
        return stats(o, paths, n);
    /* Order by start time: a process tree reads top-down. */
    size_t traces = inputs_by_start(paths, n);
    struct rctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.merged = merged_new();
    c.ninputs = n;
    struct load_opts lo = {.from_events = o->from_events, .want_sites = 1};
    /* A single trace prints its own report; a single JSON file may hold
     * several processes, so it goes the merged way. */
    c.single = n == 1 && traces == 1;
    struct st_footer_rows rows = single_rows(o, &c.devices);
    if (c.single && o->by == BY_FILE)
        lo.rows = &rows;
    progress_start("reading traces", n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_process, &c, err) == 0)
            continue;
        if (!o->keep_going)
            tool_bad_input("%s", err);
        skipped_add(&c.skipped, paths[i], err);
        bad++;
    }
    progress_end();
    if (n && bad == n)
        tool_bad_input("none of the %zu inputs could be read", n);
    if (c.single && o->by == BY_FILE) {
        merged_free(c.merged);
        return 0;
    }
    if (o->json && o->by != BY_SITE)
        merged_json_start(&c);
    prow_tree_order(c.rows, c.nrows);
    /* The merged report speaks for the root of the tree. */
    struct st_report first;
    prow_first(c.rows, c.nrows, &first);
    struct st_report m;
    struct st_footer_rows mrows = merged_rows(o, &c.devices);
    merged_report(c.merged, &m, c.nrows ? &first : NULL, &mrows);
    size_t top = o->top ? o->top : 20;
    if (o->by == BY_SITE) {
        site_table(&m, o, &c.skipped);
    } else if (o->json) {
        out_printf("],\"merged\":");
        out_report_json(&m, 1);
        out_printf("}");
        if (c.first_ns) {
            char *labels[ST_LABELS_MAX];
            int nl = labels_split(c.labels, c.labels_len, labels);
            out_printf(",\"run\":{\"hosts\":[");
            for (char *h = c.hosts, *next; *h; h = next) {
                next = h + strcspn(h, ",");
                char host[256];
                snprintf(host, sizeof host, "%.*s", (int)(next - h), h);
                out_printf("%s", h == c.hosts ? "" : ",");
                fflush(stdout);
                json_str(stdout, host);
                next += *next == ',';
            }
            out_printf("],\"start_time_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64,
                       c.first_ns, c.end_ns - c.first_ns);
            labels_json(labels, nl);
            out_printf("}");
        }
        if (c.skipped.n) {
            out_printf(",\"skipped\":[");
            fflush(stdout);
            skipped_json(stdout, &c.skipped);
            out_printf("]");
        }
        out_printf("}\n");
    } else {
        size_t complete = 0;
        for (size_t i = 0; i < c.nrows; i++)
            complete += strcmp(c.rows[i].status, "complete") == 0 ||
                        strcmp(c.rows[i].status, "report") == 0;
        char cmd[200];
        argv_line(&first, cmd, sizeof cmd);
        out_printf("seektrace: %zu process%s", c.nrows, c.nrows == 1 ? "" : "es");
        if (complete != c.nrows)
            out_printf(" (%zu not complete)", c.nrows - complete);
        out_printf(": %s  [capture: %s]\n", cmd, m.capture);
        if (c.first_ns) {
            char *labels[ST_LABELS_MAX];
            int nl = labels_split(c.labels, c.labels_len, labels);
            origin_text(c.hosts, c.first_ns, c.end_ns - c.first_ns, labels, nl);
        }
        skipped_text(&c.skipped);
        if (o->by == BY_PROCESS) {
            process_table(c.rows, c.nrows, o->full ? (size_t)-1 : top);
        } else {
            merged_text(&m, c.rows, c.nrows, o);
            devices_print(&c.devices);
            if (o->full) {
                struct skipped none = {0};
                out_printf("\n  every call site:\n");
                site_table(&m, o, &none);
            }
        }
    }
    merged_free(c.merged);
    prows_free(c.rows, c.nrows);
    int rc = c.skipped.n ? EXIT_SKIPPED : 0;
    skipped_free(&c.skipped);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o;
    memset(&o, 0, sizeof o);
    o.by = BY_FILE;
    /* Options anywhere among the inputs, as in check, export and whatif;
     * "--" ends them. */
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    if (!pos)
        tool_bad_input("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            free(pos);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            o.json = 1;
        } else if (strcmp(a, "--from-events") == 0) {
            o.from_events = 1;
        } else if (strcmp(a, "--stats") == 0) {
            o.stats = 1;
        } else if (strcmp(a, "--keep-going") == 0) {
            o.keep_going = 1;
        } else if (strcmp(a, "--full") == 0) {
            o.full = 1;
        } else if (opt_value("report", argc, argv, &i, "--by", &v)) {
            if (strcmp(v, "file") == 0)
                o.by = BY_FILE;
            else if (strcmp(v, "site") == 0)
                o.by = BY_SITE;
            else if (strcmp(v, "process") == 0)
                o.by = BY_PROCESS;
            else
                tool_usage_error("report", "--by takes file, site or process, not '%s'", v);
        } else if (opt_value("report", argc, argv, &i, "--top", &v)) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n <= 0)
                tool_usage_error("report", "--top takes a positive number, not '%s'", v);
            o.top = (size_t)n;
        } else {
            opt_positional("report", argc, argv, &i, pos, &npos);
        }
    }
    if (!npos)
        tool_usage_error("report", "no trace, directory or report given");
    struct inputs in;
    inputs_collect(pos, npos, &in);
    free(pos);
    int rc = report_paths(&o, in.paths, in.n);
    inputs_free(&in);
    return rc;
}
