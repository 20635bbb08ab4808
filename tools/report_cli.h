/* report_cli.h — the report subcommand's engine, shared with run. */
#ifndef SEEKTRACE_REPORT_CLI_H
#define SEEKTRACE_REPORT_CLI_H

#include <stddef.h>

enum report_by { BY_FILE, BY_SITE, BY_PROCESS };

struct report_opts {
    enum report_by by;
    int json;
    size_t top;
    int from_events;
    int stats;
    int keep_going; /* skip inputs that cannot be read (named, exit 3) */
};

/* Prints the report of the processes in paths (traces or JSON reports);
 * exits 2 on bad input (with keep_going: only when no input can be read).
 * Returns 0, or EXIT_SKIPPED when keep_going skipped some. */
int report_paths(const struct report_opts *o, char **paths, size_t n);

#endif
