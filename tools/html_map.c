/* html_map.c — see html.h: the access maps and the I/O rate, in SVG.
 *
 * A map is file offset (down) against time (across). Its left panel draws
 * the first reads exactly, one column each: the range the kernel read, and
 * inside it the ranges the program's calls took before the next read. The
 * right panel draws the whole run: every range when there are few, else a
 * grid whose cells sum the kernel bytes and count the calls that fell in
 * them, shaded in a few levels the legend gives in bytes and calls, so
 * nothing is dropped, only summed. A read of bytes the file's reads had
 * read before (the trace's re-read) is red: a buffer thrown away and read
 * again shows as a column of red. */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "tool.h"
#include "units.h"

#define FIRST_READS 40
#define PANEL_H 240
#define LEFT_W 300
#define RIGHT_X 340
#define RIGHT_W 600
#define EXACT_MAX 3000 /* ranges drawn one by one up to this many */
#define COLS 150       /* grid: 4 px a column */
#define ROWS 80        /* 3 px a row */
#define LEVELS 5

static double y_of(uint64_t off, uint64_t max)
{
    return 20 + (double)PANEL_H * (double)off / (double)(max ? max : 1);
}

static double h_of(uint64_t len, uint64_t max, double min)
{
    double h = (double)PANEL_H * (double)len / (double)(max ? max : 1);
    return h < min ? min : h;
}

static const char *fmt_ns(char *buf, size_t size, uint64_t ns)
{
    if (ns < 1000000)
        snprintf(buf, size, "%.0f us", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, size, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(buf, size, "%.2f s", (double)ns / 1e9);
    return buf;
}

static void first_reads(FILE *f, const struct html_file_events *fe)
{
    size_t n = fe->nreads < FIRST_READS ? fe->nreads : FIRST_READS;
    double w = (double)LEFT_W / FIRST_READS;
    size_t d = 0;
    fprintf(f, "<text x=\"0\" y=\"12\">first %zu kernel reads, in order</text>\n", n);
    fprintf(f, "<rect x=\"0\" y=\"20\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#bbb\"/>\n",
            LEFT_W, PANEL_H);
    for (size_t i = 0; i < n; i++) {
        const struct html_range *r = &fe->reads[i];
        char b[32];
        fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                   "<title>read %zu: %s at offset %" PRIu64 "%s</title></rect>\n",
                r->reread ? "rer" : "kern", (double)i * w + 0.5, y_of(r->off, fe->max_off), w - 1,
                h_of(r->len, fe->max_off, 1), i + 1, html_bytes(b, sizeof b, r->len), r->off,
                r->reread ? ", read before" : "");
        uint64_t until = i + 1 < fe->nreads ? fe->reads[i + 1].t : UINT64_MAX;
        while (d < fe->ndelivered && fe->delivered[d].t < r->t)
            d++;
        for (; d < fe->ndelivered && fe->delivered[d].t < until; d++) {
            const struct html_range *q = &fe->delivered[d];
            fprintf(f, "<rect class=\"deliv\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\"/>\n",
                    (double)i * w + 0.5 + w / 4, y_of(q->off, fe->max_off), w / 2 - 0.5,
                    h_of(q->len, fe->max_off, 1.5));
        }
    }
}

static double x_of(uint64_t t, uint64_t t0, uint64_t span)
{
    return RIGHT_X + (double)RIGHT_W * (double)(t - t0) / (double)(span ? span : 1);
}

static void exact_run(FILE *f, const struct html_file_events *fe, uint64_t t0, uint64_t span)
{
    for (size_t i = 0; i < fe->nreads; i++)
        fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"2\" height=\"%.1f\"/>\n",
                fe->reads[i].reread ? "rer" : "kern", x_of(fe->reads[i].t, t0, span) - 1, y_of(fe->reads[i].off, fe->max_off),
                h_of(fe->reads[i].len, fe->max_off, 1));
    for (size_t i = 0; i < fe->ndelivered; i++)
        fprintf(f, "<rect class=\"deliv\" x=\"%.1f\" y=\"%.1f\" width=\"1.5\" height=\"%.1f\"/>\n",
                x_of(fe->delivered[i].t, t0, span) - 0.75,
                y_of(fe->delivered[i].off, fe->max_off), h_of(fe->delivered[i].len, fe->max_off, 1.5));
}

/* Sums a range into the cells of its column: its bytes split by row into
 * cells, one call into calls at its first row (either may be NULL). */
static void grid_add(uint64_t *cells, uint64_t *calls, const struct html_range *r, uint64_t t0,
                     uint64_t span, uint64_t max_off)
{
    size_t c = (size_t)((double)COLS * (double)(r->t - t0) / (double)(span ? span : 1));
    if (c >= COLS)
        c = COLS - 1;
    double row_bytes = (double)(max_off ? max_off : 1) / ROWS;
    size_t r0 = (size_t)((double)r->off / row_bytes);
    size_t r1 = (size_t)((double)(r->off + (r->len ? r->len - 1 : 0)) / row_bytes);
    if (r0 >= ROWS)
        r0 = ROWS - 1;
    if (r1 >= ROWS)
        r1 = ROWS - 1;
    if (calls)
        calls[r0 * COLS + c]++;
    for (size_t row = r0; cells && row <= r1; row++) {
        double lo = (double)row * row_bytes, hi = lo + row_bytes;
        double a = (double)r->off > lo ? (double)r->off : lo;
        double b = (double)(r->off + r->len) < hi ? (double)(r->off + r->len) : hi;
        cells[row * COLS + c] += b > a ? (uint64_t)(b - a + 0.5) : 0;
    }
}

/* A level per cell, 1..LEVELS on a log scale of v up to max (0: empty). */
static int level(uint64_t v, uint64_t max)
{
    if (!v)
        return 0;
    if (max <= 1)
        return LEVELS;
    int l = 1 + (int)((LEVELS - 1) * log((double)v) / log((double)max) + 0.5);
    return l < 1 ? 1 : l > LEVELS ? LEVELS : l;
}

/* One path per level: runs of equal level in a row are one rectangle
 * (inset from the cell's sides by dx, dy: a mark inside the shade). */
static void grid_paths(FILE *f, const uint64_t *v, uint64_t max, const char *cls, double dx,
                       double dy)
{
    for (int l = 1; l <= LEVELS; l++) {
        fprintf(f, "<path class=\"%s\" fill-opacity=\"%.2f\" d=\"", cls, 0.25 + 0.75 * l / LEVELS);
        for (size_t row = 0; row < ROWS; row++)
            for (size_t c = 0; c < COLS;) {
                if (level(v[row * COLS + c], max) != l) {
                    c++;
                    continue;
                }
                size_t e = c;
                while (e < COLS && level(v[row * COLS + e], max) == l)
                    e++;
                double w = 4.0 * (double)(e - c) - 2 * dx;
                if (dx > 0) /* marks stay one a cell */
                    w = 4.0 - 2 * dx, e = c + 1;
                fprintf(f, "M%g %gh%gv%gh-%gz", RIGHT_X + 4.0 * (double)c + dx,
                        20 + 3.0 * (double)row + dy, w, 3 - 2 * dy, w);
                c = e;
            }
        fputs("\"/>\n", f);
    }
}

static uint64_t max_of(const uint64_t *v, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

static void grid_run(FILE *f, const struct html_file_events *fe, uint64_t t0, uint64_t span)
{
    uint64_t *kb = calloc(COLS * ROWS, sizeof *kb), *dc = calloc(COLS * ROWS, sizeof *dc);
    uint64_t *rb = calloc(COLS * ROWS, sizeof *rb);
    if (!kb || !dc || !rb)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < fe->nreads; i++)
        grid_add(fe->reads[i].reread ? rb : kb, NULL, &fe->reads[i], t0, span, fe->max_off);
    for (size_t i = 0; i < fe->ndelivered; i++)
        grid_add(NULL, dc, &fe->delivered[i], t0, span, fe->max_off);
    /* A cell is red when most of its bytes were read again: its shade is
     * still all its bytes. */
    uint64_t kmax = 0;
    for (size_t i = 0; i < COLS * ROWS; i++) {
        uint64_t all = kb[i] + rb[i];
        kmax = all > kmax ? all : kmax;
        kb[i] = rb[i] > all / 2 ? 0 : all;
        rb[i] = kb[i] ? 0 : all;
    }
    uint64_t cmax = max_of(dc, COLS * ROWS);
    grid_paths(f, kb, kmax, "kern", 0, 0);
    grid_paths(f, rb, kmax, "rer", 0, 0);
    grid_paths(f, dc, cmax, "deliv", 1, 1);
    char b1[32], b2[32], t[32];
    fprintf(f, "<text x=\"%d\" y=\"%d\">each cell %s &#215; %s; shade: kernel bytes read in "
               "it (log scale, up to %s; red: mostly again);</text><text x=\"%d\" y=\"%d\">blue mark: "
               "calls that took bytes there (log scale, up to %" PRIu64 " a cell)</text>\n",
            RIGHT_X, 20 + PANEL_H + 28, fmt_ns(t, sizeof t, span / COLS),
            html_bytes(b1, sizeof b1, fe->max_off / ROWS), html_bytes(b2, sizeof b2, kmax),
            RIGHT_X, 20 + PANEL_H + 42, cmax);
    free(kb);
    free(rb);
    free(dc);
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median_len(const struct html_range *r, size_t n)
{
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = r[i].len;
    qsort(v, n, sizeof *v, by_u64);
    uint64_t m = n ? v[n / 2] : 0;
    free(v);
    return m;
}

static void one_map(FILE *f, const struct html_file_events *fe, size_t k)
{
    fputs("<h3 class=\"mono\">", f);
    html_text(f, fe->path);
    fputs("</h3>\n", f);
    char b1[32];
    uint64_t rereads = 0;
    for (size_t i = 0; i < fe->nreads; i++)
        rereads += fe->reads[i].reread > 0;
    char n1[32], n2[32], n3[32];
    fprintf(f, "<p class=\"note\">%s kernel reads (orange: the range each pulled in; "
               "red: %s of them read again bytes already read), %s calls that took bytes "
               "(blue: where each read)",
            st_fmt_count(n1, sizeof n1, fe->reads_seen), st_fmt_count(n2, sizeof n2, rereads),
            st_fmt_count(n3, sizeof n3, fe->delivered_seen));
    if (fe->reads_seen > fe->nreads || fe->delivered_seen > fe->ndelivered)
        fprintf(f, "; the first %zu reads and %zu calls are drawn", fe->nreads, fe->ndelivered);
    fputs(".", f);
    if (fe->nreads && fe->ndelivered) {
        char b2[32];
        fprintf(f, " The median kernel read pulled in <b>%s</b>; the median call took <b>%s</b>.",
                html_bytes(b1, sizeof b1, median_len(fe->reads, fe->nreads)),
                html_bytes(b2, sizeof b2, median_len(fe->delivered, fe->ndelivered)));
    }
    fputs("</p>\n", f);
    if (!fe->nreads && !fe->ndelivered) {
        fputs("<p class=\"note\">No read with a known offset.</p>\n", f);
        return;
    }
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t i = 0; i < fe->nreads; i++) {
        t0 = fe->reads[i].t < t0 ? fe->reads[i].t : t0;
        t1 = fe->reads[i].t > t1 ? fe->reads[i].t : t1;
    }
    for (size_t i = 0; i < fe->ndelivered; i++) {
        t0 = fe->delivered[i].t < t0 ? fe->delivered[i].t : t0;
        t1 = fe->delivered[i].t > t1 ? fe->delivered[i].t : t1;
    }
    uint64_t span = t1 - t0 + 1;
    size_t many = fe->nreads + fe->ndelivered > EXACT_MAX;
    fprintf(f, "<svg class=\"map\" id=\"map-%zu\" width=\"960\" height=\"%d\" role=\"img\" "
               "aria-label=\"file offset against time\">\n",
            k, PANEL_H + 70);
    first_reads(f, fe);
    fprintf(f, "<text x=\"%d\" y=\"12\">the whole run, %s (time across, offset down)</text>\n",
            RIGHT_X, many ? "summed into cells" : "every range");
    fprintf(f, "<rect x=\"%d\" y=\"20\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\"/>\n",
            RIGHT_X, RIGHT_W, PANEL_H);
    if (many)
        grid_run(f, fe, t0, span);
    else
        exact_run(f, fe, t0, span);
    char t[32];
    fprintf(f, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">"
               "%s</text>\n",
            RIGHT_X, 20 + PANEL_H + 14, RIGHT_X + RIGHT_W, 20 + PANEL_H + 14,
            fmt_ns(t, sizeof t, span));
    fprintf(f, "<text x=\"0\" y=\"%d\">offset 0 at the top, %s at the bottom</text>\n",
            20 + PANEL_H + 14, html_bytes(b1, sizeof b1, fe->max_off));
    fputs("</svg>\n", f);
}

void html_access_maps(FILE *f, const struct html_events *ev)
{
    fputs("<h2>Access map</h2>\n", f);
    if (!ev->traces_read) {
        fputs("<p class=\"note\">No trace among the inputs (JSON reports hold no events).</p>\n", f);
        return;
    }
    if (!ev->nfiles)
        fputs("<p class=\"note\">No file was read.</p>\n", f);
    for (size_t i = 0; i < ev->nfiles; i++)
        one_map(f, &ev->files[i], i);
}

void html_rate(FILE *f, const struct html_events *ev)
{
    fputs("<h2>I/O rate over time</h2>\n", f);
    if (!ev->traces_read) {
        fputs("<p class=\"note\">No trace among the inputs.</p>\n", f);
        return;
    }
    size_t n = (size_t)((ev->t1 - ev->t0) / ev->rate_width) + 1;
    if (n > HTML_RATE_BUCKETS)
        n = HTML_RATE_BUCKETS;
    uint64_t max = max_of(ev->rate_kernel, n), dmax = max_of(ev->rate_delivered, n);
    if (dmax > max)
        max = dmax;
    char b[32], t[32], w[32];
    double peak = (double)max * 1e9 / (double)ev->rate_width;
    fprintf(f, "<svg id=\"rate\" width=\"960\" height=\"170\" role=\"img\" "
               "aria-label=\"bytes per second over time\">\n"
               "<text x=\"0\" y=\"12\">bytes per %s: kernel reads (orange), delivered to the "
               "program (blue); peak %s/s</text>\n",
            fmt_ns(w, sizeof w, ev->rate_width), html_bytes(b, sizeof b, (uint64_t)peak));
    double bw = 940.0 / (double)n;
    for (size_t i = 0; i < n; i++) {
        double hk = max ? 120.0 * (double)ev->rate_kernel[i] / (double)max : 0;
        double hd = max ? 120.0 * (double)ev->rate_delivered[i] / (double)max : 0;
        if (ev->rate_kernel[i])
            fprintf(f, "<rect class=\"kern\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                       "<title>%" PRIu64 " bytes read by the kernel</title></rect>\n",
                    10 + (double)i * bw, 140 - hk, bw * 0.9, hk < 1 ? 1 : hk, ev->rate_kernel[i]);
        if (ev->rate_delivered[i])
            fprintf(f, "<rect class=\"deliv\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\"/>\n",
                    10 + (double)i * bw + bw * 0.3, 140 - hd, bw * 0.3, hd < 1 ? 1 : hd);
    }
    fprintf(f, "<line x1=\"10\" y1=\"140\" x2=\"950\" y2=\"140\" stroke=\"#888\"/>"
               "<text x=\"10\" y=\"156\">0</text><text x=\"950\" y=\"156\" text-anchor=\"end\">"
               "%s</text>\n</svg>\n",
            fmt_ns(t, sizeof t, (uint64_t)n * ev->rate_width));
}
