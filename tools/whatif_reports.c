/* whatif_reports.c — see whatif_reports.h. */
#define _GNU_SOURCE 1
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "units.h"
#include "whatif_reports.h"

struct rfile {
    char *path;
    struct st_counts c; /* by_call unused */
};

struct rproc {
    long pid, ppid;
    char cmd[200];
};

struct rctx {
    const char *glob;
    struct rfile *files;
    size_t nfiles, capfiles;
    struct rproc *procs;
    size_t nprocs, capprocs;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 64;
    p = realloc(p, *cap * size);
    if (!p)
        tool_bad_input("out of memory");
    return p;
}

static int on_report(struct process *p, void *vctx)
{
    struct rctx *c = vctx;
    c->procs = grow(c->procs, &c->capprocs, c->nprocs, sizeof *c->procs);
    struct rproc *pr = &c->procs[c->nprocs++];
    pr->pid = p->report.pid;
    pr->ppid = p->report.ppid;
    argv_line(&p->report, pr->cmd, sizeof pr->cmd);
    for (size_t i = 0; i < p->report.nfiles; i++) {
        const struct st_report_file *f = &p->report.files[i];
        if (c->glob && fnmatch(c->glob, f->path, 0) != 0)
            continue;
        struct rfile *r = NULL;
        for (size_t k = 0; k < c->nfiles && !r; k++)
            if (strcmp(c->files[k].path, f->path) == 0)
                r = &c->files[k];
        if (!r) {
            c->files = grow(c->files, &c->capfiles, c->nfiles, sizeof *c->files);
            r = &c->files[c->nfiles++];
            memset(r, 0, sizeof *r);
            if (!(r->path = strdup(f->path)))
                tool_bad_input("out of memory");
        }
        struct st_counts add = f->counts;
        memset(add.by_call, 0, sizeof add.by_call);
        st_counts_add(&r->c, &add);
    }
    return 0;
}

/* The root of the tree: a process whose parent left no report here. */
static const char *root_command(const struct rctx *c)
{
    for (size_t i = 0; i < c->nprocs; i++) {
        int parent = 0;
        for (size_t k = 0; k < c->nprocs && !parent; k++)
            parent = k != i && c->procs[k].pid == c->procs[i].ppid;
        if (!parent)
            return c->procs[i].cmd;
    }
    return c->nprocs ? c->procs[0].cmd : "";
}

static void print_json(const struct rctx *c)
{
    fflush(stdout);
    FILE *out = stdout;
    fputs("{\"schema\":\"seektrace.whatif-reports/1\",\"command\":", out);
    json_str(out, root_command(c));
    fprintf(out, ",\"processes\":%zu,\"files\":[", c->nprocs);
    for (size_t i = 0; i < c->nfiles; i++) {
        const struct st_counts *k = &c->files[i].c;
        fprintf(out, "%s{\"path\":", i ? "," : "");
        json_str(out, c->files[i].path);
        fprintf(out, ",\"read_syscalls\":%" PRIu64 ",\"lseek_syscalls\":%" PRIu64
                     ",\"kernel_read_bytes\":%" PRIu64 ",\"delivered_bytes\":%" PRIu64
                     ",\"amplification\":",
                k->read_syscalls, k->lseek_syscalls, k->kernel_read_bytes, k->delivered_bytes);
        if (k->delivered_bytes)
            fprintf(out, "%.6g", st_counts_amplification(k));
        else
            fputs("null", out);
        fprintf(out, ",\"whatif_4k_recorded_bytes\":%" PRIu64
                     ",\"whatif_4k_kernel_read_bytes\":%" PRIu64 "}",
                k->whatif_4k_recorded_bytes, k->whatif_4k_kernel_read_bytes);
    }
    fputs("]}\n", out);
}

static void print_text(const struct rctx *c)
{
    out_printf("what-if of: %s (%zu process%s, from JSON reports)\n", root_command(c), c->nprocs,
               c->nprocs == 1 ? "" : "es");
    out_printf("a JSON report holds each file's figures and the library's 4 KiB prediction, not "
               "the calls: for every buffer size, run whatif on the traces (seektrace run "
               "--trace DIR)\n\n");
    out_printf("  %11s %9s %9s %11s %9s  %-27s %s\n", "kernel read", "reads", "lseeks",
               "delivered", "amplif.", "4 KiB buffer (predicted)", "file");
    for (size_t i = 0; i < c->nfiles; i++) {
        const struct st_counts *k = &c->files[i].c;
        char b1[32], b2[32], n1[32], n2[32], a[32], w1[32], w2[32], pred[96];
        if (k->whatif_4k_kernel_read_bytes)
            snprintf(pred, sizeof pred, "%s instead of %s",
                     st_fmt_bytes(w1, sizeof w1, k->whatif_4k_kernel_read_bytes),
                     st_fmt_bytes(w2, sizeof w2, k->whatif_4k_recorded_bytes));
        else
            snprintf(pred, sizeof pred, "-");
        out_printf("  %11s %9s %9s %11s %9s  %-27s %s\n",
                   st_fmt_bytes(b1, sizeof b1, k->kernel_read_bytes),
                   st_fmt_count(n1, sizeof n1, k->read_syscalls),
                   st_fmt_count(n2, sizeof n2, k->lseek_syscalls),
                   st_fmt_bytes(b2, sizeof b2, k->delivered_bytes),
                   k->delivered_bytes ? st_fmt_ratio(a, sizeof a, st_counts_amplification(k)) : "-",
                   pred, c->files[i].path);
    }
    if (!c->nfiles)
        out_printf("  no file reads in these reports%s\n", c->glob ? " matching --file" : "");
    out_printf("'-': no stream the library modelled (read-only, a buffer over 4 KiB)\n");
}

int whatif_reports(char **paths, size_t n, int json, const char *glob)
{
    struct rctx c;
    memset(&c, 0, sizeof c);
    c.glob = glob;
    struct load_opts lo = {0};
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_report, &c, err) != 0)
            tool_bad_input("%s", err);
    }
    if (json)
        print_json(&c);
    else
        print_text(&c);
    for (size_t i = 0; i < c.nfiles; i++)
        free(c.files[i].path);
    free(c.files);
    free(c.procs);
    if (fflush(stdout) != 0)
        tool_bad_input("cannot write the output");
    return 0;
}
