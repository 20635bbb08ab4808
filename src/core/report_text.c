/* report_text.c — the report a person reads in ten seconds: the headline,
 * the worst files first, and the top problem in plain words. */
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "report_model.h"
#include "units.h"

#define TOP_FILES 10
#define MAX_FINDINGS 16

static void headline(const struct st_report *r, struct st_outbuf *o)
{
    st_out_printf(o, "seektrace: pid %ld", r->pid);
    for (int i = 0; i < r->argc && i < 6; i++)
        st_out_printf(o, " %s", r->argv[i]);
    if (r->argc > 6)
        st_out_str(o, " ...");
    st_out_printf(o, "  [capture: %s]\n", r->capture);
    if (r->capture_reason)
        st_out_printf(o, "  capture is inferred: %s\n", r->capture_reason);

    const struct st_counts *t = &r->totals;
    char b1[32], b2[32], n1[32], n2[32], a[32];
    st_out_printf(o, "  %s read from the kernel in %s read syscalls (%s lseeks) to deliver %s",
                  st_fmt_bytes(b1, sizeof b1, t->kernel_read_bytes),
                  st_fmt_count(n1, sizeof n1, t->read_syscalls),
                  st_fmt_count(n2, sizeof n2, t->lseek_syscalls),
                  st_fmt_bytes(b2, sizeof b2, t->delivered_bytes));
    if (t->delivered_bytes)
        st_out_printf(o, ": %s amplification", st_fmt_ratio(a, sizeof a, st_counts_amplification(t)));
    st_out_str(o, "\n");
}

/* "fseek 200,000 (200,000 reads, 24.4 GiB) · fread 200,000" */
static void call_line(const struct st_counts *c, struct st_outbuf *o)
{
    const char *sep = "";
    for (int k = 0; k < ST_CALL_COUNT; k++) {
        const struct st_call_cost *cc = &c->by_call[k];
        if (!cc->calls && !cc->read_syscalls && !cc->lseek_syscalls)
            continue;
        char n1[32], n2[32], n3[32], b1[32];
        st_out_printf(o, "%s%s %s", sep, st_call_name((enum st_call)k),
                      st_fmt_count(n1, sizeof n1, cc->calls));
        if (cc->read_syscalls || cc->lseek_syscalls) {
            st_out_printf(o, " (%s reads, %s; %s lseeks)",
                          st_fmt_count(n2, sizeof n2, cc->read_syscalls),
                          st_fmt_bytes(b1, sizeof b1, cc->kernel_read_bytes),
                          st_fmt_count(n3, sizeof n3, cc->lseek_syscalls));
        }
        sep = " · ";
    }
}

static void stream_line(const struct st_report_stream *s, struct st_outbuf *o)
{
    char b1[32], b2[32], n1[32], n2[32];
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
    st_out_str(o, "\n        ");
    call_line(&s->counts, o);
    st_out_str(o, "\n");
}

static void file_table(const struct st_report *r, struct st_outbuf *o)
{
    st_out_printf(o, "\n  %10s %11s %11s %10s %10s %11s  %s\n", "amplif.", "kernel read",
                  "delivered", "reads", "lseeks", "re-read", "file");
    size_t shown = 0;
    for (size_t i = 0; i < r->nfiles && shown < TOP_FILES; i++) {
        const struct st_report_file *f = &r->files[i];
        const struct st_counts *c = &f->counts;
        char a[32], b1[32], b2[32], b3[32], n1[32], n2[32];
        st_out_printf(o, "  %10s %11s %11s %10s %10s %11s  %s\n",
                      st_fmt_ratio(a, sizeof a, st_counts_amplification(c)),
                      st_fmt_bytes(b1, sizeof b1, c->kernel_read_bytes),
                      st_fmt_bytes(b2, sizeof b2, c->delivered_bytes),
                      st_fmt_count(n1, sizeof n1, c->read_syscalls),
                      st_fmt_count(n2, sizeof n2, c->lseek_syscalls),
                      st_fmt_bytes(b3, sizeof b3, c->reread_bytes), f->path);
        for (size_t k = 0; k < f->nstreams; k++)
            stream_line(&f->streams[k], o);
        if (f->nstreams == 0 || c->by_call[ST_CALL_READ].calls || c->by_call[ST_CALL_PREAD].calls ||
            c->by_call[ST_CALL_LSEEK].calls) {
            st_out_str(o, "      calls: ");
            call_line(c, o);
            st_out_str(o, "\n");
        }
        shown++;
    }
    if (r->nfiles > shown)
        st_out_printf(o, "  ... and %zu more files (SEEKTRACE_FORMAT=json lists all)\n",
                      r->nfiles - shown);
}

static void problems(const struct st_report *r, struct st_outbuf *o)
{
    struct st_finding f[MAX_FINDINGS];
    size_t n = st_find_problems(r, f, MAX_FINDINGS);
    if (n == 0) {
        st_out_str(o, "\n  no problem worth your time found.\n");
        return;
    }
    st_out_printf(o, "\n  problem: %s\n  change:  %s\n", f[0].what, f[0].change);
    for (size_t i = 1; i < n && i < 4; i++)
        st_out_printf(o, "  also:    %s [%s]\n", f[i].what, f[i].rule);
}

void st_report_write_text(const struct st_report *r, struct st_outbuf *o)
{
    headline(r, o);
    if (r->nfiles == 0) {
        st_out_str(o, "  no file reads or seeks seen.\n");
        return;
    }
    file_table(r, o);
    problems(r, o);
}
