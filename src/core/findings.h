/* findings.h — diagnosis: what is wrong with a file's I/O, in one sentence.
 *
 * Each rule looks at the accounts of one file (and its streams), fires only
 * above thresholds that make it worth a user's time (docs/findings.md), and
 * says what it saw with the numbers that prove it and what to change. */
#ifndef SEEKTRACE_FINDINGS_H
#define SEEKTRACE_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

struct st_finding {
    const char *rule;              /* stable id, e.g. "fseek-discards-buffer" */
    const struct st_report_file *file;
    const struct st_report_site *site; /* where it happens; NULL if unknown */
    uint64_t cost;                 /* ranking: wasted bytes + 4 KiB per excess syscall */
    char what[512];                /* what happened, with numbers */
    char change[256];              /* what to change */
};

/* Fills up to max findings for the report, worst first; returns how many. */
size_t st_find_problems(const struct st_report *r, struct st_finding *out, size_t max);

/* Whether any rule fires on f alone: the files that can hold the first
 * findings of a report (the exit report keeps their rows). */
int st_file_has_findings(const struct st_report_file *f);

#endif
