/* cmd_check.c — seektrace check: fail a CI build when reads cost too much.
 *
 * Every (process, file) pair is checked against the limits given; each
 * violation is printed with the file, the process, the worst call site and
 * the numbers. Exit 0 pass, 1 violation, 2 bad input.
 *
 * Files are judged one by one as a trace's footer is decoded
 * (load_opts.each_file), and a process keeps only the few rows its
 * findings need: memory holds the violations and totals, not the files
 * read (with --format junit, a test case per command and file, its name;
 * with --baseline, the figures compared). */
#define _GNU_SOURCE 1
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "baseline.h"
#include "check_state.h"
#include "findings.h"
#include "name_text.h"
#include "tool.h"
#include "units.h"

static const char usage[] =
    "usage: seektrace check LIMITS [OPTIONS] TRACE|DIR|REPORT.json ...\n"
    "\n"
    "Checks every file each process read against the limits, and the whole job\n"
    "against a baseline; prints each violation with the file, the process, its\n"
    "worst call site and the numbers. Options may come before or after the\n"
    "inputs; '--' ends them.\n"
    "\n"
    "Limits (at least one, or --baseline):\n"
    "  --max-amplification X   kernel bytes read / bytes delivered at most X (a file\n"
    "                          read from the kernel but never delivered counts as\n"
    "                          infinitely amplified, unless the process wrote it:\n"
    "                          a file only written is not judged by this limit)\n"
    "  --max-read-syscalls N   at most N read syscalls per file\n"
    "  --max-reread-bytes B    at most B bytes read again (4k, 1M, 2G ...)\n"
    "  --max-write-syscalls-per-mib N\n"
    "                          at most N write syscalls per MiB written to a file\n"
    "                          (kernel bytes; a file may always make one write)\n"
    "Baseline (a run of the same job to compare with; docs/ci.md):\n"
    "  --baseline OLD          OLD: a file from 'seektrace baseline save', or the\n"
    "                          traces or reports of the earlier run (file or DIR);\n"
    "                          fails when a file or call site of the job grew\n"
    "  --max-growth PCT        growth allowed per file and site, in percent (default\n"
    "                          10): kernel bytes and syscalls read and written, bytes\n"
    "                          read again, amplification\n"
    "  --growth-floor B        growth below B bytes (B / 4 KiB syscalls) never fails,\n"
    "                          nor does a new file wasting less (default "
    BASELINE_DEFAULT_FLOOR_TEXT ")\n"
    "  --path-prefix NAME=DIR  paths under DIR are keyed {NAME}/...: give each run its\n"
    "                          own checkout or scratch directory (repeatable)\n"
    "  --path-glob GLOB        paths matching GLOB are keyed as GLOB (temporary names;\n"
    "                          repeatable)\n"
    "Options:\n"
    "  --file GLOB             only files whose path matches GLOB (repeatable; '*'\n"
    "                          matches '/' too); a GLOB no file matches is an error\n"
    "  --site GLOB             check the call sites whose description matches GLOB\n"
    "                          ('main (app.c:42)', 'parse+0x1c (libfoo.so)';\n"
    "                          repeatable), each on its own figures, instead of\n"
    "                          whole files; a GLOB no site matches is an error\n"
    "  --min-bytes B           ignore files with fewer kernel bytes read than B (for\n"
    "                          --max-write-syscalls-per-mib: written)\n"
    "  --min-waste B           the amplification limit applies only where at least\n"
    "                          B bytes were read from the kernel and never delivered\n"
    "                          (default " CHECK_DEFAULT_MIN_WASTE_TEXT "; 0 judges every file)\n"
    "  --format text|json|junit|sarif|github|gitlab\n"
    "                          output: text (default), JSON (seektrace.check/1),\n"
    "                          JUnit XML for test dashboards (a test case per command\n"
    "                          and file, or site, named without pids); or at the\n"
    "                          source line of each call site, for code review:\n"
    "                          SARIF 2.1.0, GitHub workflow commands, GitLab Code\n"
    "                          Quality JSON: violations and regressions as errors,\n"
    "                          the report's findings as warnings\n"
    "  --source-root DIR       with sarif, github, gitlab: sources under DIR are named\n"
    "                          relative to it (default: the current directory)\n"
    "  --keep-going            skip inputs that cannot be read (corrupt, truncated):\n"
    "                          each is named on stderr and in the output; exit 3\n"
    "  --help                  this text\n"
    "\n"
    "Exit status: 0 all within limits, 1 a violation or a regression against the\n"
    "baseline, 2 bad usage, a --file or\n"
    "--site that matches nothing, or an input that cannot be read (one line names\n"
    "the file, what is wrong and where), 3 no violation but --keep-going skipped\n"
    "inputs.\n";

static int glob_match(const char *const *globs, size_t n, size_t *hits, const char *s)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        if (fnmatch(globs[i], s, 0) == 0) {
            hits[i]++;
            any = 1;
        }
    return any;
}

static int wanted(struct cctx *c, const struct st_report_file *f)
{
    const struct check_opts *o = c->o;
    if (o->nglobs && !glob_match(o->globs, o->nglobs, c->glob_hits, f->path))
        return 0;
    return f->counts.kernel_read_bytes >= o->min_bytes ||
           (o->max_write_syscalls_per_mib >= 0 && f->counts.kernel_write_bytes >= o->min_bytes);
}

/* What is judged: a file, or one of its call sites (--site). */
struct subject {
    const struct st_report_file *file;
    const char *site;          /* its description; NULL: a whole file without sites */
    const struct st_counts *k; /* the figures judged */
    const struct st_report_frame *frame; /* the site's, or NULL */
};

static void add_violation(struct cctx *c, const struct process *p, const struct subject *s,
                          const char *limit, double value, double max)
{
    if (c->nv == c->capv) {
        c->capv = c->capv ? c->capv * 2 : 16;
        c->v = realloc(c->v, c->capv * sizeof *c->v);
        if (!c->v)
            tool_bad_input("out of memory");
    }
    struct violation *v = &c->v[c->nv++];
    memset(v, 0, sizeof *v);
    v->path = strdup(s->file->path);
    char cmd[200], b1[32], b2[32], n1[32], a[32], m[32];
    argv_line(&p->report, cmd, sizeof cmd);
    v->cmd = strdup(cmd);
    v->source = strdup(p->source);
    v->pid = p->report.pid;
    v->limit = limit;
    v->value = value;
    v->max = max;
    v->kernel_read_bytes = s->k->kernel_read_bytes;
    v->delivered_bytes = s->k->delivered_bytes;
    v->read_syscalls = s->k->read_syscalls;
    v->reread_bytes = s->k->reread_bytes;
    v->write_syscalls = s->k->write_syscalls;
    v->kernel_write_bytes = s->k->kernel_write_bytes;
    v->written_bytes = s->k->written_bytes;
    if (s->frame && s->frame->source)
        v->frame_source = strdup(s->frame->source);
    v->frame_line = s->frame ? s->frame->line : 0;
    if (s->site)
        v->site = strdup(s->site);
    char head[256];
    const char *rule;
    if (strcmp(limit, "amplification") == 0) {
        rule = "limit/amplification";
        snprintf(m, sizeof m, "%gx", max); /* the limit as given, 0 too */
        snprintf(head, sizeof head, "amplification %s exceeds %s",
                 isinf(value) ? "unbounded (nothing delivered)" : st_fmt_ratio(a, sizeof a, value),
                 m);
    } else if (strcmp(limit, "read_syscalls") == 0) {
        rule = "limit/read-syscalls";
        snprintf(head, sizeof head, "%s read syscall%s exceed%s %s",
                 st_fmt_count(n1, sizeof n1, (uint64_t)value), value == 1 ? "" : "s",
                 value == 1 ? "s" : "", st_fmt_count(m, sizeof m, (uint64_t)max));
    } else if (strcmp(limit, "write_syscalls_per_mib") == 0) {
        rule = "limit/write-syscalls-per-mib";
        snprintf(head, sizeof head, "%.1f write syscalls per MiB exceed %g", value, max);
    } else {
        rule = "limit/reread-bytes";
        snprintf(head, sizeof head, "%s re-read exceeds %s",
                 st_fmt_bytes(n1, sizeof n1, (uint64_t)value), st_fmt_bytes(m, sizeof m, (uint64_t)max));
    }
    char line[2048];
    const char *where = !s->site ? "" : c->o->nsite_globs ? "; site: " : "; worst site: ";
    if (strcmp(limit, "write_syscalls_per_mib") == 0)
        snprintf(line, sizeof line,
                 "%s: %s: pid %ld (%s): %s written to the kernel in %s write syscall%s, %s "
                 "handed over%s%s",
                 s->file->path, head, p->report.pid, cmd,
                 st_fmt_bytes(b1, sizeof b1, s->k->kernel_write_bytes),
                 st_fmt_count(n1, sizeof n1, s->k->write_syscalls),
                 s->k->write_syscalls == 1 ? "" : "s",
                 st_fmt_bytes(b2, sizeof b2, s->k->written_bytes), where, s->site ? s->site : "");
    else
        snprintf(line, sizeof line,
                 "%s: %s: pid %ld (%s): %s read from the kernel in %s read syscall%s to deliver "
                 "%s%s%s",
                 s->file->path, head, p->report.pid, cmd,
                 st_fmt_bytes(b1, sizeof b1, s->k->kernel_read_bytes),
                 st_fmt_count(n1, sizeof n1, s->k->read_syscalls),
                 s->k->read_syscalls == 1 ? "" : "s",
                 st_fmt_bytes(b2, sizeof b2, s->k->delivered_bytes), where, s->site ? s->site : "");
    v->what = strdup(line);
    v->rule = rule;
}

/* A violation as an error at its call site (annotate.h). */
static void annotate_violation(struct cctx *c, const struct violation *v)
{
    struct annotation a = {
        .rule = v->rule,
        .error = 1,
        .message = v->what,
        .path = v->path,
        .source = v->frame_source,
        .line = v->frame_line,
        .kernel_read_bytes = v->kernel_read_bytes,
        .read_syscalls = v->read_syscalls,
        .delivered_bytes = v->delivered_bytes,
        .reread_bytes = v->reread_bytes,
    };
    annotations_add(&c->ann, &a);
}

/* "seektrace.<command>": the program's name, never its pid; dots would make
 * JUnit readers see packages. */
static void case_class(const struct process *p, char *buf, size_t size)
{
    const char *a0 = p->report.argc > 0 ? p->report.argv[0] : p->exe;
    const char *base = a0 && strrchr(a0, '/') ? strrchr(a0, '/') + 1 : a0;
    snprintf(buf, size, "seektrace.%s", base && *base ? base : "process");
    for (char *q = buf + strlen("seektrace."); *q; q++)
        if (*q == '.')
            *q = '_';
}

/* The subject judged as a test case of the process being read; its class
 * is the process's, known when the process is done (commit). */
static void add_pending_case(struct cctx *c, const struct subject *s, size_t first_violation)
{
    char name[4096];
    if (c->o->nsite_globs)
        snprintf(name, sizeof name, "%s -> %s", s->site, s->file->path);
    else
        snprintf(name, sizeof name, "%s", s->file->path);
    if (c->npending == c->cappending) {
        c->cappending = c->cappending ? c->cappending * 2 : 64;
        c->pending = realloc(c->pending, c->cappending * sizeof *c->pending);
        if (!c->pending)
            tool_bad_input("out of memory");
    }
    struct pending_case *q = &c->pending[c->npending++];
    q->name = strdup(name);
    if (!q->name)
        tool_bad_input("out of memory");
    q->first = first_violation;
    q->end = c->nv;
}

static size_t case_hash(const char *name, const char *cls)
{
    size_t h = 1469598103934665603ull;
    for (const char *s = name; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
    for (const char *s = cls; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static size_t *case_slot(struct cctx *c, const char *name, const char *cls)
{
    size_t mask = c->case_index_cap - 1, j = case_hash(name, cls) & mask;
    while (c->case_index[j]) {
        const struct tcase *t = &c->cases[c->case_index[j] - 1];
        if (strcmp(t->name, name) == 0 && strcmp(t->classname, cls) == 0)
            break;
        j = (j + 1) & mask;
    }
    return &c->case_index[j];
}

/* The test case (name, cls), made when there is none; its violations
 * c->v[first, end) added. */
static void add_case(struct cctx *c, const char *cls, const char *name, size_t first, size_t end)
{
    if ((c->ncases + 1) * 2 > c->case_index_cap) {
        free(c->case_index);
        c->case_index_cap = c->case_index_cap ? c->case_index_cap * 2 : 1024;
        c->case_index = calloc(c->case_index_cap, sizeof *c->case_index);
        if (!c->case_index)
            tool_bad_input("out of memory");
        for (size_t i = 0; i < c->ncases; i++)
            *case_slot(c, c->cases[i].name, c->cases[i].classname) = i + 1;
    }
    size_t *slot = case_slot(c, name, cls);
    if (!*slot) {
        if (c->ncases == c->capcases) {
            c->capcases = c->capcases ? c->capcases * 2 : 64;
            c->cases = realloc(c->cases, c->capcases * sizeof *c->cases);
            if (!c->cases)
                tool_bad_input("out of memory");
        }
        struct tcase *t = &c->cases[c->ncases++];
        memset(t, 0, sizeof *t);
        t->name = strdup(name);
        t->classname = strdup(cls);
        *slot = c->ncases;
    }
    struct tcase *t = &c->cases[*slot - 1];
    size_t more = end - first;
    if (!more)
        return;
    size_t *v = realloc(t->violations, (t->nviolations + more) * sizeof *v);
    if (!v)
        tool_bad_input("out of memory");
    t->violations = v;
    for (size_t k = first; k < end; k++)
        t->violations[t->nviolations++] = k;
}

static int limits_given(const struct check_opts *o)
{
    return o->max_amplification >= 0 || o->max_read_syscalls >= 0 || o->max_reread_bytes >= 0 ||
           o->max_write_syscalls_per_mib >= 0;
}

/* Write syscalls per MiB written to the kernel; a file may always make one
 * write (however few its bytes, it cannot make fewer), so a write limit
 * fails only past max(1, N x MiB written). Files the read limits select
 * by --min-bytes are selected here by kernel bytes written instead. */
static void judge_writes(struct cctx *c, const struct process *p, const struct subject *s)
{
    const struct st_counts *k = s->k;
    double n = c->o->max_write_syscalls_per_mib;
    if (!k->write_syscalls || s->file->counts.kernel_write_bytes < c->o->min_bytes)
        return;
    double mib = (double)k->kernel_write_bytes / (1024.0 * 1024.0);
    double allowed = fmax(1.0, ceil(n * mib));
    if ((double)k->write_syscalls > allowed)
        add_violation(c, p, s, "write_syscalls_per_mib",
                      mib > 0 ? (double)k->write_syscalls / mib : INFINITY, n);
}

static void judge(struct cctx *c, const struct process *p, const struct subject *s)
{
    const struct check_opts *o = c->o;
    const struct st_counts *k = s->k;
    size_t before = c->nv;
    if (o->max_amplification >= 0 && k->kernel_read_bytes) {
        /* Written and never delivered (an assembler's output, a file opened
         * "w+"): its reads are the write path's, not a reader's waste. */
        int written_only = !k->delivered_bytes && (k->write_syscalls || k->kernel_write_bytes);
        if (written_only)
            c->written_only++;
        else if (st_counts_wasted_bytes(k) < o->min_waste)
            c->below_floor++;
        else {
            double amp = k->delivered_bytes ? st_counts_amplification(k) : INFINITY;
            if (amp > o->max_amplification)
                add_violation(c, p, s, "amplification", amp, o->max_amplification);
        }
    }
    if (o->max_read_syscalls >= 0 && k->read_syscalls > (uint64_t)o->max_read_syscalls)
        add_violation(c, p, s, "read_syscalls", (double)k->read_syscalls,
                      (double)o->max_read_syscalls);
    if (o->max_reread_bytes >= 0 && k->reread_bytes > (uint64_t)o->max_reread_bytes)
        add_violation(c, p, s, "reread_bytes", (double)k->reread_bytes,
                      (double)o->max_reread_bytes);
    if (o->max_write_syscalls_per_mib >= 0)
        judge_writes(c, p, s);
    if (strcmp(o->format, "junit") == 0 && limits_given(o))
        add_pending_case(c, s, before);
}

/* The report's findings for p, as warnings at their call sites. */
static void annotate_findings(struct cctx *c, const struct process *p)
{
    struct st_finding found[ST_REPORT_TEXT_FINDINGS];
    size_t n = st_find_problems(&p->report, found, ST_REPORT_TEXT_FINDINGS);
    for (size_t i = 0; i < n; i++) {
        const struct st_finding *x = &found[i];
        const struct st_report_frame *fr =
            x->site && x->site->nframes ? &x->site->frames[0] : NULL;
        const struct st_counts *k = x->site ? &x->site->counts : &x->file->counts;
        char message[sizeof x->what + sizeof x->change + 16];
        snprintf(message, sizeof message, "%s Change: %s", x->what, x->change);
        struct annotation a = {
            .rule = x->rule,
            .message = message,
            .path = (char *)x->file->path,
            .source = fr ? (char *)fr->source : NULL,
            .line = fr ? fr->line : 0,
            .kernel_read_bytes = k->kernel_read_bytes,
            .read_syscalls = k->read_syscalls,
            .delivered_bytes = k->delivered_bytes,
            .reread_bytes = k->reread_bytes,
        };
        annotations_add(&c->ann, &a);
    }
}

/* One file of p, as it is shown (load_opts.each_file): judged whole, or
 * its sites matching --site each. */
static void check_file(const struct process *p, const struct st_report_file *f, void *vctx)
{
    struct cctx *c = vctx;
    const struct check_opts *o = c->o;
    if (!wanted(c, f))
        return;
    c->files++;
    char desc[512];
    if (!o->nsite_globs) {
        const struct st_report_site *top = f->nsites ? &f->sites[0] : NULL;
        struct subject s = {f, NULL, &f->counts, NULL};
        if (top && top->nframes) {
            s.site = st_frame_describe(&top->frames[0], desc, sizeof desc);
            s.frame = &top->frames[0];
        }
        judge(c, p, &s);
        return;
    }
    for (size_t k = 0; k < f->nsites; k++) {
        const struct st_report_site *site = &f->sites[k];
        st_frame_describe(site->nframes ? &site->frames[0] : NULL, desc, sizeof desc);
        if (!glob_match(o->site_globs, o->nsite_globs, c->site_hits, desc))
            continue;
        c->sites++;
        struct subject s = {f, desc, &site->counts, site->nframes ? &site->frames[0] : NULL};
        judge(c, p, &s);
    }
}

static void free_pending(struct cctx *c)
{
    for (size_t i = 0; i < c->npending; i++)
        free(c->pending[i].name);
    c->npending = 0;
}

/* What was counted so far is what stays: the next process starts here. */
static void tally_keep(struct cctx *c)
{
    c->before = (struct tally){c->nv, c->files, c->sites, c->written_only, c->below_floor};
    memcpy(c->glob_hits_before, c->glob_hits, c->o->nglobs * sizeof *c->glob_hits);
    memcpy(c->site_hits_before, c->site_hits, c->o->nsite_globs * sizeof *c->site_hits);
}

static void free_violation(struct violation *v)
{
    free(v->path);
    free(v->cmd);
    free(v->site);
    free(v->source);
    free(v->frame_source);
    free(v->what);
}

/* An input that could not be read in full: what its files added goes. */
static void tally_drop(struct cctx *c)
{
    for (size_t i = c->before.nv; i < c->nv; i++)
        free_violation(&c->v[i]);
    c->nv = c->before.nv;
    c->files = c->before.files;
    c->sites = c->before.sites;
    c->written_only = c->before.written_only;
    c->below_floor = c->before.below_floor;
    memcpy(c->glob_hits, c->glob_hits_before, c->o->nglobs * sizeof *c->glob_hits);
    memcpy(c->site_hits, c->site_hits_before, c->o->nsite_globs * sizeof *c->site_hits);
    free_pending(c);
}

/* A process read whole, its files judged: its findings, then its
 * violations, are annotations; its test cases are the job's. */
static int on_process(struct process *p, void *vctx)
{
    struct cctx *c = vctx;
    const struct check_opts *o = c->o;
    c->processes++;
    if (c->now)
        baseline_add(c->now, p);
    if (annotations_format(o->format)) {
        annotate_findings(c, p);
        for (size_t i = c->before.nv; i < c->nv; i++)
            annotate_violation(c, &c->v[i]);
    }
    if (c->npending) {
        char cls[256];
        case_class(p, cls, sizeof cls);
        for (size_t i = 0; i < c->npending; i++)
            add_case(c, cls, c->pending[i].name, c->pending[i].first, c->pending[i].end);
        free_pending(c);
    }
    tally_keep(c);
    progress_step(c->processes, 0);
    return 0;
}

/* A --file or --site that matched nothing is a mistake (a typo passes
 * every gate): one line naming them, exit 2. */
static void unmatched_globs(const struct cctx *c)
{
    const struct check_opts *o = c->o;
    char list[1024] = "";
    size_t n = 0, used = 0;
    for (int site = 0; site < 2; site++) {
        const char *const *globs = site ? o->site_globs : o->globs;
        const size_t *hits = site ? c->site_hits : c->glob_hits;
        for (size_t i = 0; i < (site ? o->nsite_globs : o->nglobs); i++) {
            if (hits[i])
                continue;
            int k = snprintf(list + used, sizeof list - used, "%s--%s '%s'", n ? ", " : "",
                             site ? "site" : "file", globs[i]);
            if (k > 0 && (size_t)k < sizeof list - used)
                used += (size_t)k;
            n++;
        }
    }
    if (n)
        tool_bad_input("check: %s match%s nothing in the %zu process%s read; nothing was "
                       "checked against %s",
                       list, n == 1 ? "es" : "", c->processes, c->processes == 1 ? "" : "es",
                       n == 1 ? "it" : "them");
}

int check_run(const struct check_opts *o, char **paths, int npaths)
{
    struct cctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.glob_hits = calloc(o->nglobs + 1, sizeof *c.glob_hits);
    c.site_hits = calloc(o->nsite_globs + 1, sizeof *c.site_hits);
    c.glob_hits_before = calloc(o->nglobs + 1, sizeof *c.glob_hits);
    c.site_hits_before = calloc(o->nsite_globs + 1, sizeof *c.site_hits);
    if (!c.glob_hits || !c.site_hits || !c.glob_hits_before || !c.site_hits_before)
        tool_bad_input("out of memory");
    struct baseline *old = NULL;
    if (o->baseline) {
        char err[ST_TRACE_ERROR_MAX];
        old = baseline_open(o->baseline, o->keys, err);
        if (!old)
            tool_bad_input("check --baseline: %s", err);
        c.now = baseline_new(o->keys);
    }
    /* A trace's rows: those its findings come from (annotations); every
     * one for the baseline, which takes each process whole. */
    struct st_footer_rows rows = {
        .files = 1,
        .findings = annotations_format(o->format) ? ST_REPORT_TEXT_FINDINGS : 0,
    };
    struct load_opts lo = {.want_sites = 1, .rows = old ? NULL : &rows, .each_file = check_file};
    progress_start("checking", (uint64_t)npaths);
    for (int i = 0; i < npaths; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_process, &c, err) == 0)
            continue;
        tally_drop(&c);
        if (!o->keep_going)
            tool_bad_input("%s", err);
        skipped_add(&c.skipped, paths[i], err);
    }
    progress_end();
    if (npaths && c.skipped.n == (size_t)npaths)
        tool_bad_input("none of the %d inputs could be read", npaths);
    unmatched_globs(&c);
    if (old)
        c.diff = baseline_compare(old, c.now, o->max_growth, o->growth_floor);
    FILE *f = stdout;
    if (c.diff && annotations_format(o->format))
        baseline_diff_annotate(c.diff, o->keys, &c.ann);
    if (annotations_format(o->format))
        annotations_write(&c.ann, o->format, o->source_root, f);
    else if (strcmp(o->format, "json") == 0)
        check_print_json(f, &c);
    else if (strcmp(o->format, "junit") == 0)
        check_print_junit(f, &c);
    else
        check_print_text(f, &c);
    if (fflush(f) != 0)
        tool_bad_input("cannot write the output");
    int rc = check_failed(&c) ? EXIT_VIOLATION : c.skipped.n ? EXIT_SKIPPED : 0;
    baseline_diff_free(c.diff);
    annotations_free(&c.ann);
    baseline_free(c.now);
    baseline_free(old);
    for (size_t i = 0; i < c.nv; i++)
        free_violation(&c.v[i]);
    free(c.v);
    for (size_t i = 0; i < c.ncases; i++) {
        free(c.cases[i].name);
        free(c.cases[i].classname);
        free(c.cases[i].violations);
    }
    free(c.cases);
    free(c.case_index);
    free(c.pending);
    free(c.glob_hits);
    free(c.site_hits);
    free(c.glob_hits_before);
    free(c.site_hits_before);
    skipped_free(&c.skipped);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    struct check_opts o;
    check_opts_init(&o);
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    if (!pos)
        tool_bad_input("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            free(pos);
            check_opts_free(&o);
            return 0;
        } else if (strcmp(a, "--keep-going") == 0) {
            o.keep_going = 1;
        } else if (check_opts_parse(&o, "check", argc, argv, &i)) {
            continue;
        } else {
            opt_positional("check", argc, argv, &i, pos, &npos);
        }
    }
    if (!o.any)
        tool_usage_error("check", "give at least one limit (--max-amplification, "
                                  "--max-read-syscalls, --max-reread-bytes, "
                                  "--max-write-syscalls-per-mib) or --baseline");
    if (!npos)
        tool_usage_error("check", "no trace, directory or report given");
    struct inputs in;
    inputs_collect(pos, npos, &in);
    int rc = check_run(&o, in.paths, (int)in.n);
    inputs_free(&in);
    free(pos);
    check_opts_free(&o);
    return rc;
}
