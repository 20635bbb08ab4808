/* report_rows.c — see report_cli.h: what report and html both build from
 * the processes they read: a row per process in tree order, the sites over
 * all files worst first, and the inputs in the order their processes
 * started. */
#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>

#include "report_cli.h"
#include "tool.h"

struct prow *prow_push(struct prow **rows, size_t *n, size_t *cap, const struct process *p)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *rows = realloc(*rows, *cap * sizeof **rows);
        if (!*rows)
            tool_bad_input("out of memory");
    }
    struct prow *row = &(*rows)[(*n)++];
    memset(row, 0, sizeof *row);
    row->pid = p->report.pid;
    row->ppid = p->report.ppid;
    snprintf(row->status, sizeof row->status, "%s", p->status);
    argv_line(&p->report, row->cmd, sizeof row->cmd);
    row->start = p->start_realtime_ns;
    counts_packed_add(&row->t, &p->report.totals);
    row->argc = p->report.argc;
    row->argv = calloc((size_t)p->report.argc + 1, sizeof *row->argv);
    for (int i = 0; row->argv && i < p->report.argc; i++)
        row->argv[i] = strdup(p->report.argv[i]);
    return row;
}

void prows_free(struct prow *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; rows[i].argv && k < rows[i].argc; k++)
            free(rows[i].argv[k]);
        free(rows[i].argv);
        counts_packed_free(&rows[i].t);
    }
    free(rows);
}

void prow_first(const struct prow *rows, size_t n, struct st_report *first)
{
    memset(first, 0, sizeof *first);
    if (!n)
        return;
    first->pid = rows[0].pid;
    first->ppid = rows[0].ppid;
    first->argc = rows[0].argv ? rows[0].argc : 0;
    first->argv = (const char *const *)rows[0].argv;
}

static int worse_site(const void *a, const void *b)
{
    const struct st_counts *x = &((const struct srow *)a)->site->counts;
    const struct st_counts *y = &((const struct srow *)b)->site->counts;
    uint64_t wx = st_counts_wasted_bytes(x), wy = st_counts_wasted_bytes(y);
    if (wx != wy)
        return wx > wy ? -1 : 1;
    uint64_t sx = x->read_syscalls + x->lseek_syscalls + x->write_syscalls;
    uint64_t sy = y->read_syscalls + y->lseek_syscalls + y->write_syscalls;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return strcmp(((const struct srow *)a)->path, ((const struct srow *)b)->path);
}

struct srow *site_rows(const struct st_report *m, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nfiles; i++)
        n += m->files[i].nsites;
    struct srow *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        tool_bad_input("out of memory");
    size_t k = 0;
    for (size_t i = 0; i < m->nfiles; i++)
        for (size_t s = 0; s < m->files[i].nsites; s++)
            rows[k++] = (struct srow){&m->files[i].sites[s], m->files[i].path};
    qsort(rows, n, sizeof *rows, worse_site);
    *count = n;
    return rows;
}

uint64_t calls_of(const struct st_counts *c)
{
    uint64_t n = 0;
    for (int k = 0; k < ST_CALL_COUNT; k++)
        n += c->by_call[k].calls;
    return n;
}

static int by_start(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void prow_tree_order(struct prow *rows, size_t n)
{
    if (n < 2)
        return;
    qsort(rows, n, sizeof *rows, by_start);
    size_t *parent = malloc(n * sizeof *parent), *out = malloc(n * sizeof *out);
    size_t *stack = malloc(n * sizeof *stack);
    struct prow *copy = malloc(n * sizeof *copy);
    if (!parent || !out || !stack || !copy)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < n; i++) {
        parent[i] = (size_t)-1;
        /* A process with that pid: the latest that began before this one,
         * else any (a trace begins with its first read, not its process). */
        for (size_t k = 0; k < n; k++)
            if (k != i && rows[k].pid == rows[i].ppid &&
                (parent[i] == (size_t)-1 || rows[k].start <= rows[i].start))
                parent[i] = k;
    }
    size_t no = 0;
    for (size_t root = 0; root < n; root++) {
        if (parent[root] != (size_t)-1)
            continue;
        size_t sp = 0;
        stack[sp++] = root;
        rows[root].depth = 0;
        while (sp) {
            size_t i = stack[--sp];
            out[no++] = i;
            /* Children pushed latest-first so the earliest comes out first. */
            for (size_t k = n; k-- > 0;)
                if (parent[k] == i) {
                    rows[k].depth = rows[i].depth + 1;
                    stack[sp++] = k;
                }
        }
    }
    /* A cycle of reused pids would leave rows out: append them. */
    char *seen = calloc(n, 1);
    if (!seen)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < no; i++)
        seen[out[i]] = 1;
    for (size_t i = 0; i < n && no < n; i++)
        if (!seen[i])
            out[no++] = i;
    memcpy(copy, rows, n * sizeof *rows);
    for (size_t i = 0; i < n; i++)
        rows[i] = copy[out[i]];
    free(seen);
    free(parent);
    free(out);
    free(stack);
    free(copy);
}

/* Inputs sorted by when their process started (traces), in given order
 * otherwise. */
struct order {
    char *path;
    uint64_t start;
    size_t given;
};

static int by_order(const void *a, const void *b)
{
    const struct order *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->given < y->given ? -1 : x->given > y->given;
}

size_t inputs_by_start(char **paths, size_t n)
{
    struct order *ord = calloc(n ? n : 1, sizeof *ord);
    if (!ord)
        tool_bad_input("out of memory");
    size_t traces = 0;
    for (size_t i = 0; i < n; i++) {
        long pid, ppid;
        ord[i].path = paths[i];
        ord[i].given = i;
        if (peek_trace(paths[i], &pid, &ppid, &ord[i].start) != 0)
            ord[i].start = UINT64_MAX; /* reports, and files load_file will explain */
        else
            traces++;
    }
    qsort(ord, n, sizeof *ord, by_order);
    for (size_t i = 0; i < n; i++)
        paths[i] = ord[i].path;
    free(ord);
    return traces;
}
