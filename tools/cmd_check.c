/* cmd_check.c — seektrace check: fail a CI build when reads cost too much.
 *
 * Every (process, file) pair is checked against the limits given; each
 * violation is printed with the file, the process, the worst call site and
 * the numbers. Exit 0 pass, 1 violation, 2 bad input. */
#define _GNU_SOURCE 1
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "name_text.h"
#include "tool.h"
#include "units.h"

static const char usage[] =
    "usage: seektrace check LIMITS [OPTIONS] TRACE|DIR|REPORT.json ...\n"
    "\n"
    "Checks every file each process read against the limits; prints each violation\n"
    "with the file, the process, its worst call site and the numbers.\n"
    "\n"
    "Limits (at least one):\n"
    "  --max-amplification X   kernel bytes read / bytes delivered at most X (a file\n"
    "                          read from the kernel but never delivered counts as\n"
    "                          infinitely amplified)\n"
    "  --max-read-syscalls N   at most N read syscalls per file\n"
    "  --max-reread-bytes B    at most B bytes read again (4k, 1M, 2G ...)\n"
    "Options:\n"
    "  --file GLOB             only files whose path matches GLOB (repeatable; '*'\n"
    "                          matches '/' too)\n"
    "  --min-bytes B           ignore files with fewer kernel bytes read than B\n"
    "  --format text|json|junit  output: text (default), JSON (seektrace.check/1), or\n"
    "                          JUnit XML for test dashboards (a test case per file)\n"
    "  --help                  this text\n"
    "\n"
    "Exit status: 0 all within limits, 1 a violation, 2 bad usage or an input that\n"
    "cannot be read (one line names the file, what is wrong and where).\n";

void check_opts_init(struct check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_amplification = -1;
    o->max_read_syscalls = -1;
    o->max_reread_bytes = -1;
    o->format = "text";
}

int check_opts_parse(struct check_opts *o, const char *cmd, int argc, char **argv, int *i)
{
    const char *v;
    uint64_t size;
    if (opt_value(cmd, argc, argv, i, "--max-amplification", &v)) {
        char *end;
        double x = strtod(v, &end);
        if (*end == 'x' || *end == 'X')
            end++;
        if (*end || !(x >= 0) || !isfinite(x))
            tool_usage_error(cmd, "--max-amplification takes a number like 10 or 2.5, not '%s'", v);
        o->max_amplification = x;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--max-read-syscalls", &v)) {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*end || n < 0)
            tool_usage_error(cmd, "--max-read-syscalls takes a count, not '%s'", v);
        o->max_read_syscalls = n;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--max-reread-bytes", &v)) {
        if (st_parse_size(v, &size) != 0 || size > INT64_MAX)
            tool_usage_error(cmd, "--max-reread-bytes takes a size like 0, 64k or 1M, not '%s'", v);
        o->max_reread_bytes = (int64_t)size;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--min-bytes", &v)) {
        if (st_parse_size(v, &size) != 0)
            tool_usage_error(cmd, "--min-bytes takes a size like 4k or 1M, not '%s'", v);
        o->min_bytes = size;
    } else if (opt_value(cmd, argc, argv, i, "--file", &v)) {
        const char **g = realloc(o->globs, (o->nglobs + 1) * sizeof *g);
        if (!g)
            tool_bad_input("out of memory");
        g[o->nglobs++] = v;
        o->globs = g;
    } else if (opt_value(cmd, argc, argv, i, "--format", &v)) {
        if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0 && strcmp(v, "junit") != 0)
            tool_usage_error(cmd, "--format takes text, json or junit, not '%s'", v);
        o->format = v;
    } else {
        return 0;
    }
    return 1;
}

struct violation {
    char *path, *cmd, *site, *source;
    long pid;
    const char *limit;  /* "amplification", "read_syscalls", "reread_bytes" */
    double value, max;
    struct st_counts c; /* the file's figures (by_call unused) */
    char *what;         /* the line printed */
};

struct tcase {
    char *name, *classname;
    size_t first_violation, nviolations;
};

struct cctx {
    const struct check_opts *o;
    struct violation *v;
    size_t nv, capv;
    struct tcase *cases;
    size_t ncases, capcases;
    size_t processes, files;
};

static int wanted(const struct check_opts *o, const struct st_report_file *f)
{
    if (f->counts.kernel_read_bytes < o->min_bytes)
        return 0;
    if (!o->nglobs)
        return 1;
    for (size_t i = 0; i < o->nglobs; i++)
        if (fnmatch(o->globs[i], f->path, 0) == 0)
            return 1;
    return 0;
}

static void add_violation(struct cctx *c, const struct process *p, const struct st_report_file *f,
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
    v->path = strdup(f->path);
    char cmd[200], site[512], b1[32], b2[32], n1[32], a[32], m[32];
    argv_line(&p->report, cmd, sizeof cmd);
    v->cmd = strdup(cmd);
    v->source = strdup(p->source);
    v->pid = p->report.pid;
    v->limit = limit;
    v->value = value;
    v->max = max;
    v->c = f->counts;
    const struct st_report_site *top = f->nsites ? &f->sites[0] : NULL;
    if (top && top->nframes) {
        st_frame_describe(&top->frames[0], site, sizeof site);
        v->site = strdup(site);
    }
    char head[256];
    if (strcmp(limit, "amplification") == 0) {
        snprintf(m, sizeof m, "%gx", max); /* the limit as given, 0 too */
        snprintf(head, sizeof head, "amplification %s exceeds %s",
                 isinf(value) ? "unbounded (nothing delivered)" : st_fmt_ratio(a, sizeof a, value),
                 m);
    }
    else if (strcmp(limit, "read_syscalls") == 0)
        snprintf(head, sizeof head, "%s read syscalls exceed %s",
                 st_fmt_count(n1, sizeof n1, (uint64_t)value), st_fmt_count(m, sizeof m, (uint64_t)max));
    else
        snprintf(head, sizeof head, "%s re-read exceeds %s",
                 st_fmt_bytes(n1, sizeof n1, (uint64_t)value), st_fmt_bytes(m, sizeof m, (uint64_t)max));
    char line[2048];
    snprintf(line, sizeof line,
             "%s: %s: pid %ld (%s): %s read from the kernel in %s read syscalls to deliver %s%s%s",
             f->path, head, p->report.pid, cmd,
             st_fmt_bytes(b1, sizeof b1, f->counts.kernel_read_bytes),
             st_fmt_count(n1, sizeof n1, f->counts.read_syscalls),
             st_fmt_bytes(b2, sizeof b2, f->counts.delivered_bytes), v->site ? "; worst site: " : "",
             v->site ? v->site : "");
    v->what = strdup(line);
}

static int on_process(struct process *p, void *vctx)
{
    struct cctx *c = vctx;
    const struct check_opts *o = c->o;
    c->processes++;
    char cmd[200];
    argv_line(&p->report, cmd, sizeof cmd);
    for (size_t i = 0; i < p->report.nfiles; i++) {
        const struct st_report_file *f = &p->report.files[i];
        if (!wanted(o, f))
            continue;
        c->files++;
        size_t before = c->nv;
        const struct st_counts *k = &f->counts;
        if (o->max_amplification >= 0 && k->kernel_read_bytes) {
            double amp = k->delivered_bytes ? st_counts_amplification(k) : INFINITY;
            if (amp > o->max_amplification)
                add_violation(c, p, f, "amplification", amp, o->max_amplification);
        }
        if (o->max_read_syscalls >= 0 && k->read_syscalls > (uint64_t)o->max_read_syscalls)
            add_violation(c, p, f, "read_syscalls", (double)k->read_syscalls,
                          (double)o->max_read_syscalls);
        if (o->max_reread_bytes >= 0 && k->reread_bytes > (uint64_t)o->max_reread_bytes)
            add_violation(c, p, f, "reread_bytes", (double)k->reread_bytes,
                          (double)o->max_reread_bytes);
        if (strcmp(o->format, "junit") == 0) {
            if (c->ncases == c->capcases) {
                c->capcases = c->capcases ? c->capcases * 2 : 64;
                c->cases = realloc(c->cases, c->capcases * sizeof *c->cases);
                if (!c->cases)
                    tool_bad_input("out of memory");
            }
            struct tcase *t = &c->cases[c->ncases++];
            t->name = strdup(f->path);
            char cls[256];
            snprintf(cls, sizeof cls, "seektrace.pid%ld", p->report.pid);
            t->classname = strdup(cls);
            t->first_violation = before;
            t->nviolations = c->nv - before;
        }
    }
    progress_step(c->processes, 0);
    return 0;
}

/* XML 1.0 text, well-formed UTF-8 as JSON's strings are (name_text.h). */
static void xml(FILE *f, const char *s)
{
    for (size_t left = strlen(s); left;) {
        char piece[ST_NAME_PIECE_MAX];
        size_t len, took = st_name_piece(s, left, piece, &len);
        s += took;
        left -= took;
        switch (len == 1 ? piece[0] : 0) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if (len == 1 && (unsigned char)piece[0] < 0x20 && piece[0] != '\t')
                fputs("?", f); /* not allowed in XML 1.0 */
            else
                fwrite(piece, 1, len, f);
        }
    }
}

static void json_num(FILE *f, double x)
{
    if (isinf(x) || isnan(x))
        fputs("null", f);
    else if (x == floor(x) && fabs(x) < 9e15)
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.6g", x);
}

int check_run(const struct check_opts *o, char **paths, int npaths)
{
    struct cctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    struct load_opts lo = {0, 1};
    progress_start("checking", (uint64_t)npaths);
    for (int i = 0; i < npaths; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_process, &c, err) != 0)
            tool_bad_input("%s", err);
    }
    progress_end();
    FILE *f = stdout;
    if (strcmp(o->format, "json") == 0) {
        fprintf(f, "{\"schema\":\"seektrace.check/1\",\"passed\":%s,\"limits\":{",
                c.nv ? "false" : "true");
        int comma = 0;
        if (o->max_amplification >= 0) {
            fprintf(f, "\"max_amplification\":");
            json_num(f, o->max_amplification);
            comma = 1;
        }
        if (o->max_read_syscalls >= 0)
            fprintf(f, "%s\"max_read_syscalls\":%" PRId64, comma++ ? "," : "", o->max_read_syscalls);
        if (o->max_reread_bytes >= 0)
            fprintf(f, "%s\"max_reread_bytes\":%" PRId64, comma++ ? "," : "", o->max_reread_bytes);
        fprintf(f, "%s\"min_bytes\":%" PRIu64 "},\"checked\":{\"processes\":%zu,\"files\":%zu},"
                   "\"violations\":[",
                comma ? "," : "", o->min_bytes, c.processes, c.files);
        for (size_t i = 0; i < c.nv; i++) {
            struct violation *v = &c.v[i];
            fprintf(f, "%s{\"path\":", i ? "," : "");
            json_str(f, v->path);
            fprintf(f, ",\"pid\":%ld,\"command\":", v->pid);
            json_str(f, v->cmd);
            fprintf(f, ",\"source\":");
            json_str(f, v->source);
            fprintf(f, ",\"limit\":\"%s\",\"value\":", v->limit);
            json_num(f, v->value);
            fprintf(f, ",\"max\":");
            json_num(f, v->max);
            fprintf(f, ",\"site\":");
            if (v->site)
                json_str(f, v->site);
            else
                fputs("null", f);
            fprintf(f, ",\"kernel_read_bytes\":%" PRIu64 ",\"delivered_bytes\":%" PRIu64
                       ",\"read_syscalls\":%" PRIu64 ",\"reread_bytes\":%" PRIu64 ",\"message\":",
                    v->c.kernel_read_bytes, v->c.delivered_bytes, v->c.read_syscalls,
                    v->c.reread_bytes);
            json_str(f, v->what);
            fputc('}', f);
        }
        fprintf(f, "]}\n");
    } else if (strcmp(o->format, "junit") == 0) {
        size_t failing = 0;
        for (size_t i = 0; i < c.ncases; i++)
            failing += c.cases[i].nviolations > 0;
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<testsuites name=\"seektrace check\" tests=\"%zu\" failures=\"%zu\">\n"
                   "  <testsuite name=\"seektrace check\" tests=\"%zu\" failures=\"%zu\">\n",
                c.ncases, failing, c.ncases, failing);
        for (size_t i = 0; i < c.ncases; i++) {
            struct tcase *t = &c.cases[i];
            fprintf(f, "    <testcase classname=\"");
            xml(f, t->classname);
            fprintf(f, "\" name=\"");
            xml(f, t->name);
            if (!t->nviolations) {
                fprintf(f, "\"/>\n");
                continue;
            }
            fprintf(f, "\">\n");
            for (size_t k = 0; k < t->nviolations; k++) {
                struct violation *v = &c.v[t->first_violation + k];
                fprintf(f, "      <failure type=\"%s\" message=\"", v->limit);
                xml(f, v->what);
                fprintf(f, "\"/>\n");
            }
            fprintf(f, "    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n</testsuites>\n");
    } else {
        for (size_t i = 0; i < c.nv; i++)
            fprintf(f, "%s\n", c.v[i].what);
        if (c.nv)
            fprintf(f, "seektrace check: FAILED: %zu violation%s in %zu file%s checked of %zu "
                       "process%s\n",
                    c.nv, c.nv == 1 ? "" : "s", c.files, c.files == 1 ? "" : "s", c.processes,
                    c.processes == 1 ? "" : "es");
        else
            fprintf(f, "seektrace check: passed: %zu file%s of %zu process%s within limits\n",
                    c.files, c.files == 1 ? "" : "s", c.processes, c.processes == 1 ? "" : "es");
    }
    if (fflush(f) != 0)
        tool_bad_input("cannot write the output");
    int rc = c.nv ? EXIT_VIOLATION : 0;
    for (size_t i = 0; i < c.nv; i++) {
        free(c.v[i].path);
        free(c.v[i].cmd);
        free(c.v[i].site);
        free(c.v[i].source);
        free(c.v[i].what);
    }
    free(c.v);
    for (size_t i = 0; i < c.ncases; i++) {
        free(c.cases[i].name);
        free(c.cases[i].classname);
    }
    free(c.cases);
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
            free(o.globs);
            return 0;
        } else if (check_opts_parse(&o, "check", argc, argv, &i)) {
            continue;
        } else if (strcmp(a, "--") == 0) {
            while (++i < argc)
                pos[npos++] = argv[i];
        } else if (a[0] == '-' && a[1]) {
            tool_usage_error("check", "unknown option '%s'", a);
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (!o.any)
        tool_usage_error("check", "give at least one limit (--max-amplification, "
                                  "--max-read-syscalls, --max-reread-bytes)");
    if (!npos)
        tool_usage_error("check", "no trace, directory or report given");
    struct inputs in;
    inputs_collect(pos, npos, &in);
    int rc = check_run(&o, in.paths, (int)in.n);
    inputs_free(&in);
    free(pos);
    free(o.globs);
    return rc;
}
