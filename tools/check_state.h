/* check_state.h — what seektrace check has found so far (cmd_check.c
 * gathers it, check_print.c prints it): the violations, the JUnit test
 * cases, the counts and the annotations of a check over every input. */
#ifndef SEEKTRACE_TOOLS_CHECK_STATE_H
#define SEEKTRACE_TOOLS_CHECK_STATE_H

#include <stdint.h>
#include <stdio.h>

#include "annotate.h"
#include "baseline.h"
#include "tool.h"

struct violation {
    char *path, *cmd, *site, *source;
    long pid;
    const char *limit;  /* "amplification", "read_syscalls", "reread_bytes",
                         * "write_syscalls_per_mib" */
    const char *rule;   /* the annotation's (annotate.h) */
    double value, max;
    /* the file's (or site's) figures */
    uint64_t kernel_read_bytes, delivered_bytes, read_syscalls, reread_bytes, write_syscalls,
        kernel_write_bytes, written_bytes;
    char *frame_source; /* the site's top frame's, or NULL */
    int frame_line;
    char *what;         /* the line printed */
};

/* A JUnit test case: one per command and file (or site), over all the
 * processes that ran that command, so that its name is the same in every
 * run of the job. */
struct tcase {
    char *name, *classname;
    size_t *violations; /* indexes into cctx.v */
    size_t nviolations;
};

/* A JUnit test case of the process being read: its name and its
 * violations, c->v[first, end). */
struct pending_case {
    char *name;
    size_t first, end;
};

/* The counts as they were before the process being read, so that one
 * that cannot be read in full (--keep-going) leaves nothing of itself. */
struct tally {
    size_t nv, files, sites, written_only, below_floor;
};

struct cctx {
    const struct check_opts *o;
    struct violation *v;
    size_t nv, capv;
    struct tcase *cases;
    size_t ncases, capcases;
    size_t *case_index; /* open addressing on (name, classname): case index + 1 */
    size_t case_index_cap;
    size_t processes, files, sites;
    size_t written_only; /* files not judged by amplification: written, nothing delivered */
    size_t below_floor;  /* files (or sites) under --min-waste */
    size_t *glob_hits, *site_hits;
    struct tally before;                  /* the counts before this process */
    size_t *glob_hits_before, *site_hits_before;
    struct pending_case *pending;         /* this process's test cases */
    size_t npending, cappending;
    struct skipped skipped;
    struct annotations ann;     /* --format sarif, github, gitlab */
    struct baseline *now;       /* this run's figures, with --baseline */
    struct baseline_diff *diff; /* against the baseline */
};

/* A limit exceeded, or a regression against the baseline. */
int check_failed(const struct cctx *c);

/* The check's result as seektrace.check/1 JSON, JUnit XML, or text. */
void check_print_json(FILE *f, const struct cctx *c);
void check_print_junit(FILE *f, const struct cctx *c);
void check_print_text(FILE *f, const struct cctx *c);

#endif
