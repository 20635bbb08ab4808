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
};

/* Prints the report of the processes in paths (traces or JSON reports);
 * exits 2 on bad input. Returns 0. */
int report_paths(const struct report_opts *o, char **paths, size_t n);

#endif
