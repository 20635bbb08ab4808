/* report_cli.h — the report subcommand's engine, shared with run. */
#ifndef SEEKTRACE_REPORT_CLI_H
#define SEEKTRACE_REPORT_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

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
    struct st_counts t; /* totals, by_call unused */
};

/* report_merged.c: a row per process, in tree order, the first top. */
void process_table(const struct prow *rows, size_t n, size_t top);
/* The cost (st_counts_cost) under which a merged report gives a file or a
 * site no row: 1 % of the whole run's, at least 64 KiB. */
uint64_t merged_noise_floor(const struct st_report *m);
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

#endif
