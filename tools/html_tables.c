/* html_tables.c — see html.h: the headline and the sortable tables. */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "html.h"
#include "units.h"

/* Rows beyond these are counted, not listed: a page stays small whatever
 * the run (report --json lists them all). */
#define MAX_FILE_ROWS 1000
#define MAX_SITE_ROWS 500
#define MAX_PROCESS_ROWS 2000

static void td_ratio(FILE *f, const struct st_counts *c)
{
    char b[32];
    if (!c->delivered_bytes) {
        fputs("<td data-v=\"\">-</td>", f);
        return;
    }
    double a = st_counts_amplification(c);
    fprintf(f, "<td data-v=\"%.6g\">%s</td>", a, st_fmt_ratio(b, sizeof b, a));
}

/* The three figures side by side, to scale: what the program asked for is
 * a sliver beside what the kernel read to give it. */
static void volume_bars(FILE *f, const struct st_counts *t)
{
    static const struct {
        const char *label, *cls;
        size_t off;
    } bars[] = {
        {"requested by the program", "req", offsetof(struct st_counts, requested_bytes)},
        {"delivered to the program", "deliv", offsetof(struct st_counts, delivered_bytes)},
        {"read by the kernel", "kern", offsetof(struct st_counts, kernel_read_bytes)},
    };
    uint64_t max = 1;
    for (size_t i = 0; i < 3; i++) {
        uint64_t v = *(const uint64_t *)((const char *)t + bars[i].off);
        if (v > max)
            max = v;
    }
    const double w = 640;
    fprintf(f, "<svg id=\"volume\" width=\"960\" height=\"84\" role=\"img\" "
               "aria-label=\"bytes requested, delivered and read by the kernel\">\n");
    for (size_t i = 0; i < 3; i++) {
        uint64_t v = *(const uint64_t *)((const char *)t + bars[i].off);
        double bw = w * (double)v / (double)max;
        char b[32];
        fprintf(f, "<text x=\"0\" y=\"%zu\">%s</text><rect class=\"%s\" x=\"170\" y=\"%zu\" "
                   "width=\"%.1f\" height=\"20\"><title>%" PRIu64 " bytes</title></rect>"
                   "<text x=\"%.1f\" y=\"%zu\">%s</text>\n",
                i * 28 + 15, bars[i].label, bars[i].cls, i * 28, bw < 2 && v ? 2.0 : bw, v,
                176 + (bw < 2 ? 2.0 : bw), i * 28 + 15, html_bytes(b, sizeof b, v));
    }
    fputs("</svg>\n", f);
}

void html_headline(FILE *f, const struct html_input *in)
{
    const struct st_report *m = in->m;
    const struct st_counts *t = &m->totals;
    char req[32], del[32], ker[32], amp[32], rd[32], ls[32];
    fputs("<h1>seektrace: <span class=\"mono\">", f);
    html_text(f, in->command);
    fputs("</span></h1>\n", f);
    char np[32], nf[32];
    size_t files = m->nfiles + m->nfiles_other;
    fprintf(f, "<p class=\"note\">%s process%s &middot; capture: ",
            st_fmt_count(np, sizeof np, in->nrows), in->nrows == 1 ? "" : "es");
    html_text(f, m->capture ? m->capture : "exact");
    fprintf(f, " &middot; %s file%s</p>\n", st_fmt_count(nf, sizeof nf, files),
            files == 1 ? "" : "s");
    html_bytes(req, sizeof req, t->requested_bytes);
    html_bytes(del, sizeof del, t->delivered_bytes);
    html_bytes(ker, sizeof ker, t->kernel_read_bytes);
    st_fmt_count(rd, sizeof rd, t->read_syscalls);
    st_fmt_count(ls, sizeof ls, t->lseek_syscalls);
    fputs("<p class=\"big\" id=\"headline\">", f);
    if (!t->read_syscalls && !t->requested_bytes && !t->write_syscalls) {
        fputs("Nothing was read or written through the calls seektrace counts.", f);
    } else {
        fprintf(f, "The program asked for <b>%s</b> and was given <b>%s</b>; "
                   "the kernel read <b>%s</b> to give it", req, del, ker);
        if (t->delivered_bytes)
            fprintf(f, ": <b>%s</b> the bytes it used",
                    st_fmt_ratio(amp, sizeof amp, st_counts_amplification(t)));
        fprintf(f, ", in %s read and %s lseek syscalls.", rd, ls);
        if (t->write_syscalls || t->written_bytes) {
            char wr[32], kw[32], ws[32];
            fprintf(f, " It handed over <b>%s</b> to be written; the kernel wrote <b>%s</b> in "
                       "%s write syscalls.",
                    html_bytes(wr, sizeof wr, t->written_bytes),
                    html_bytes(kw, sizeof kw, t->kernel_write_bytes),
                    st_fmt_count(ws, sizeof ws, t->write_syscalls));
        }
    }
    if (m->storage.measured) {
        char dv[32];
        fprintf(f, " The block device read <b>%s</b>.",
                html_bytes(dv, sizeof dv, m->storage.device_read_bytes));
    }
    fputs("</p>\n", f);
    volume_bars(f, t);

    struct st_finding *fd = calloc(1, sizeof *fd);
    if (fd && st_find_problems(m, fd, 1) == 1) {
        char site[512];
        fputs("<div class=\"finding\" id=\"top-finding\"><b>Top finding</b> <code>", f);
        html_text(f, fd->rule);
        fputs("</code> on <code>", f);
        html_text(f, fd->file->path);
        fputs("</code><br>", f);
        html_text(f, fd->what);
        if (fd->site) {
            fputs("<br>At <code>", f);
            html_text(f, st_frame_describe(fd->site->nframes ? &fd->site->frames[0] : NULL, site,
                                           sizeof site));
            fputs("</code>", f);
        }
        fputs("<br><b>Change:</b> ", f);
        html_text(f, fd->change);
        fputs("</div>\n", f);
    }
    free(fd);

    /* Every counter of the totals, exactly as report --json has them. */
    fputs("<details><summary>all totals</summary><table id=\"totals\">\n", f);
    static const struct {
        const char *key;
        size_t off;
    } fields[] = {
#define COUNT_FIELD(name, id) {#name, offsetof(struct st_counts, name)},
#include "counts_fields.def"
#undef COUNT_FIELD
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        fprintf(f, "<tr><th class=\"l\">%s</th><td data-key=\"%s\" data-v=\"%" PRIu64 "\">%" PRIu64
                   "</td></tr>\n",
                fields[i].key, fields[i].key,
                *(const uint64_t *)((const char *)t + fields[i].off),
                *(const uint64_t *)((const char *)t + fields[i].off));
    /* The device's figures, as the JSON totals have them when measured. */
    const struct st_report_storage *st = &m->storage;
    for (int k = 0; st->measured && k < 2; k++)
        fprintf(f, "<tr><th class=\"l\">%s</th><td data-key=\"%s\" data-v=\"%" PRIu64 "\">%" PRIu64
                   "</td></tr>\n", k ? "device_write_bytes" : "device_read_bytes",
                k ? "device_write_bytes" : "device_read_bytes",
                k ? st->device_write_bytes : st->device_read_bytes,
                k ? st->device_write_bytes : st->device_read_bytes);
    fputs("</table></details>\n", f);
}

static void count_row_cells(FILE *f, const struct st_counts *c)
{
    html_td_bytes(f, c->kernel_read_bytes);
    html_td_bytes(f, c->delivered_bytes);
    html_td_bytes(f, c->requested_bytes);
    td_ratio(f, c);
    html_td_bytes(f, st_counts_wasted_bytes(c));
    html_td_count(f, c->read_syscalls);
    html_td_count(f, c->lseek_syscalls);
    html_td_bytes(f, c->reread_bytes);
    html_td_count(f, c->write_syscalls);
    html_td_bytes(f, c->kernel_write_bytes);
}

static const char count_heads[] =
    "<th>kernel read</th><th>delivered</th><th>requested</th><th>amplif.</th>"
    "<th>wasted</th><th>reads</th><th>lseeks</th><th>re-read</th><th>writes</th>"
    "<th>kernel written</th>";

void html_file_table(FILE *f, const struct html_input *in)
{
    const struct st_report *m = in->m;
    fputs("<h2>Files</h2>\n<table class=\"sort\" id=\"files\"><thead><tr>"
          "<th class=\"l\">file</th><th>processes</th>",
          f);
    fputs(count_heads, f);
    fputs("</tr></thead><tbody>\n", f);
    for (size_t i = 0; i < m->nfiles && i < MAX_FILE_ROWS; i++) {
        const struct st_report_file *r = &m->files[i];
        fputs("<tr><td class=\"l\">", f);
        html_text(f, r->path);
        fputs("</td>", f);
        html_td_count(f, r->processes ? r->processes : 1);
        count_row_cells(f, &r->counts);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (m->nfiles > MAX_FILE_ROWS)
        fprintf(f, "<p class=\"note\">%zu more files (report --json lists them all).</p>\n",
                m->nfiles - MAX_FILE_ROWS);
    if (m->nfiles_other) {
        char b[32];
        fprintf(f, "<p class=\"note\" id=\"files-other\">%zu other file%s without a row: "
                   "%s read by the kernel.</p>\n",
                m->nfiles_other, m->nfiles_other == 1 ? "" : "s",
                html_bytes(b, sizeof b, m->other.kernel_read_bytes));
    }
    if (!m->nfiles)
        fputs("<p class=\"note\">No file was read or written.</p>\n", f);
}

void html_site_table(FILE *f, const struct html_input *in)
{
    size_t n;
    struct srow *rows = site_rows(in->m, &n);
    fputs("<h2>Call sites</h2>\n<table class=\"sort\" id=\"sites\"><thead><tr>"
          "<th class=\"l\">site</th><th class=\"l\">file</th><th>calls</th>",
          f);
    fputs(count_heads, f);
    fputs("</tr></thead><tbody>\n", f);
    for (size_t i = 0; i < n && i < MAX_SITE_ROWS; i++) {
        const struct st_report_site *s = rows[i].site;
        char d[512];
        fprintf(f, "<tr id=\"site-%zu\"><td class=\"l mono\">", i);
        html_text(f, st_frame_describe(s->nframes ? &s->frames[0] : NULL, d, sizeof d));
        fputs("</td><td class=\"l\">", f);
        html_text(f, rows[i].path);
        fputs("</td>", f);
        html_td_count(f, calls_of(&s->counts));
        count_row_cells(f, &s->counts);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (n > MAX_SITE_ROWS)
        fprintf(f, "<p class=\"note\">%zu more sites (report --by site --json lists them "
                   "all).</p>\n",
                n - MAX_SITE_ROWS);
    if (!n)
        fputs("<p class=\"note\">No call sites recorded (SEEKTRACE_STACK=0, or nothing was "
              "read).</p>\n",
              f);
    free(rows);
}

void html_process_table(FILE *f, const struct html_input *in)
{
    const struct st_counts *all = &in->m->totals;
    uint64_t all_sys = all->read_syscalls + all->lseek_syscalls + all->write_syscalls;
    fputs("<h2>Processes</h2>\n<table class=\"sort\" id=\"processes\"><thead><tr>"
          "<th>pid</th><th>ppid</th><th class=\"l\">command (tree)</th><th class=\"l\">trace</th>"
          "<th>kernel read</th><th>delivered</th><th>reads</th><th>lseeks</th><th>writes</th>"
          "<th class=\"l\">share of kernel bytes</th><th>share of syscalls</th>"
          "</tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < in->nrows && i < MAX_PROCESS_ROWS; i++) {
        const struct prow *r = &in->rows[i];
        struct st_counts totals;
        counts_packed_get(&r->t, &totals);
        const struct st_counts *c = &totals;
        uint64_t sys = c->read_syscalls + c->lseek_syscalls + c->write_syscalls;
        double share = all->kernel_read_bytes
                           ? (double)c->kernel_read_bytes / (double)all->kernel_read_bytes
                           : 0;
        double sshare = all_sys ? (double)sys / (double)all_sys : 0;
        fprintf(f, "<tr><td data-v=\"%ld\">%ld</td><td data-v=\"%ld\">%ld</td>"
                   "<td class=\"l mono\" style=\"padding-left:%dem\">",
                r->pid, r->pid, r->ppid, r->ppid, r->depth < 20 ? r->depth + 1 : 21);
        html_text(f, r->cmd);
        fputs("</td><td class=\"l\">", f);
        html_text(f, r->status);
        fputs("</td>", f);
        html_td_bytes(f, c->kernel_read_bytes);
        html_td_bytes(f, c->delivered_bytes);
        html_td_count(f, c->read_syscalls);
        html_td_count(f, c->lseek_syscalls);
        html_td_count(f, c->write_syscalls);
        fprintf(f, "<td class=\"l\" data-v=\"%.6f\"><svg width=\"104\" height=\"10\" "
                   "style=\"display:inline;margin:0\"><rect class=\"kern\" width=\"%.1f\" "
                   "height=\"10\"/></svg> %.1f %%</td><td data-v=\"%.6f\">%.1f %%</td></tr>\n",
                share, 100 * share + (share > 0 && share < 0.01 ? 1 : 0), 100 * share,
                sshare, 100 * sshare);
    }
    fputs("</tbody></table>\n", f);
    if (in->nrows > MAX_PROCESS_ROWS)
        fprintf(f, "<p class=\"note\">%zu more processes (report --by process --full lists "
                   "them all).</p>\n",
                in->nrows - MAX_PROCESS_ROWS);
}
