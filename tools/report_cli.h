/* report_cli.h — the report subcommand's engine, shared with run. */
#ifndef SEEKTRACE_REPORT_CLI_H
#define SEEKTRACE_REPORT_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "counts_packed.h"
#include "report_model.h"
#include "tool.h"

enum report_by { BY_FILE, BY_SITE, BY_PROCESS };

struct report_opts {
    enum report_by by;
    int json;
    size_t top;
    int from_events;
    int stats;
    int keep_going; /* skip inputs that cannot be read (named, exit 3) */
    int full;       /* text: every process, file, stream and site */
};

/* One line per process, kept for the process tables. */
struct prow {
    long pid, ppid;
    char status[12];
    char cmd[160];
    uint64_t start;
    int argc;
    char **argv;
    int depth;          /* in the process tree, for the table */
    struct counts_packed t; /* totals: packed, a job has thousands of rows */
};

/* report_rows.c: a row for process p appended to *rows (grown as
 * needed); the rows freed. */
struct prow *prow_push(struct prow **rows, size_t *n, size_t *cap, const struct process *p);
void prows_free(struct prow *rows, size_t n);
/* Rows in tree order: each process after its parent (when the parent is
 * among them), siblings by start time; depth set for the table. */
void prow_tree_order(struct prow *rows, size_t n);
/* The report a merged report speaks for: the root row's pid and argv
 * (pointing into rows). */
void prow_first(const struct prow *rows, size_t n, struct st_report *first);
/* Every (file, site) of m, worst first: wasted bytes, then syscalls, then
 * path (malloc'd, *n rows). */
struct srow {
    const struct st_report_site *site;
    const char *path;
};
struct srow *site_rows(const struct st_report *m, size_t *n);
/* Calls of every kind. */
uint64_t calls_of(const struct st_counts *c);
/* Sorts paths by when their process started (traces first, by start;
 * other inputs after, as given); returns how many are traces. */
size_t inputs_by_start(char **paths, size_t n);

/* report_merged.c: a row per process, in tree order, the first top. */
void process_table(const struct prow *rows, size_t n, size_t top);
/* The cost (st_counts_cost) under which a merged report gives a file or a
 * site no row: 1 % of the whole run's, at least 64 KiB. */
uint64_t merged_noise_floor(const struct st_report *m);
/* How many worst files the text of a merged report needs rows for: every
 * file above the noise floor, and --top's. */
size_t merged_text_files(const struct report_opts *o);
/* The by-file text of several processes after its first line: the
 * processes by command (each, with --full), then the merged accounts m
 * with the noise floor (none with --full, whose caller then lists every
 * site). */
void merged_text(const struct st_report *m, const struct prow *rows, size_t n,
                 const struct report_opts *o);

/* Prints the report of the processes in paths (traces or JSON reports);
 * exits 2 on bad input (with keep_going: only when no input can be read).
 * Returns 0, or EXIT_SKIPPED when keep_going skipped some. */
int report_paths(const struct report_opts *o, char **paths, size_t n);

/* cmd_html.c: writes the page of the processes in paths to out ('-':
 * stdout); exits 2 on bad input (with keep_going: only when none can be
 * read). Returns 0 or EXIT_SKIPPED. */
struct st_cost_model;
struct html_sweep;
struct html_opts {
    const struct st_cost_model *cost; /* NULL: calibration's, picked when a
                                       * trace needs it (cost_measure.h) */
    const char *calibration;          /* NULL: calibrate's default file */
    const struct html_sweep *sweep;   /* measurements to draw, or NULL */
    int keep_going;
};
int html_paths(const char *out, char **paths, size_t n, const struct html_opts *o);

#endif
