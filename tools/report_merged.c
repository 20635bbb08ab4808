/* report_merged.c — the text report of many processes (report_cli.h).
 *
 * Sized to read the same at three processes and at ten thousand: the
 * processes grouped by command with their sums, then their accounts merged
 * by file, where only files and sites above a noise floor get a row and
 * the rest are summed exactly on one line. --full lists every process,
 * file, stream and site; JSON lists every process, and every file up to
 * 1000 (the worst 1000 past that, as a single process's report). */
#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>

#include "report_cli.h"
#include "tool.h"
#include "units.h"

/* Below this cost (st_counts_cost) a file or site of a merged report gets
 * no row: 1 % of the run's whole cost, and never less than 64 KiB (16
 * syscalls' worth), so a run's dozens of small configuration files read
 * once per process fold into one line. */
#define FLOOR_SHARE 100u
#define FLOOR_MIN (64u * 1024u)
/* Stream rows per file and commands listed, unless --full or --top. */
#define MAX_STREAMS 3
#define TOP_COMMANDS 10

void process_table(const struct prow *rows, size_t n, size_t top)
{
    out_printf("  %8s %8s  %-9s %9s %11s %11s %9s %9s  %s\n", "pid", "ppid", "trace", "amplif.",
               "kernel read", "delivered", "reads", "lseeks", "command");
    for (size_t i = 0; i < n && i < top; i++) {
        char a[32], b1[32], b2[32], n1[32], n2[32];
        struct st_counts totals;
        counts_packed_get(&rows[i].t, &totals);
        const struct st_counts *t = &totals;
        out_printf("  %8ld %8ld  %-9s %9s %11s %11s %9s %9s  %*s%s\n", rows[i].pid, rows[i].ppid,
                   rows[i].status, st_fmt_ratio(a, sizeof a, st_counts_amplification(t)),
                   st_fmt_bytes(b1, sizeof b1, t->kernel_read_bytes),
                   st_fmt_bytes(b2, sizeof b2, t->delivered_bytes),
                   st_fmt_count(n1, sizeof n1, t->read_syscalls),
                   st_fmt_count(n2, sizeof n2, t->lseek_syscalls),
                   rows[i].depth > 8 ? 16 : 2 * rows[i].depth, "", rows[i].cmd);
    }
    if (n > top)
        out_printf("  ... and %zu more processes (--top N shows more)\n", n - top);
}

/* The processes of one command (argv[0]'s last component), summed. */
struct group {
    const char *name;
    const struct prow *first;
    size_t n;
    struct counts_packed t;
    uint64_t cost;
};

static const char *command_name(const struct prow *r)
{
    const char *a0 = r->argv && r->argc > 0 && r->argv[0] ? r->argv[0] : "?";
    const char *slash = strrchr(a0, '/');
    return slash && slash[1] ? slash + 1 : a0;
}

static int costlier_group(const void *pa, const void *pb)
{
    const struct group *a = pa, *b = pb;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->name, b->name);
}

static size_t group_by_command(const struct prow *rows, size_t n, struct group *g)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = command_name(&rows[i]);
        size_t k = 0;
        while (k < ng && strcmp(g[k].name, name) != 0)
            k++;
        if (k == ng)
            g[ng++] = (struct group){.name = name, .first = &rows[i]};
        g[k].n++;
        struct st_counts t;
        counts_packed_get(&rows[i].t, &t);
        counts_packed_add(&g[k].t, &t);
    }
    for (size_t k = 0; k < ng; k++) {
        struct st_counts t;
        counts_packed_get(&g[k].t, &t);
        g[k].cost = st_counts_cost(&t);
    }
    qsort(g, ng, sizeof *g, costlier_group);
    return ng;
}

/* One row per command, costliest first; a command run once shows its
 * whole command line. */
static void command_table(const struct prow *rows, size_t n, size_t top)
{
    struct group *g = calloc(n ? n : 1, sizeof *g);
    if (!g)
        tool_bad_input("out of memory");
    size_t ng = group_by_command(rows, n, g);
    out_printf("  %9s %9s %11s %11s %9s %9s  %s\n", "processes", "amplif.", "kernel read",
               "delivered", "reads", "lseeks", "command");
    for (size_t k = 0; k < ng && k < top; k++) {
        char p[32], a[32], b1[32], b2[32], n1[32], n2[32];
        struct st_counts totals;
        counts_packed_get(&g[k].t, &totals);
        const struct st_counts *t = &totals;
        out_printf("  %9s %9s %11s %11s %9s %9s  %s\n", st_fmt_count(p, sizeof p, g[k].n),
                   st_fmt_ratio(a, sizeof a, st_counts_amplification(t)),
                   st_fmt_bytes(b1, sizeof b1, t->kernel_read_bytes),
                   st_fmt_bytes(b2, sizeof b2, t->delivered_bytes),
                   st_fmt_count(n1, sizeof n1, t->read_syscalls),
                   st_fmt_count(n2, sizeof n2, t->lseek_syscalls),
                   g[k].n == 1 ? g[k].first->cmd : g[k].name);
    }
    if (ng > top)
        out_printf("  ... and %zu more command%s (--top N shows more, --by process lists each "
                   "process)\n",
                   ng - top, ng - top == 1 ? "" : "s");
    for (size_t k = 0; k < ng; k++)
        counts_packed_free(&g[k].t);
    free(g);
}

size_t merged_text_files(const struct report_opts *o)
{
    /* Each file at or above the floor costs 1 % of the run or more: there
     * are at most FLOOR_SHARE of them. */
    size_t shown = o->top ? o->top : 10;
    return shown > FLOOR_SHARE + 1 ? shown : FLOOR_SHARE + 1;
}

uint64_t merged_noise_floor(const struct st_report *m)
{
    uint64_t all = st_counts_cost(&m->other);
    for (size_t i = 0; i < m->nfiles; i++)
        all += st_counts_cost(&m->files[i].counts);
    return all / FLOOR_SHARE > FLOOR_MIN ? all / FLOOR_SHARE : FLOOR_MIN;
}

void merged_text(const struct st_report *m, const struct prow *rows, size_t n,
                 const struct report_opts *o)
{
    if (o->full)
        process_table(rows, n, (size_t)-1);
    else
        command_table(rows, n, o->top ? o->top : TOP_COMMANDS);
    struct st_text_opts t = {.max_files = o->full ? (size_t)-1 : o->top ? o->top : 10,
                             .more_hint = m->nfiles + m->nfiles_other > ST_REPORT_JSON_FILES
                                              ? "--full lists all, --json --full too"
                                              : "--full lists all, --json too"};
    if (!o->full) {
        t.floor = merged_noise_floor(m);
        t.max_streams = MAX_STREAMS;
    }
    t.no_sites = o->full; /* the caller lists every site instead */
    /* The merged accounts, in the report's own words; its first line (one
     * process's pid and command) gives way to ours. */
    size_t len;
    char *s = render_report(m, 0, &t, &len);
    char *body = strchr(s, '\n');
    out_printf("\n  all processes together:\n");
    if (body)
        out_write(body + 1, len - (size_t)(body + 1 - s));
    free(s);
}
