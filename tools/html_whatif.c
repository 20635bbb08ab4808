/* html_whatif.c — see html.h: the what-if curve.
 *
 * The traces replayed at each buffer size (whatif_replay.h, as seektrace
 * whatif does; at a sweep's sizes when one is given, so that the two
 * compare point for point), summed over files: kernel bytes, read and
 * lseek syscalls and predicted time against the size, one panel each on a
 * common axis, the recorded size and the fastest marked. A sweep's
 * measurements (sweep --json) go on the same axes as hollow squares, its
 * wall time beside the predicted time. The exact figures are in a table
 * below. */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>

#include "html.h"
#include "tool.h"
#include "units.h"
#include "whatif_replay.h"

#define X0 110
#define XW 800
#define PH 90 /* panel height */

static double predict(const struct st_cost_model *m, const struct whatif_cost *c)
{
    return st_cost_predict_ns(m, c->read_syscalls, c->lseek_syscalls, c->fstat_syscalls,
                              c->kernel_read_bytes);
}

/* What is drawn: the model's points (NULL: none) and the sweep's. */
struct curve {
    const uint64_t *sizes;
    size_t n;
    const struct whatif_file *model;
    const struct st_cost_model *cost;
    const struct html_sweep *sweep;
};

enum series { KERNEL_BYTES, SYSCALLS, TIME };

static double predicted(const struct curve *c, size_t k, enum series s)
{
    const struct whatif_cost *w = &c->model->at[k];
    return s == KERNEL_BYTES ? (double)w->kernel_read_bytes
         : s == SYSCALLS ? (double)(w->read_syscalls + w->lseek_syscalls) : predict(c->cost, w);
}

static double measured(const struct curve *c, size_t k, enum series s)
{
    const struct html_sweep *w = c->sweep;
    return s == KERNEL_BYTES ? (double)w->kernel_read_bytes[k]
         : s == SYSCALLS ? (double)(w->read_syscalls[k] + w->lseek_syscalls[k])
                         : (double)w->wall_ns[k];
}

static double x_at(size_t k, size_t n)
{
    return X0 + (n > 1 ? (double)XW * (double)k / (double)(n - 1) : XW / 2.0);
}

static double y_at(double v, double max, double top)
{
    return top + PH - (max > 0 ? (PH - 8) * v / max : 0);
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

static void panel(FILE *f, const struct curve *c, enum series s, double top, const char *label)
{
    static const char *const cls[] = {"wk", "ws", "wt"};
    double max = 0;
    for (size_t k = 0; k < c->n; k++) {
        double p = c->model ? predicted(c, k, s) : 0, m = c->sweep ? measured(c, k, s) : 0;
        max = p > max ? p : max;
        max = m > max ? m : max;
    }
    char v[32];
    if (s == KERNEL_BYTES)
        html_bytes(v, sizeof v, (uint64_t)max);
    else if (s == SYSCALLS)
        st_fmt_count(v, sizeof v, (uint64_t)max);
    else
        fmt_ns(v, sizeof v, max);
    fprintf(f, "<text x=\"0\" y=\"%.0f\">%s</text><text x=\"%d\" y=\"%.0f\" "
               "text-anchor=\"end\">%s</text><text x=\"%d\" y=\"%.0f\" "
               "text-anchor=\"end\">0</text>\n",
            top + PH / 2.0, label, X0 - 6, top + 12, v, X0 - 6, top + PH);
    fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#888\"/>\n", X0,
            top + PH, X0 + XW, top + PH);
    for (int which = 0; which < 2; which++) {
        if (which == 0 ? !c->model : !c->sweep)
            continue;
        fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke-width=\"%s\"%s points=\"", cls[s],
                which ? "1.5" : "2.5", which ? " stroke-dasharray=\"5 3\"" : "");
        for (size_t k = 0; k < c->n; k++)
            fprintf(f, "%.1f,%.1f ", x_at(k, c->n),
                    y_at(which ? measured(c, k, s) : predicted(c, k, s), max, top));
        fputs("\"/>\n", f);
        for (size_t k = 0; k < c->n; k++) {
            double v = which ? measured(c, k, s) : predicted(c, k, s);
            if (which)
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"#fff\" "
                           "class=\"%s\" stroke-width=\"1.5\"><title>measured: %.0f</title></rect>\n",
                        x_at(k, c->n) - 3.5, y_at(v, max, top) - 3.5, cls[s], v);
            else
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"%s-dot\"><title>"
                           "predicted: %.0f</title></circle>\n",
                        x_at(k, c->n), y_at(v, max, top), cls[s], v);
        }
    }
}


static void mark(FILE *f, size_t k, size_t n, double bottom, double dy, const char *colour,
                 const char *dash, const char *label)
{
    fprintf(f, "<line x1=\"%.1f\" y1=\"6\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\" "
               "stroke-dasharray=\"%s\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" "
               "style=\"fill:%s\">%s</text>\n",
            x_at(k, n), x_at(k, n), bottom - 10, colour, dash, x_at(k, n), bottom + dy, colour,
            label);
}

static void table(FILE *f, const struct curve *c, size_t best, size_t rec)
{
    char t[32];
    fputs("<table class=\"sort\" id=\"whatif-table\"><thead><tr><th class=\"l\">buffer</th>", f);
    if (c->model)
        fputs("<th>read syscalls</th><th>lseeks</th><th>kernel bytes</th><th>predicted</th>", f);
    if (c->sweep)
        fputs("<th>measured reads</th><th>lseeks</th><th>kernel bytes</th><th>wall time</th>", f);
    fputs("</tr></thead><tbody>\n", f);
    if (c->model) {
        const struct whatif_cost *w = &c->model->exact;
        fputs("<tr><td class=\"l\">exact (one pread per call)</td>", f);
        html_td_count(f, w->read_syscalls);
        html_td_count(f, w->lseek_syscalls);
        html_td_bytes(f, w->kernel_read_bytes);
        fprintf(f, "<td data-v=\"%.0f\">%s</td>%s</tr>\n", predict(c->cost, w),
                fmt_ns(t, sizeof t, predict(c->cost, w)),
                c->sweep ? "<td></td><td></td><td></td><td></td>" : "");
    }
    for (size_t k = 0; k < c->n; k++) {
        char s[32];
        fprintf(f, "<tr><td class=\"l\" data-v=\"%" PRIu64 "\">%s%s</td>", c->sizes[k],
                html_bytes(s, sizeof s, c->sizes[k]),
                k == best && k == rec ? " (best, recorded)" : k == best ? " (best)"
                : k == rec ? " (recorded)" : "");
        if (c->model) {
            const struct whatif_cost *w = &c->model->at[k];
            html_td_count(f, w->read_syscalls);
            html_td_count(f, w->lseek_syscalls);
            html_td_bytes(f, w->kernel_read_bytes);
            fprintf(f, "<td data-v=\"%.0f\">%s</td>", predict(c->cost, w),
                    fmt_ns(t, sizeof t, predict(c->cost, w)));
        }
        if (c->sweep) {
            html_td_count(f, c->sweep->read_syscalls[k]);
            html_td_count(f, c->sweep->lseek_syscalls[k]);
            html_td_bytes(f, c->sweep->kernel_read_bytes[k]);
            fprintf(f, "<td data-v=\"%" PRIu64 "\">%s</td>", c->sweep->wall_ns[k],
                    fmt_ns(t, sizeof t, (double)c->sweep->wall_ns[k]));
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void draw(FILE *f, const struct curve *c, const struct whatif *w)
{
    /* The fastest: predicted, else measured (the smaller size on a tie). */
    size_t best = 0, rec = (size_t)-1;
    for (size_t k = 1; k < c->n; k++)
        if ((c->model ? predicted(c, k, TIME) < predicted(c, best, TIME)
                      : measured(c, k, TIME) < measured(c, best, TIME)))
            best = k;
    for (size_t k = 0; c->model && k < c->n; k++)
        if (!c->model->recorded_mixed && c->sizes[k] == c->model->recorded_size)
            rec = k;
    char rs[32], bs[32];
    fputs("<p class=\"note\">", f);
    if (c->model) {
        fprintf(f, "Predicted%s: %zu stream%s replayed through the model of glibc's "
                   "buffering (%s rules); time model: ",
                c->sweep ? " (dots, solid)" : "", c->model->streams,
                c->model->streams == 1 ? "" : "s", w->stdio_rules);
        html_text(f, c->cost->source);
        fprintf(f, ". Recorded size: %s%s. ",
                html_bytes(rs, sizeof rs, c->model->recorded_size),
                c->model->recorded_mixed ? " and others" : "");
    }
    if (c->sweep)
        fputs("Measured by seektrace sweep (squares, dashed): its kernel figures, and the "
              "program's whole wall time on the time axis. ",
              f);
    fprintf(f, "Shortest %s time at %s.</p>\n", c->model ? "predicted" : "measured",
            html_bytes(bs, sizeof bs, c->sizes[best]));
    fprintf(f, "<svg id=\"whatif\" width=\"960\" height=\"%d\" role=\"img\" "
               "aria-label=\"cost against buffer size\">\n",
            3 * (PH + 24) + 40);
    panel(f, c, KERNEL_BYTES, 10, "kernel bytes");
    panel(f, c, SYSCALLS, 10 + PH + 24, "read + lseek calls");
    panel(f, c, TIME, 10 + 2 * (PH + 24),
          !c->sweep ? "predicted time" : c->model ? "time" : "wall time");
    double bottom = 10 + 3 * (PH + 24);
    for (size_t k = 0; k < c->n; k++) {
        char s[32];
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                x_at(k, c->n), bottom + 4, html_bytes(s, sizeof s, c->sizes[k]));
    }
    if (rec != (size_t)-1)
        mark(f, rec, c->n, bottom, 18, "#c0392b", "4 3", "recorded");
    mark(f, best, c->n, bottom, best == rec ? 30 : 18, "#27ae60", "2 2", "best");
    fputs("</svg>\n", f);
    table(f, c, best, rec);
}

void html_whatif(FILE *f, const struct html_input *in)
{
    fputs("<h2>What other buffer sizes would cost</h2>\n", f);
    if ((!in->ntraces || !in->cost) && !in->sweep) {
        fputs("<p class=\"note\">No trace among the inputs: a what-if needs the recorded calls "
              "(JSON reports hold none).",
              f);
        /* What the reports do hold: the library's own 4 KiB prediction. */
        const struct st_counts *t = &in->m->totals;
        if (t->whatif_4k_recorded_bytes) {
            char r[32], p[32];
            fprintf(f, " The library's own prediction, for the streams with a larger buffer "
                       "it followed: they read <b id=\"whatif-4k-recorded\">%s</b>; a 4 KiB "
                       "buffer would have read <b id=\"whatif-4k\">%s</b>.",
                    html_bytes(r, sizeof r, t->whatif_4k_recorded_bytes),
                    html_bytes(p, sizeof p, t->whatif_4k_kernel_read_bytes));
        }
        fputs("</p>\n", f);
        return;
    }
    uint64_t defaults[TOOL_MAX_SIZES];
    struct curve c = {defaults, 0, NULL, in->cost, in->sweep};
    if (in->sweep) {
        c.sizes = in->sweep->size;
        c.n = in->sweep->n;
    } else {
        c.n = size_list_parse("html", TOOL_DEFAULT_SIZES, defaults);
    }
    struct whatif w;
    if (whatif_init(&w, c.sizes, c.n) != 0)
        tool_bad_input("out of memory");
    char err[ST_TRACE_ERROR_MAX];
    for (size_t i = 0; in->cost && i < in->ntraces; i++)
        if (whatif_add_trace(&w, in->traces[i], NULL, err) != 0)
            tool_bad_input("%s", err);
    struct whatif_file total;
    whatif_total(&w, &total);
    if (!total.at)
        tool_bad_input("out of memory");
    if (total.streams)
        c.model = &total;
    if (!c.model && !c.sweep)
        fputs("<p class=\"note\">No stdio read stream to replay (the model follows streams "
              "opened read-only on regular files).</p>\n",
              f);
    else
        draw(f, &c, &w);
    free(total.at);
    whatif_free(&w);
}
