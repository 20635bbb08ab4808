/* hints.h — what the report cannot see, said in one line.
 *
 * seektrace counts syscalls and the calls that make them. When a runtime
 * keeps a buffer of its own above them (Python's io, Java's buffered
 * streams, C++'s filebuf), the program's own
 * requests never reach a counted call: the figures are the runtime's
 * refills, and an amplification of 1.00x can hide a thousandfold one. A
 * hint names the file, says why, and what to do to see it. */
#ifndef SEEKTRACE_HINTS_H
#define SEEKTRACE_HINTS_H

#include <stddef.h>

#include "report_model.h"

struct st_hint {
    const char *rule; /* stable id, e.g. "python-io-buffer" */
    const struct st_report_file *file;
    char text[512];
};

/* Fills up to max hints, worst file first; returns how many. At most one
 * per rule: a hint speaks for every file it applies to. */
size_t st_find_hints(const struct st_report *r, struct st_hint *out, size_t max);

/* The rules that fire on f alone, bit k for the k-th of ST_HINT_RULES:
 * a report that keeps a few rows keeps each rule's first file. */
#define ST_HINT_RULES 4
unsigned st_file_hints(const struct st_report_file *f);

#endif
