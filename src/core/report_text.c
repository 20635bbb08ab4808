/* report_text.c — the report a person reads in ten seconds: the headline,
 * the worst files first, and the top problem in plain words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "findings.h"
#include "hints.h"
#include "report_model.h"
#include "units.h"

#define TOP_FILES ST_REPORT_TEXT_FILES
#define MAX_FINDINGS ST_REPORT_TEXT_FINDINGS
#define TOP_SITES ST_REPORT_TEXT_SITES

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* What the block device did, below the page cache (docs/storage.md). */
static void storage_line(const struct st_report *r, struct st_outbuf *o)
{
    const struct st_report_storage *s = &r->storage;
    char b1[32], b2[32], b3[32];
    if (!s->measured) {
        st_out_str(o, "  device bytes unknown: ");
        st_out_text(o, s->why_not ? s->why_not : "not measured");
        st_out_str(o, "\n");
        return;
    }
    st_out_printf(o, "  %s read from the device, %s written to it",
                  st_fmt_bytes(b1, sizeof b1, s->device_read_bytes),
                  st_fmt_bytes(b2, sizeof b2, s->device_write_bytes));
    uint64_t k = r->totals.kernel_read_bytes;
    if (k / 2 > s->device_read_bytes) /* the page cache's part, when it is most */
        st_out_printf(o, ": at least %s of what the kernel read came from memory (the page cache)",
                      st_fmt_bytes(b3, sizeof b3, k - s->device_read_bytes));
    st_out_str(o, "\n");
}

static void headline(const struct st_report *r, struct st_outbuf *o)
{
    st_out_printf(o, "seektrace: pid %ld", r->pid);
    for (int i = 0; i < r->argc && i < 6; i++) {
        st_out_str(o, " ");
        st_out_text(o, r->argv[i]);
    }
    if (r->argc > 6)
        st_out_str(o, " ...");
    st_out_printf(o, "  [capture: %s", r->capture);
    if (r->libc_version) {
        st_out_str(o, ", glibc ");
        st_out_text(o, r->libc_version);
    }
    st_out_str(o, "]\n");
    if (r->capture_reason) {
        st_out_str(o, "  capture is inferred: ");
        st_out_text(o, r->capture_reason);
        st_out_str(o, "\n");
    }

    const struct st_counts *t = &r->totals;
    char b1[32], b2[32], n1[32], n2[32], a[32];
    st_out_printf(o, "  %s read from the kernel in %s read syscall%s (%s lseek%s) to deliver %s",
                  st_fmt_bytes(b1, sizeof b1, t->kernel_read_bytes),
                  st_fmt_count(n1, sizeof n1, t->read_syscalls), plural(t->read_syscalls),
                  st_fmt_count(n2, sizeof n2, t->lseek_syscalls), plural(t->lseek_syscalls),
                  st_fmt_bytes(b2, sizeof b2, t->delivered_bytes));
    if (t->delivered_bytes)
        st_out_printf(o, ": %s amplification", st_fmt_ratio(a, sizeof a, st_counts_amplification(t)));
    st_out_str(o, "\n");
    storage_line(r, o);
    if (!t->write_syscalls && !t->written_bytes)
        return;
    st_out_printf(o, "  %s written to the kernel in %s write syscall%s for %s handed over",
                  st_fmt_bytes(b1, sizeof b1, t->kernel_write_bytes),
                  st_fmt_count(n1, sizeof n1, t->write_syscalls), plural(t->write_syscalls),
                  st_fmt_bytes(b2, sizeof b2, t->written_bytes));
    if (t->written_bytes)
        st_out_printf(o, ": %s write amplification",
                      st_fmt_ratio(a, sizeof a, st_counts_write_amplification(t)));
    st_out_str(o, "\n");
}

/* Whether the file was written (or handed bytes to write): the write
 * columns are shown only then. */
static int was_written(const struct st_counts *c)
{
    return c->write_syscalls || c->written_bytes;
}

/* "fseek 200,000 (200,000 reads, 24.4 GiB) · fread 200,000" */
static void call_line(const struct st_counts *c, struct st_outbuf *o)
{
    const char *sep = "";
    for (int k = 0; k < ST_CALL_COUNT; k++) {
        const struct st_call_cost *cc = &c->by_call[k];
        if (!cc->calls && !cc->read_syscalls && !cc->lseek_syscalls && !cc->write_syscalls)
            continue;
        char n1[32], n2[32], n3[32], b1[32];
        /* getc and friends are not interposed: their syscalls, no count. */
        st_out_printf(o, "%s%s", sep, st_call_name((enum st_call)k));
        if (cc->calls)
            st_out_printf(o, " %s", st_fmt_count(n1, sizeof n1, cc->calls));
        if (cc->read_syscalls || cc->lseek_syscalls) {
            st_out_printf(o, " (%s read%s, %s; %s lseek%s)",
                          st_fmt_count(n2, sizeof n2, cc->read_syscalls), plural(cc->read_syscalls),
                          st_fmt_bytes(b1, sizeof b1, cc->kernel_read_bytes),
                          st_fmt_count(n3, sizeof n3, cc->lseek_syscalls),
                          plural(cc->lseek_syscalls));
        }
        if (cc->write_syscalls)
            st_out_printf(o, " (%s write%s, %s)", st_fmt_count(n2, sizeof n2, cc->write_syscalls),
                          plural(cc->write_syscalls),
                          st_fmt_bytes(b1, sizeof b1, cc->kernel_write_bytes));
        sep = " · ";
    }
}

static void stream_line(const struct st_report_stream *s, struct st_outbuf *o)
{
    char b1[32], b2[32], n1[32], n2[32];
    if (s->folded > 1)
        st_out_printf(o, "      %s streams fd %d: ", st_fmt_count(n1, sizeof n1, s->folded), s->fd);
    else
        st_out_printf(o, "      stream fd %d: ", s->fd);
    if (s->buffer_size)
        st_out_printf(o, "%s %s buffer", st_fmt_bytes(b1, sizeof b1, s->buffer_size),
                      st_buf_origin_name(s->origin));
    else
        st_out_str(o, "no buffer yet");
    if (s->origin == ST_BUF_SIZE_IGNORED)
        st_out_printf(o, " (asked for %s)", st_fmt_bytes(b2, sizeof b2, s->requested_buffer_size));
    st_out_printf(o, ", %s-buffered", st_buf_mode_name(s->mode));
    if (s->counts.seeks_in_buffer || s->counts.seeks_discarding_buffer)
        st_out_printf(o, "; seeks: %s kept the buffer, %s discarded it",
                      st_fmt_count(n1, sizeof n1, s->counts.seeks_in_buffer),
                      st_fmt_count(n2, sizeof n2, s->counts.seeks_discarding_buffer));
    if (s->caveat)
        st_out_printf(o, " [%s]", s->caveat);
    st_out_str(o, "\n        ");
    call_line(&s->counts, o);
    st_out_str(o, "\n");
}

/* The 4 KiB what-if (whatif_stream.h), said only when it would save much:
 * four times fewer bytes, and a mebibyte at least. */
static void whatif_line(const struct st_counts *c, struct st_outbuf *o)
{
    uint64_t was = c->whatif_4k_recorded_bytes, would = c->whatif_4k_kernel_read_bytes;
    if (would == 0 || was / 4 < would || was - would < (1u << 20))
        return;
    char r[32], b1[32], b2[32];
    st_out_printf(o, "      a 4 KiB buffer would read %s fewer bytes from this file "
                     "(predicted: %s instead of %s)\n",
                  st_fmt_ratio(r, sizeof r, (double)was / (double)would),
                  st_fmt_bytes(b1, sizeof b1, would), st_fmt_bytes(b2, sizeof b2, was));
}

/* The program's own POSIX calls on the file: listed on a line of their own. */
static int posix_calls(const struct st_counts *c)
{
    static const enum st_call posix[] = {ST_CALL_READ,  ST_CALL_PREAD,  ST_CALL_LSEEK,
                                         ST_CALL_WRITE, ST_CALL_PWRITE, ST_CALL_WRITEV,
                                         ST_CALL_PWRITEV};
    for (size_t k = 0; k < sizeof posix / sizeof posix[0]; k++)
        if (c->by_call[posix[k]].calls)
            return 1;
    return 0;
}

/* The write columns of a written file's row; blank for the others. */
static void write_columns(const struct st_counts *c, struct st_outbuf *o)
{
    if (!was_written(c)) {
        st_out_printf(o, "%11s %12s %10s %7s  ", "", "", "", "");
        return;
    }
    char b1[32], b2[32], n1[32], a[32];
    st_out_printf(o, "%11s %12s %10s %7s  ", st_fmt_bytes(b1, sizeof b1, c->written_bytes),
                  st_fmt_bytes(b2, sizeof b2, c->kernel_write_bytes),
                  st_fmt_count(n1, sizeof n1, c->write_syscalls),
                  st_fmt_ratio(a, sizeof a, st_counts_write_amplification(c)));
}

/* The files a merged report gives no row, summed exactly: those under the
 * noise floor on one line, those the table had no room for on another. */
static void small_files(const struct st_report *r, const struct st_text_opts *t, size_t shown,
                        struct st_outbuf *o)
{
    struct st_counts small = r->other;
    size_t nsmall = r->nfiles_other, ncut = 0;
    for (size_t i = shown; i < r->nfiles; i++) {
        if (st_counts_cost(&r->files[i].counts) >= t->floor) {
            ncut++;
            continue;
        }
        st_counts_add(&small, &r->files[i].counts);
        nsmall++;
    }
    char b1[32], b2[32], b3[32], n1[32], n2[32];
    if (ncut)
        st_out_printf(o, "  ... and %zu more file%s above the noise floor (%s)\n", ncut,
                      plural(ncut), t->more_hint);
    if (!nsmall)
        return;
    st_out_printf(o, "  %zu small file%s, each under the noise floor of %s: %s read in %s read%s "
                     "(%s lseek%s) to deliver %s (%s)\n",
                  nsmall, plural(nsmall), st_fmt_bytes(b1, sizeof b1, t->floor),
                  st_fmt_bytes(b2, sizeof b2, small.kernel_read_bytes),
                  st_fmt_count(n1, sizeof n1, small.read_syscalls), plural(small.read_syscalls),
                  st_fmt_count(n2, sizeof n2, small.lseek_syscalls), plural(small.lseek_syscalls),
                  st_fmt_bytes(b3, sizeof b3, small.delivered_bytes), t->more_hint);
}

static void file_table(const struct st_report *r, const struct st_text_opts *t,
                       struct st_outbuf *o)
{
    /* The write columns only when a file the table shows was written: a
     * report of reads reads as it always has. */
    int writes = 0;
    for (size_t i = 0; i < r->nfiles && i < t->max_files; i++)
        writes |= was_written(&r->files[i].counts);
    st_out_printf(o, "\n  %10s %11s %11s %10s %10s %11s  ", "amplif.", "kernel read",
                  "delivered", "reads", "lseeks", "re-read");
    if (writes)
        st_out_printf(o, "%11s %12s %10s %7s  ", "handed over", "kernel write", "writes",
                      "w.ampl.");
    st_out_str(o, "file\n");
    size_t shown = 0;
    for (size_t i = 0; i < r->nfiles && shown < t->max_files; i++) {
        const struct st_report_file *f = &r->files[i];
        const struct st_counts *c = &f->counts;
        if (st_counts_cost(c) < t->floor)
            break; /* files are sorted by cost: the rest are below too */
        char a[32], b1[32], b2[32], b3[32], n1[32], n2[32];
        st_out_printf(o, "  %10s %11s %11s %10s %10s %11s  ",
                      st_fmt_ratio(a, sizeof a, st_counts_amplification(c)),
                      st_fmt_bytes(b1, sizeof b1, c->kernel_read_bytes),
                      st_fmt_bytes(b2, sizeof b2, c->delivered_bytes),
                      st_fmt_count(n1, sizeof n1, c->read_syscalls),
                      st_fmt_count(n2, sizeof n2, c->lseek_syscalls),
                      st_fmt_bytes(b3, sizeof b3, c->reread_bytes));
        if (writes)
            write_columns(c, o);
        st_out_text(o, f->path);
        st_out_str(o, "\n");
        for (size_t k = 0; k < f->nstreams && (!t->max_streams || k < t->max_streams); k++)
            stream_line(&f->streams[k], o);
        if (t->max_streams && f->nstreams > t->max_streams)
            st_out_printf(o, "      ... and %zu more stream%s (%s)\n", f->nstreams - t->max_streams,
                          plural(f->nstreams - t->max_streams), t->more_hint);
        whatif_line(c, o);
        if (f->nstreams == 0 || posix_calls(c)) {
            st_out_str(o, "      calls: ");
            call_line(c, o);
            st_out_str(o, "\n");
        }
        shown++;
    }
    if (t->floor)
        small_files(r, t, shown, o);
    size_t more = r->nfiles + r->nfiles_other - shown;
    if (more && !t->floor) {
        st_out_printf(o, "  ... and %zu more file%s (", more, plural(more));
        /* The at-exit JSON report may list only the worst (report-json.md). */
        st_out_text(o, r->json_rows_bounded
                           ? "SEEKTRACE_FORMAT=json lists the worst, SEEKTRACE_REPORT_FILES=all "
                             "every one"
                           : t->more_hint);
        st_out_str(o, ")\n");
    }
}

/* The sites worth showing: every (file, site) pair, worst first: the
 * site's cost (st_report_rank_pair's first key), computed once per pair. */
struct ranked_site {
    uint64_t score;
    const struct st_report_file *file;
    const struct st_report_site *site;
};

static int worse_first(const void *pa, const void *pb)
{
    uint64_t a = ((const struct ranked_site *)pa)->score;
    uint64_t b = ((const struct ranked_site *)pb)->score;
    return a == b ? 0 : a > b ? -1 : 1;
}

static void top_sites(const struct st_report *r, uint64_t floor, struct st_outbuf *o)
{
    struct ranked_site top[TOP_SITES];
    size_t n = 0;
    /* Each file's sites are sorted already; its first few can compete. */
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct st_report_file *f = &r->files[i];
        for (size_t k = 0; k < f->nsites && k < TOP_SITES; k++) {
            const struct st_counts *sc = &f->sites[k].counts;
            if (!f->sites[k].nframes ||
                !(sc->read_syscalls || sc->lseek_syscalls || sc->write_syscalls))
                continue;
            struct ranked_site c = {st_report_rank_pair(f, &f->sites[k], k).a, f, &f->sites[k]};
            if (c.score < floor)
                continue;
            if (n < TOP_SITES) {
                top[n++] = c;
            } else {
                st_sort(top, n, sizeof *top, worse_first);
                if (worse_first(&c, &top[n - 1]) < 0)
                    top[n - 1] = c;
            }
        }
    }
    if (n == 0)
        return;
    st_sort(top, n, sizeof *top, worse_first);
    /* Write columns only when a site shown wrote, as in the file table. */
    int writes = 0;
    for (size_t i = 0; i < n; i++)
        writes |= top[i].site->counts.write_syscalls != 0;
    int indent = writes ? 67 : 45;
    st_out_printf(o, "\n  %10s %11s %10s %10s  ", "amplif.", "kernel read", "reads", "lseeks");
    if (writes)
        st_out_printf(o, "%10s %11s ", "writes", "kernel wrote");
    st_out_str(o, "call site -> file\n");
    for (size_t i = 0; i < n; i++) {
        const struct st_report_file *file = top[i].file;
        const struct st_report_site *site = top[i].site;
        const struct st_counts *c = &site->counts;
        char a[32], b1[32], n1[32], n2[32], where[256];
        st_out_printf(o, "  %10s %11s %10s %10s  ",
                      st_fmt_ratio(a, sizeof a, st_counts_amplification(c)),
                      st_fmt_bytes(b1, sizeof b1, c->kernel_read_bytes),
                      st_fmt_count(n1, sizeof n1, c->read_syscalls),
                      st_fmt_count(n2, sizeof n2, c->lseek_syscalls));
        if (writes)
            st_out_printf(o, "%10s %11s ", st_fmt_count(n1, sizeof n1, c->write_syscalls),
                          st_fmt_bytes(b1, sizeof b1, c->kernel_write_bytes));
        st_out_text(o, st_frame_describe(&site->frames[0], where, sizeof where));
        st_out_str(o, " -> ");
        st_out_text(o, file->path);
        st_out_str(o, "\n");
        for (int k = 1; k < site->nframes; k++) {
            st_out_printf(o, "  %*s called from ", indent, "");
            st_out_text(o, st_frame_describe(&site->frames[k], where, sizeof where));
            st_out_str(o, "\n");
        }
        st_out_printf(o, "  %*s ", indent, "");
        call_line(c, o);
        st_out_str(o, "\n");
    }
}

static void problems(const struct st_report *r, struct st_outbuf *o)
{
    struct st_finding f[MAX_FINDINGS];
    size_t n = st_find_problems(r, f, MAX_FINDINGS);
    if (n == 0) {
        st_out_str(o, "\n  no problem worth your time found.\n");
        return;
    }
    char where[256];
    for (size_t i = 0; i < n && i < 4; i++) {
        const char *label = i == 0 ? "problem:" : "also:   ";
        st_out_printf(o, "\n  %s ", label);
        if (f[i].site) {
            st_out_str(o, "at ");
            st_out_text(o, st_frame_describe(&f[i].site->frames[0], where, sizeof where));
            st_out_str(o, ", ");
        }
        st_out_text(o, f[i].what);
        st_out_str(o, "\n  change:  ");
        st_out_text(o, f[i].change);
        st_out_str(o, "\n");
    }
}

/* What the figures cannot show (hints.h), a line each. */
static void not_seen(const struct st_report *r, struct st_outbuf *o)
{
    struct st_hint h[4];
    size_t n = st_find_hints(r, h, sizeof h / sizeof h[0]);
    for (size_t i = 0; i < n; i++) {
        st_out_str(o, "\n  not seen: ");
        st_out_text(o, h[i].text);
        st_out_str(o, "\n");
    }
}

void st_report_write_text(const struct st_report *r, struct st_outbuf *o)
{
    static const struct st_text_opts at_exit = {.max_files = TOP_FILES,
                                                .more_hint = "SEEKTRACE_FORMAT=json lists all"};
    st_report_write_text_opts(r, &at_exit, o);
}

void st_report_write_text_opts(const struct st_report *r, const struct st_text_opts *t,
                               struct st_outbuf *o)
{
    headline(r, o);
    if (r->nfiles == 0) {
        st_out_str(o, "  no file reads or seeks seen.\n");
        return;
    }
    file_table(r, t, o);
    if (!t->no_sites)
        top_sites(r, t->floor, o);
    problems(r, o);
    not_seen(r, o);
}
