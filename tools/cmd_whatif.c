/* cmd_whatif.c — seektrace whatif: what other buffer sizes would have cost.
 *
 * The predicted half of issue 5 (sweep is the measured half): replays the
 * stdio calls a trace recorded through the model of glibc's buffering at
 * each size (whatif_replay.h) and prints, per file and in total, the
 * syscalls and kernel bytes each size would cost and a predicted time from
 * the machine's cost model (cost_model.h, `seektrace calibrate`). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cost_measure.h"
#include "cost_model.h"
#include "tool.h"
#include "units.h"
#include "whatif_replay.h"
#include "whatif_reports.h"
#include "whatif_writes.h"

static const char usage[] =
    "usage: seektrace whatif [OPTIONS] TRACE|DIR|REPORT.json ...\n"
    "\n"
    "Replays the stdio calls recorded in traces (SEEKTRACE_TRACE=DIR, or\n"
    "'seektrace run --trace DIR') through a model of glibc 2.36's stream\n"
    "buffering at each buffer size, and prints per file and in total: read and\n"
    "lseek syscalls, kernel bytes, amplification (kernel bytes per byte\n"
    "delivered) and predicted time. The first row, 'exact', is the lower bound:\n"
    "one pread of exactly what each call asked for. The recorded run is replayed\n"
    "too and checked against what the trace measured.\n"
    "\n"
    "  --sizes LIST        comma-separated sizes: 512, 4k, 128KiB, 1M (powers of\n"
    "                      1024); default 512,1k,2k,4k,8k,16k,32k,64k,128k,256k,512k,1M\n"
    "  --file GLOB         only files whose path matches GLOB (fnmatch)\n"
    "  --calibration PATH  the cost model to use (default: the one 'seektrace\n"
    "                      calibrate' stored; without one, a quick calibration\n"
    "                      is made now and not stored)\n"
    "  --cost R,L,F,B      the cost model by hand: ns per read, lseek and fstat\n"
    "                      syscall and per byte read, e.g. 400,150,300,0.1\n"
    "  --json              the tables as JSON (seektrace.whatif/1)\n"
    "  --help              this text\n"
    "\n"
    "In a table '*' marks the size with the shortest predicted time, '=' the\n"
    "size the recorded run used, and '>=' figures that are lower bounds (the\n"
    "trace never showed the file's size and a read would have gone past what it\n"
    "proved). Every size is a buffer given with setvbuf, as 'seektrace sweep'\n"
    "gives it, so the two tables compare row for row.\n"
    "\n"
    "Streams that wrote get a second table: the write syscalls and kernel bytes\n"
    "written unbuffered and fully buffered at each size, from what each call\n"
    "handed over and the calls that flushed; line buffered at the stream's size.\n"
    "\n"
    "Given JSON reports (the library's, report --json, run --json) instead, which\n"
    "hold no calls to replay, it prints what they hold: each file's figures and\n"
    "the library's own 4 KiB prediction (JSON: seektrace.whatif-reports/1).\n"
    "\n"
    "Exit status: 0 success; 2 bad usage, a trace that cannot be read, or a\n"
    "calibration file that is corrupt.\n";

struct opts {
    uint64_t sizes[TOOL_MAX_SIZES];
    size_t nsizes;
    const char *glob;
    const char *calibration;
    int have_cost;
    struct st_cost_model cost;
    int json;
};

/* Options may come before or after the traces; the traces are gathered at
 * the front of argv. Returns how many there are. */
static int parse_args(struct opts *o, int argc, char **argv)
{
    o->nsizes = size_list_parse("whatif", TOOL_DEFAULT_SIZES, o->sizes);
    int ntraces = 0, only_traces = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (only_traces || a[0] != '-' || !a[1]) {
            argv[ntraces++] = argv[i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            out_printf("%s", usage);
            exit(0);
        } else if (!strcmp(a, "--")) {
            only_traces = 1;
        } else if (opt_value("whatif", argc, argv, &i, "--sizes", &v)) {
            o->nsizes = size_list_parse("whatif", v, o->sizes);
        } else if (opt_value("whatif", argc, argv, &i, "--file", &v)) {
            o->glob = v;
        } else if (opt_value("whatif", argc, argv, &i, "--calibration", &v)) {
            o->calibration = v;
        } else if (opt_value("whatif", argc, argv, &i, "--cost", &v)) {
            cost_model_parse("whatif", v, &o->cost);
            o->have_cost = 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else {
            tool_usage_error("whatif", "unknown option '%s'", a);
        }
    }
    if (!ntraces)
        tool_usage_error("whatif", "no trace given");
    return ntraces;
}

/* ---- figures ---------------------------------------------------------------- */

static double predict_ns(const struct opts *o, const struct whatif_cost *c)
{
    return st_cost_predict_ns(&o->cost, c->read_syscalls, c->lseek_syscalls, c->fstat_syscalls,
                              c->kernel_read_bytes);
}

static double amplification(const struct whatif_cost *c)
{
    return c->delivered_bytes ? (double)c->kernel_read_bytes / (double)c->delivered_bytes : 0;
}

/* The size with the shortest predicted time (the smaller size on a tie). */
static size_t fastest(const struct opts *o, const struct whatif *w, const struct whatif_file *f)
{
    size_t best = 0;
    for (size_t k = 1; k < w->nsizes; k++)
        if (predict_ns(o, &f->at[k]) < predict_ns(o, &f->at[best]))
            best = k;
    return best;
}

static int same_cost(const struct whatif_cost *a, const struct whatif_cost *b)
{
    return a->read_syscalls == b->read_syscalls && a->lseek_syscalls == b->lseek_syscalls &&
           a->fstat_syscalls == b->fstat_syscalls && a->kernel_read_bytes == b->kernel_read_bytes;
}

static const char *fmt_time(char *buf, size_t size, double ns)
{
    if (ns < 1e3)
        snprintf(buf, size, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, size, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, size, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, size, "%.2f s", ns / 1e9);
    return buf;
}

/* ---- text ---------------------------------------------------------------------- */

static void text_row(const struct opts *o, const char *mark, const char *label,
                     const struct whatif_cost *c)
{
    char reads[32], seeks[32], bytes[32], amp[32], t[32];
    const char *ge = c->assumed_end_reads ? ">=" : "";
    st_fmt_count(reads, sizeof reads, c->read_syscalls);
    st_fmt_count(seeks, sizeof seeks, c->lseek_syscalls);
    st_fmt_bytes(bytes, sizeof bytes, c->kernel_read_bytes);
    st_fmt_ratio(amp, sizeof amp, amplification(c));
    fmt_time(t, sizeof t, predict_ns(o, c));
    out_printf("%-2s %-10s %2s%12s %10s %14s %14s %14s\n", mark, label, ge, reads, seeks, bytes,
               amp, t);
}

static void text_recorded(const struct whatif_file *f)
{
    char size[32], reads[32], seeks[32], bytes[32];
    st_fmt_bytes(size, sizeof size, f->recorded_size);
    if (same_cost(&f->recorded, &f->measured)) {
        st_fmt_count(reads, sizeof reads, f->measured.read_syscalls);
        st_fmt_count(seeks, sizeof seeks, f->measured.lseek_syscalls);
        st_fmt_bytes(bytes, sizeof bytes, f->measured.kernel_read_bytes);
        out_printf("   recorded run (%s%s): %s read%s, %s lseek%s, %s — the model replays it "
                   "exactly\n", size, f->recorded_mixed ? " and others" : "", reads,
                   f->measured.read_syscalls == 1 ? "" : "s", seeks,
                   f->measured.lseek_syscalls == 1 ? "" : "s", bytes);
        return;
    }
    out_printf("   recorded run (%s%s): the model predicts %" PRIu64 " reads, %" PRIu64
               " lseeks, %" PRIu64 " fstats, %" PRIu64 " bytes; the trace measured %" PRIu64
               ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 " — treat this file's table as approximate\n",
               size, f->recorded_mixed ? " and others" : "", f->recorded.read_syscalls,
               f->recorded.lseek_syscalls, f->recorded.fstat_syscalls,
               f->recorded.kernel_read_bytes, f->measured.read_syscalls,
               f->measured.lseek_syscalls, f->measured.fstat_syscalls,
               f->measured.kernel_read_bytes);
}

static void text_notes(const struct whatif_file *f)
{
    if (f->approximate)
        out_printf("   approximate: scanf-family reads replayed as getc runs\n");
    if (f->threads_shared)
        out_printf("   approximate: a stream used by several threads (their interleaving "
                   "is a guess)\n");
    for (size_t i = 0; i < f->nskipped; i++)
        out_printf("   left out: pid %ld fd %d, %s\n", f->skipped[i].pid, f->skipped[i].fd,
                   f->skipped[i].why);
}

static void text_file(const struct opts *o, const struct whatif *w, const struct whatif_file *f)
{
    char delivered[32];
    st_fmt_bytes(delivered, sizeof delivered, f->exact.delivered_bytes);
    out_printf("%s: %zu stream%s replayed, %s delivered\n", f->path, f->streams,
               f->streams == 1 ? "" : "s", delivered);
    if (!f->streams) {
        text_notes(f);
        out_printf("\n");
        return;
    }
    out_printf("   %-10s %14s %10s %14s %14s %14s\n", "size", "read syscalls", "lseeks",
               "kernel bytes", "amplification", "predicted");
    text_row(o, "", "exact", &f->exact);
    size_t best = fastest(o, w, f);
    for (size_t k = 0; k < w->nsizes; k++) {
        char size[32], mark[3];
        st_fmt_bytes(size, sizeof size, w->sizes[k]);
        snprintf(mark, sizeof mark, "%c%c", k == best ? '*' : ' ',
                 w->sizes[k] == f->recorded_size && !f->recorded_mixed ? '=' : ' ');
        text_row(o, mark, size, &f->at[k]);
    }
    text_recorded(f);
    text_notes(f);
    out_printf("\n");
}

/* ---- writes --------------------------------------------------------------- */

static void text_write_row(const char *mark, const char *label, const struct whatif_write_cost *c)
{
    char n[32], b[32];
    out_printf("%-2s %-14s %14s %14s\n", mark, label,
               st_fmt_count(n, sizeof n, c->write_syscalls),
               st_fmt_bytes(b, sizeof b, c->kernel_write_bytes));
}

static void text_writes(const struct whatif_writes *ww)
{
    for (size_t i = 0; i < ww->nfiles; i++) {
        const struct whatif_write_file *f = &ww->files[i];
        char b[32], n[32], size[32];
        out_printf("%s: %zu stream%s wrote, %s handed over\n", f->path, f->streams,
                   f->streams == 1 ? "" : "s", st_fmt_bytes(b, sizeof b, f->written_bytes));
        out_printf("   %-14s %14s %14s\n", "buffer", "write syscalls", "kernel bytes");
        text_write_row(f->recorded_size == 0 && !f->recorded_mixed ? "=" : "", "none",
                       &f->unbuffered);
        char line[48];
        snprintf(line, sizeof line, "line %s", st_fmt_bytes(size, sizeof size, f->line_size));
        text_write_row(f->recorded_line && !f->recorded_mixed ? "=" : "", line, &f->line);
        for (size_t k = 0; k < ww->nsizes; k++) {
            st_fmt_bytes(size, sizeof size, ww->sizes[k]);
            text_write_row(ww->sizes[k] == f->recorded_size && !f->recorded_line &&
                                   !f->recorded_mixed ? "=" : "",
                           size, &f->at[k]);
        }
        st_fmt_count(n, sizeof n, f->measured.write_syscalls);
        st_fmt_bytes(b, sizeof b, f->measured.kernel_write_bytes);
        if (whatif_writes_agree(f))
            out_printf("   recorded run: %s write%s, %s — the model replays it exactly\n\n", n,
                       f->measured.write_syscalls == 1 ? "" : "s", b);
        else
            out_printf("   recorded run: the model predicts %" PRIu64 " writes, %" PRIu64
                       " bytes; the trace measured %s, %s — treat this table as approximate\n\n",
                       f->recorded.write_syscalls, f->recorded.kernel_write_bytes, n, b);
    }
}

static void json_write_cost(FILE *out, const struct whatif_write_cost *c)
{
    fprintf(out, "\"write_syscalls\":%" PRIu64 ",\"kernel_write_bytes\":%" PRIu64,
            c->write_syscalls, c->kernel_write_bytes);
}

static void json_writes(FILE *out, const struct whatif_writes *ww)
{
    fputs(",\"writes\":[", out);
    for (size_t i = 0; i < ww->nfiles; i++) {
        const struct whatif_write_file *f = &ww->files[i];
        fprintf(out, "%s{\"path\":", i ? "," : "");
        json_str(out, f->path);
        fprintf(out, ",\"streams\":%zu,\"written_bytes\":%" PRIu64 ",\"recorded\":{"
                     "\"buffer_size\":%" PRIu64 ",\"mixed\":%s,\"line_buffered\":%s,"
                     "\"predicted\":",
                f->streams, f->written_bytes, f->recorded_size,
                f->recorded_mixed ? "true" : "false", f->recorded_line ? "true" : "false");
        fputc('{', out);
        json_write_cost(out, &f->recorded);
        fputs("},\"measured\":{", out);
        json_write_cost(out, &f->measured);
        fprintf(out, "},\"model_agrees\":%s},\"unbuffered\":{",
                whatif_writes_agree(f) ? "true" : "false");
        json_write_cost(out, &f->unbuffered);
        fprintf(out, "},\"line\":{\"buffer_size\":%" PRIu64 ",", f->line_size);
        json_write_cost(out, &f->line);
        fputs("},\"sizes\":[", out);
        for (size_t k = 0; k < ww->nsizes; k++) {
            fprintf(out, "%s{\"size\":%" PRIu64 ",", k ? "," : "", ww->sizes[k]);
            json_write_cost(out, &f->at[k]);
            fputc('}', out);
        }
        fputs("]}", out);
    }
    fputc(']', out);
}

static void print_text(const struct opts *o, const struct whatif *w,
                       const struct whatif_writes *ww)
{
    out_printf("what-if of: %s (%zu process%s)\n", w->command ? w->command : "?", w->processes,
               w->processes == 1 ? "" : "es");
    out_printf("stdio model: %s rules\n", w->stdio_rules);
    char r[32], l[32], f[32];
    out_printf("time model: read %s, lseek %s, fstat %s per syscall, %.3g ns per byte; %s\n\n",
               fmt_time(r, sizeof r, o->cost.read_ns), fmt_time(l, sizeof l, o->cost.lseek_ns),
               fmt_time(f, sizeof f, o->cost.fstat_ns), o->cost.byte_ns, o->cost.source);
    if (w->old_traces)
        out_printf("%zu trace%s of format 1 hold no calls to replay: record again with this "
                   "seektrace\n\n", w->old_traces, w->old_traces == 1 ? "" : "s");
    size_t shown = 0;
    for (size_t i = 0; i < w->nfiles; i++) {
        text_file(o, w, &w->files[i]);
        shown += w->files[i].streams > 0;
    }
    if (shown > 1) {
        struct whatif_file total;
        whatif_total(w, &total);
        if (!total.at)
            tool_bad_input("out of memory");
        total.nskipped = 0;
        text_file(o, w, &total);
        free(total.at);
    }
    if (!w->nfiles)
        out_printf("no stdio reads recorded%s\n", o->glob ? " on files matching --file" : "");
    out_printf("* shortest predicted time   = the recorded run's size   >= a lower bound\n");
    if (ww->nfiles) {
        out_printf("\nwrites (stdio's, per file):\n");
        text_writes(ww);
    }
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_cost(FILE *out, const struct opts *o, const struct whatif_cost *c)
{
    fprintf(out,
            "\"read_syscalls\":%" PRIu64 ",\"lseek_syscalls\":%" PRIu64 ",\"fstat_syscalls\":%" PRIu64
            ",\"kernel_read_bytes\":%" PRIu64 ",\"delivered_bytes\":%" PRIu64
            ",\"amplification\":",
            c->read_syscalls, c->lseek_syscalls, c->fstat_syscalls, c->kernel_read_bytes,
            c->delivered_bytes);
    /* null when nothing was delivered, as in report JSON (docs/report-json.md) */
    if (c->delivered_bytes)
        fprintf(out, "%.6g", amplification(c));
    else
        fputs("null", out);
    fprintf(out, ",\"predicted_ns\":%.0f,\"lower_bound\":%s", predict_ns(o, c),
            c->assumed_end_reads ? "true" : "false");
}

static void json_file(FILE *out, const struct opts *o, const struct whatif *w,
                      const struct whatif_file *f)
{
    fputs("{\"path\":", out);
    json_str(out, f->path);
    fprintf(out, ",\"streams\":%zu,\"approximate\":%s,\"threads_shared\":%s,\"skipped\":[",
            f->streams, f->approximate ? "true" : "false", f->threads_shared ? "true" : "false");
    for (size_t i = 0; i < f->nskipped; i++) {
        fprintf(out, "%s{\"pid\":%ld,\"fd\":%d,\"why\":", i ? "," : "", f->skipped[i].pid,
                f->skipped[i].fd);
        json_str(out, f->skipped[i].why);
        fputc('}', out);
    }
    fprintf(out, "],\"recorded\":{\"buffer_size\":%" PRIu64 ",\"mixed\":%s,\"predicted\":{",
            f->recorded_size, f->recorded_mixed ? "true" : "false");
    json_cost(out, o, &f->recorded);
    fputs("},\"measured\":{", out);
    json_cost(out, o, &f->measured);
    fprintf(out, "},\"model_agrees\":%s},\"exact\":{",
            same_cost(&f->recorded, &f->measured) ? "true" : "false");
    json_cost(out, o, &f->exact);
    fputs("},\"sizes\":[", out);
    size_t best = f->streams ? fastest(o, w, f) : (size_t)-1;
    for (size_t k = 0; k < w->nsizes; k++) {
        fprintf(out, "%s{\"size\":%" PRIu64 ",", k ? "," : "", w->sizes[k]);
        json_cost(out, o, &f->at[k]);
        fprintf(out, ",\"fastest\":%s}", k == best ? "true" : "false");
    }
    fputs("]}", out);
}

static void print_json(const struct opts *o, const struct whatif *w,
                       const struct whatif_writes *ww)
{
    fflush(stdout);
    FILE *out = stdout;
    fputs("{\"schema\":\"seektrace.whatif/1\",\"command\":", out);
    json_str(out, w->command ? w->command : "");
    fputs(",\"stdio_rules\":", out);
    json_str(out, w->stdio_rules);
    fprintf(out, ",\"processes\":%zu,\"cost_model\":{\"read_ns\":%.6g,\"lseek_ns\":%.6g,"
                 "\"fstat_ns\":%.6g,\"byte_ns\":%.6g,\"source\":",
            w->processes, o->cost.read_ns, o->cost.lseek_ns, o->cost.fstat_ns, o->cost.byte_ns);
    json_str(out, o->cost.source);
    fputs("},\"files\":[", out);
    for (size_t i = 0; i < w->nfiles; i++) {
        if (i)
            fputc(',', out);
        json_file(out, o, w, &w->files[i]);
    }
    struct whatif_file total;
    whatif_total(w, &total);
    if (!total.at)
        tool_bad_input("out of memory");
    total.nskipped = 0;
    fputs("],\"total\":", out);
    json_file(out, o, w, &total);
    free(total.at);
    json_writes(out, ww);
    fputs("}\n", out);
    if (fflush(out) != 0)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

/* A trace to be replayed, and where it stands in the process tree. */
struct tnode {
    char *path;
    long pid, ppid;
    uint64_t start;
    int root; /* its parent left no trace here */
};

static int by_root_then_start(const void *a, const void *b)
{
    const struct tnode *x = a, *y = b;
    if (x->root != y->root)
        return x->root ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The traces in the order the header should speak for them: the root of
 * the tree first (a process whose parent left no trace), then by start, so
 * that "what-if of:" names make, not the last 'as' it ran. Returns how many
 * inputs are JSON reports (whatif_reports.h) rather than traces. */
static size_t order_traces(struct inputs *in)
{
    size_t reports = 0;
    struct tnode *t = calloc(in->n ? in->n : 1, sizeof *t);
    if (!t)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < in->n; i++) {
        t[i].path = in->paths[i];
        if (peek_trace(in->paths[i], &t[i].pid, &t[i].ppid, &t[i].start) != 0) {
            FILE *f = fopen(in->paths[i], "r");
            int c = ' ';
            while (f && (c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
                ;
            if (f)
                fclose(f);
            reports += c == '{';
            t[i].start = UINT64_MAX; /* whatif_add_trace explains */
        }
    }
    for (size_t i = 0; i < in->n; i++) {
        t[i].root = 1;
        for (size_t k = 0; k < in->n && t[i].root; k++)
            t[i].root = !(k != i && t[k].pid == t[i].ppid); /* a trace starts at its first
                                                              * read: any start order */
    }
    qsort(t, in->n, sizeof *t, by_root_then_start);
    for (size_t i = 0; i < in->n; i++)
        in->paths[i] = t[i].path;
    free(t);
    return reports;
}

int cmd_whatif(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof o);
    int ntraces = parse_args(&o, argc, argv);
    struct inputs in;
    inputs_collect(argv, ntraces, &in);
    size_t reports = order_traces(&in);
    if (reports && reports != in.n)
        tool_usage_error("whatif", "give traces or JSON reports, not both");
    if (reports) {
        int rc = whatif_reports(in.paths, in.n, o.json, o.glob);
        inputs_free(&in);
        return rc;
    }
    if (!o.have_cost)
        cost_model_pick(o.calibration, &o.cost);
    struct whatif w;
    struct whatif_writes ww;
    if (whatif_init(&w, o.sizes, o.nsizes) != 0 || whatif_writes_init(&ww, o.sizes, o.nsizes) != 0)
        tool_bad_input("out of memory");
    char err[ST_TRACE_ERROR_MAX];
    progress_start("replaying traces", in.n);
    for (size_t i = 0; i < in.n; i++) {
        if (whatif_add_trace(&w, in.paths[i], o.glob, err) != 0 ||
            whatif_writes_add_trace(&ww, in.paths[i], o.glob, err) != 0)
            tool_bad_input("%s", err);
        progress_step(i + 1, 0);
    }
    progress_end();
    if (o.json)
        print_json(&o, &w, &ww);
    else
        print_text(&o, &w, &ww);
    whatif_free(&w);
    whatif_writes_free(&ww);
    inputs_free(&in);
    return 0;
}
