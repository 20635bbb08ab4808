/* check_print.c — seektrace check's result in text, JSON and JUnit XML
 * (check_state.h); the annotation formats are annotate.c's. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "check_state.h"
#include "name_text.h"
#include "units.h"

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

int check_failed(const struct cctx *c)
{
    return c->nv || (c->diff && baseline_regressions(c->diff));
}

void check_print_json(FILE *f, const struct cctx *c)
{
    const struct check_opts *o = c->o;
    fprintf(f, "{\"schema\":\"seektrace.check/1\",\"passed\":%s,\"limits\":{",
            check_failed(c) ? "false" : "true");
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
    if (o->max_write_syscalls_per_mib >= 0) {
        fprintf(f, "%s\"max_write_syscalls_per_mib\":", comma++ ? "," : "");
        json_num(f, o->max_write_syscalls_per_mib);
    }
    fprintf(f, "%s\"min_bytes\":%" PRIu64 ",\"min_waste\":%" PRIu64 "},\"checked\":{"
               "\"processes\":%zu,\"files\":%zu",
            comma ? "," : "", o->min_bytes, o->min_waste, c->processes, c->files);
    if (o->nsite_globs)
        fprintf(f, ",\"sites\":%zu", c->sites);
    fprintf(f, ",\"written_only\":%zu,\"below_min_waste\":%zu},\"violations\":[", c->written_only,
            c->below_floor);
    for (size_t i = 0; i < c->nv; i++) {
        const struct violation *v = &c->v[i];
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
                   ",\"read_syscalls\":%" PRIu64 ",\"reread_bytes\":%" PRIu64
                   ",\"write_syscalls\":%" PRIu64 ",\"kernel_write_bytes\":%" PRIu64
                   ",\"written_bytes\":%" PRIu64 ",\"message\":",
                v->kernel_read_bytes, v->delivered_bytes, v->read_syscalls, v->reread_bytes,
                v->write_syscalls, v->kernel_write_bytes, v->written_bytes);
        json_str(f, v->what);
        fputc('}', f);
    }
    fprintf(f, "]");
    if (c->diff) {
        fprintf(f, ",\"baseline\":{\"source\":");
        json_str(f, o->baseline);
        fputc(',', f);
        baseline_diff_json(c->diff, f);
        fputc('}', f);
    }
    if (c->skipped.n) {
        fprintf(f, ",\"skipped\":[");
        skipped_json(f, &c->skipped);
        fprintf(f, "]");
    }
    fprintf(f, "}\n");
}

/* Each input --keep-going skipped is a test case in error: the dashboard
 * shows that part of the job was not checked. */
void check_print_junit(FILE *f, const struct cctx *c)
{
    size_t failing = 0;
    for (size_t i = 0; i < c->ncases; i++)
        failing += c->cases[i].nviolations > 0;
    size_t tests = c->ncases + c->skipped.n;
    if (c->diff) {
        failing += baseline_regressions(c->diff);
        tests += baseline_diff_cases(c->diff);
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"seektrace check\" tests=\"%zu\" failures=\"%zu\" "
               "errors=\"%zu\">\n"
               "  <testsuite name=\"seektrace check\" tests=\"%zu\" failures=\"%zu\" "
               "errors=\"%zu\">\n",
            tests, failing, c->skipped.n, tests, failing, c->skipped.n);
    for (size_t i = 0; i < c->ncases; i++) {
        const struct tcase *t = &c->cases[i];
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
            const struct violation *v = &c->v[t->violations[k]];
            fprintf(f, "      <failure type=\"%s\" message=\"", v->limit);
            xml(f, v->what);
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "    </testcase>\n");
    }
    if (c->diff)
        baseline_diff_junit(c->diff, f, xml);
    for (size_t i = 0; i < c->skipped.n; i++) {
        fprintf(f, "    <testcase classname=\"seektrace.input\" name=\"");
        xml(f, c->skipped.paths[i]);
        fprintf(f, "\">\n      <error type=\"unreadable\" message=\"");
        xml(f, c->skipped.errors[i]);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
}

void check_print_text(FILE *f, const struct cctx *c)
{
    for (size_t i = 0; i < c->nv; i++)
        fprintf(f, "%s\n", c->v[i].what);
    if (c->diff)
        baseline_diff_text(c->diff, f);
    for (size_t i = 0; i < c->skipped.n; i++)
        fprintf(f, "skipped (--keep-going): %s\n", c->skipped.errors[i]);
    char what[128];
    if (c->o->nsite_globs)
        snprintf(what, sizeof what, "%zu site%s in %zu file%s", c->sites, c->sites == 1 ? "" : "s",
                 c->files, c->files == 1 ? "" : "s");
    else
        snprintf(what, sizeof what, "%zu file%s", c->files, c->files == 1 ? "" : "s");
    size_t regressions = c->diff ? baseline_regressions(c->diff) : 0;
    if (c->nv)
        fprintf(f, "seektrace check: FAILED: %zu violation%s in %s checked of %zu process%s",
                c->nv, c->nv == 1 ? "" : "s", what, c->processes, c->processes == 1 ? "" : "es");
    else if (regressions)
        fprintf(f, "seektrace check: FAILED: %s checked of %zu process%s", what, c->processes,
                c->processes == 1 ? "" : "es");
    else
        fprintf(f, "seektrace check: passed: %s of %zu process%s within limits", what,
                c->processes, c->processes == 1 ? "" : "es");
    if (regressions)
        fprintf(f, "; %zu regression%s against the baseline", regressions,
                regressions == 1 ? "" : "s");
    else if (c->diff)
        fprintf(f, "; no regression against the baseline");
    if (c->skipped.n)
        fprintf(f, "; %zu input%s skipped, unreadable", c->skipped.n,
                c->skipped.n == 1 ? "" : "s");
    fprintf(f, "\n");
}
