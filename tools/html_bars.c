/* html_bars.c — see html.h: waste by call site, as bars.
 *
 * The sites in the site table's order (site_rows: most bytes wasted
 * first), each a bar of the kernel bytes read for it with the bytes it
 * delivered inside, linked to its table row and named with the finding
 * that points at it. */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "html.h"
#include "units.h"

#define BARS 12
#define BAR_X 330
#define BAR_W 300
#define LABEL_MAX 52 /* bytes of "site · file" that fit left of the bars */

/* "main (demo.c:96) · demo.dat", cut to LABEL_MAX bytes (never inside a
 * UTF-8 character) with "..." when longer. */
static const char *label(const char *path, const char *site, char *buf, size_t size)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' && p[1])
            base = p + 1;
    int n = snprintf(buf, size, "%s \u00b7 %s", site, base);
    if (n > LABEL_MAX) {
        size_t cut = LABEL_MAX - 3;
        while (cut && ((unsigned char)buf[cut] & 0xc0) == 0x80)
            cut--;
        memcpy(buf + cut, "...", 4);
    }
    return buf;
}

void html_site_bars(FILE *f, const struct html_input *in)
{
    size_t n;
    struct srow *rows = site_rows(in->m, &n);
    fputs("<h2>Waste by call site</h2>\n", f);
    size_t shown = 0;
    uint64_t max = 1;
    for (size_t i = 0; i < n && shown < BARS; i++, shown++)
        if (rows[i].site->counts.kernel_read_bytes > max)
            max = rows[i].site->counts.kernel_read_bytes;
    for (; shown && !rows[shown - 1].site->counts.kernel_read_bytes; shown--)
        ;
    if (!shown) {
        fputs("<p class=\"note\">No call site read from the kernel.</p>\n", f);
        free(rows);
        return;
    }
    struct st_finding *fd = calloc(ST_REPORT_JSON_FINDINGS, sizeof *fd);
    size_t nf = fd ? st_find_problems(in->m, fd, ST_REPORT_JSON_FINDINGS) : 0;
    fputs("<p class=\"note\">Orange: bytes the kernel read for the site's calls; blue: the "
          "bytes they delivered. Worst waste first; a bar links to its row in the table.</p>\n",
          f);
    fprintf(f, "<svg id=\"site-bars\" width=\"960\" height=\"%zu\" role=\"img\" "
               "aria-label=\"kernel bytes and delivered bytes by call site\">\n",
            shown * 26 + 6);
    for (size_t i = 0; i < shown; i++) {
        const struct st_counts *c = &rows[i].site->counts;
        const struct st_report_frame *fr = rows[i].site->nframes ? &rows[i].site->frames[0] : NULL;
        char d[512], kb[32], db[32], lb[LABEL_MAX + 8];
        const char *rule = NULL;
        for (size_t k = 0; k < nf && !rule; k++)
            if (fd[k].site == rows[i].site)
                rule = fd[k].rule;
        double wk = (double)BAR_W * (double)c->kernel_read_bytes / (double)max;
        double wd = (double)BAR_W * (double)c->delivered_bytes / (double)max;
        size_t y = i * 26;
        fprintf(f, "<a href=\"#site-%zu\"><text x=\"0\" y=\"%zu\" class=\"mono\">", i, y + 15);
        html_text(f, label(rows[i].path, st_frame_describe(fr, d, sizeof d), lb, sizeof lb));
        fprintf(f, "</text><rect class=\"kern\" x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"20\">"
                   "<title>%" PRIu64 " bytes read by the kernel</title></rect>"
                   "<rect class=\"deliv\" x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"10\">"
                   "<title>%" PRIu64 " bytes delivered</title></rect>"
                   "<text x=\"%.1f\" y=\"%zu\">%s read, %s delivered%s",
                BAR_X, y, wk < 1 ? 1 : wk, c->kernel_read_bytes, BAR_X, y + 5,
                wd < 1 && c->delivered_bytes ? 1 : wd, c->delivered_bytes,
                BAR_X + (wk < 1 ? 1 : wk) + 6, y + 15,
                html_bytes(kb, sizeof kb, c->kernel_read_bytes),
                html_bytes(db, sizeof db, c->delivered_bytes), rule ? " &#8212; " : "");
        html_text(f, rule);
        fputs("</text></a>\n", f);
    }
    fputs("</svg>\n", f);
    free(fd);
    free(rows);
}
