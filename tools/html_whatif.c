/* html_whatif.c — see html.h: the what-if curve.
 *
 * The traces replayed at each buffer size (whatif_replay.h, as seektrace
 * whatif does with its default sizes), summed over files: kernel bytes,
 * syscalls and predicted time against the size, one panel each on a
 * common axis, the recorded size and the fastest marked; the exact figures
 * in a table below. */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>

#include "html.h"
#include "tool.h"
#include "units.h"
#include "whatif_replay.h"

#define X0 90
#define XW 820
#define PH 90 /* panel height */

static double predict(const struct st_cost_model *m, const struct whatif_cost *c)
{
    return st_cost_predict_ns(m, c->read_syscalls, c->lseek_syscalls, c->fstat_syscalls,
                              c->kernel_read_bytes);
}

static uint64_t syscalls(const struct whatif_cost *c)
{
    return c->read_syscalls + c->lseek_syscalls + c->fstat_syscalls;
}

enum series { KERNEL_BYTES, SYSCALLS, PREDICTED };

static double value(const struct st_cost_model *m, const struct whatif_cost *c, enum series s)
{
    return s == KERNEL_BYTES ? (double)c->kernel_read_bytes
         : s == SYSCALLS ? (double)syscalls(c) : predict(m, c);
}

static double x_at(size_t k, size_t n)
{
    return X0 + (n > 1 ? (double)XW * (double)k / (double)(n - 1) : XW / 2.0);
}

static void panel(FILE *f, const struct whatif *w, const struct whatif_file *t,
                  const struct st_cost_model *m, enum series s, double top, const char *label,
                  const char *cls)
{
    double max = 0;
    for (size_t k = 0; k < w->nsizes; k++)
        if (value(m, &t->at[k], s) > max)
            max = value(m, &t->at[k], s);
    fprintf(f, "<text x=\"0\" y=\"%.0f\">%s</text>\n", top + PH / 2.0, label);
    fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#888\"/>\n", X0,
            top + PH, X0 + XW, top + PH);
    fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke-width=\"2.5\" points=\"", cls);
    for (size_t k = 0; k < w->nsizes; k++)
        fprintf(f, "%.1f,%.1f ", x_at(k, w->nsizes),
                top + PH - (max > 0 ? (PH - 8) * value(m, &t->at[k], s) / max : 0));
    fputs("\"/>\n", f);
    for (size_t k = 0; k < w->nsizes; k++) {
        double v = value(m, &t->at[k], s);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"%s-dot\"><title>%.0f</title>"
                   "</circle>\n",
                x_at(k, w->nsizes), top + PH - (max > 0 ? (PH - 8) * v / max : 0), cls, v);
    }
}

static const char *fmt_ns(char *buf, size_t size, double ns)
{
    if (ns < 1e6)
        snprintf(buf, size, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, size, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, size, "%.2f s", ns / 1e9);
    return buf;
}

static void row(FILE *f, const char *label, const struct whatif_cost *c,
                const struct st_cost_model *m, const char *mark)
{
    char t[32];
    fputs("<tr><td class=\"l\">", f);
    html_text(f, label);
    fprintf(f, "%s</td>", mark);
    html_td_count(f, c->read_syscalls);
    html_td_count(f, c->lseek_syscalls);
    html_td_bytes(f, c->kernel_read_bytes);
    fprintf(f, "<td data-v=\"%.0f\">%s</td></tr>\n", predict(m, c),
            fmt_ns(t, sizeof t, predict(m, c)));
}

static void draw(FILE *f, const struct whatif *w, const struct whatif_file *t,
                 const struct st_cost_model *m)
{
    size_t best = 0, rec = (size_t)-1;
    for (size_t k = 0; k < w->nsizes; k++) {
        if (predict(m, &t->at[k]) < predict(m, &t->at[best]))
            best = k;
        if (!t->recorded_mixed && w->sizes[k] == t->recorded_size)
            rec = k;
    }
    char rs[32], bs[32];
    fprintf(f, "<p class=\"note\">%zu stream%s replayed through the model of glibc's buffering "
               "(%s rules); time model: ",
            t->streams, t->streams == 1 ? "" : "s", w->stdio_rules);
    html_text(f, m->source);
    fprintf(f, ". Recorded size: %s%s; shortest predicted time at %s.</p>\n",
            html_bytes(rs, sizeof rs, t->recorded_size), t->recorded_mixed ? " and others" : "",
            html_bytes(bs, sizeof bs, w->sizes[best]));
    fprintf(f, "<svg id=\"whatif\" width=\"960\" height=\"%d\" role=\"img\" "
               "aria-label=\"cost against buffer size\">\n",
            3 * (PH + 14) + 40);
    panel(f, w, t, m, KERNEL_BYTES, 10, "kernel bytes", "wk");
    panel(f, w, t, m, SYSCALLS, 10 + PH + 14, "syscalls", "ws");
    panel(f, w, t, m, PREDICTED, 10 + 2 * (PH + 14), "predicted time", "wt");
    double bottom = 10 + 3 * (PH + 14);
    for (size_t k = 0; k < w->nsizes; k++) {
        char s[32];
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                x_at(k, w->nsizes), bottom + 4, html_bytes(s, sizeof s, w->sizes[k]));
    }
    if (rec != (size_t)-1)
        fprintf(f, "<line x1=\"%.1f\" y1=\"6\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#c0392b\" "
                   "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" "
                   "style=\"fill:#c0392b\">recorded</text>\n",
                x_at(rec, w->nsizes), x_at(rec, w->nsizes), bottom - 10, x_at(rec, w->nsizes),
                bottom + 18);
    fprintf(f, "<line x1=\"%.1f\" y1=\"6\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#27ae60\" "
               "stroke-dasharray=\"2 2\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" "
               "style=\"fill:#27ae60\">best</text>\n",
            x_at(best, w->nsizes), x_at(best, w->nsizes), bottom - 10, x_at(best, w->nsizes),
            bottom + (best == rec ? 30 : 18));
    fputs("</svg>\n", f);
    fputs("<table class=\"sort\" id=\"whatif-table\"><thead><tr><th class=\"l\">buffer</th>"
          "<th>read syscalls</th><th>lseeks</th><th>kernel bytes</th><th>predicted</th>"
          "</tr></thead><tbody>\n",
          f);
    row(f, "exact (one pread per call)", &t->exact, m, "");
    for (size_t k = 0; k < w->nsizes; k++) {
        char s[32];
        row(f, html_bytes(s, sizeof s, w->sizes[k]), &t->at[k], m,
            k == best && k == rec ? " (best, recorded)" : k == best ? " (best)"
            : k == rec ? " (recorded)" : "");
    }
    fputs("</tbody></table>\n", f);
}

void html_whatif(FILE *f, const struct html_input *in)
{
    fputs("<h2>What other buffer sizes would cost</h2>\n", f);
    if (!in->ntraces || !in->cost) {
        fputs("<p class=\"note\">No trace among the inputs: a what-if needs the recorded calls "
              "(JSON reports hold none).</p>\n",
              f);
        return;
    }
    uint64_t sizes[TOOL_MAX_SIZES];
    size_t n = size_list_parse("html", TOOL_DEFAULT_SIZES, sizes);
    struct whatif w;
    if (whatif_init(&w, sizes, n) != 0)
        tool_bad_input("out of memory");
    char err[ST_TRACE_ERROR_MAX];
    for (size_t i = 0; i < in->ntraces; i++)
        if (whatif_add_trace(&w, in->traces[i], NULL, err) != 0)
            tool_bad_input("%s", err);
    struct whatif_file total;
    whatif_total(&w, &total);
    if (!total.at)
        tool_bad_input("out of memory");
    if (!total.streams)
        fputs("<p class=\"note\">No stdio read stream to replay (the model follows streams "
              "opened read-only on regular files).</p>\n",
              f);
    else
        draw(f, &w, &total, in->cost);
    free(total.at);
    whatif_free(&w);
}
