/* baseline.h — a job's I/O figures under stable keys, to compare two runs.
 *
 * A baseline holds, for every file and every call site a job's processes
 * touched, the kernel-level figures summed over all processes, under a key
 * that is the same in every run of the job: a file's path with the job's
 * own directories replaced by names (--path-prefix), pipe and socket inode
 * numbers and pids dropped; a site's module, function, source file and
 * line — never a pid, an address or a time. `seektrace baseline save`
 * writes one (schema seektrace.baseline/1, an entry per line, sorted, so
 * that a repository can commit it and diff it); `seektrace check
 * --baseline` compares a new run with one (docs/ci.md). */
#ifndef SEEKTRACE_TOOLS_BASELINE_H
#define SEEKTRACE_TOOLS_BASELINE_H

#include <stdint.h>
#include <stdio.h>

#include "tool.h"

#define BASELINE_SCHEMA "seektrace.baseline/1"
#define BASELINE_DEFAULT_GROWTH 0.10
#define BASELINE_DEFAULT_FLOOR (64u * 1024u)
#define BASELINE_DEFAULT_FLOOR_TEXT "64k"

/* How paths become keys. */
struct baseline_keys {
    const char **prefix_names, **prefix_dirs; /* --path-prefix NAME=DIR */
    size_t nprefixes;
    const char **globs; /* --path-glob: a path that matches is keyed as the glob */
    size_t nglobs;
};
void baseline_keys_free(struct baseline_keys *k);
/* Parses --path-prefix / --path-glob at argv[*i]; 1 if it was one. */
int baseline_keys_parse(struct baseline_keys *k, const char *cmd, int argc, char **argv, int *i);

/* The figures kept per entry. X(name, bytes, judged): bytes 1 for a byte
 * count (else syscalls); judged 0 for a figure only used to derive another
 * (delivered bytes, for the waste). */
#define BASELINE_METRICS(X)                                                                        \
    X(kernel_read_bytes, 1, 1)                                                                     \
    X(read_syscalls, 0, 1)                                                                         \
    X(reread_bytes, 1, 1)                                                                          \
    X(delivered_bytes, 1, 0)                                                                       \
    X(kernel_write_bytes, 1, 1)                                                                    \
    X(write_syscalls, 0, 1)
enum baseline_metric {
#define BASELINE_ENUM(name, bytes, judged) BM_##name,
    BASELINE_METRICS(BASELINE_ENUM)
#undef BASELINE_ENUM
    BM_COUNT
};
extern const char *const baseline_metric_names[BM_COUNT];
extern const unsigned char baseline_metric_is_bytes[BM_COUNT], baseline_metric_judged[BM_COUNT];

struct baseline_entry {
    char *key;    /* "file {src}/data.bin", "site app main app.c:42" */
    char *where;  /* a site as reports name it, "main (app.c:42)" (a file: its
                   * costliest site in any one process); NULL: unknown */
    char *source; /* a site's source file, as its debug information names it, or NULL */
    int line;
    uint64_t where_cost; /* a file's: what its site `where` cost (the worst is kept) */
    uint64_t v[BM_COUNT];
};

/* Whether every figure of e is 0 (a site of fopen or fclose): such entries
 * are neither saved nor compared. */
int baseline_entry_empty(const struct baseline_entry *e);

/* e's "key", and "where", "source", "line" when known: JSON members
 * (no braces). */
void baseline_entry_json_name(const struct baseline_entry *e, FILE *f);

struct baseline;
size_t baseline_size(const struct baseline *b);
/* Entry i in key order (baseline_sort first) / the entry with key, or NULL. */
const struct baseline_entry *baseline_entry(const struct baseline *b, size_t i);
const struct baseline_entry *baseline_find(const struct baseline *b, const char *key);
void baseline_sort(struct baseline *b);
struct baseline *baseline_new(const struct baseline_keys *keys);
void baseline_free(struct baseline *b);
/* Adds a process's files and sites. */
void baseline_add(struct baseline *b, const struct process *p);
/* Writes b (schema BASELINE_SCHEMA) to f, sorting it. */
void baseline_write(struct baseline *b, FILE *f);
/* A saved baseline, or the baseline of traces and reports (a file or a
 * directory, as check's inputs): NULL with a one-line error in err. */
struct baseline *baseline_open(const char *path, const struct baseline_keys *keys,
                               char err[ST_TRACE_ERROR_MAX]);

/* What a comparison found: each entry of the new run that grew beyond
 * max_growth (and by at least floor bytes, or floor / 4 KiB syscalls), new
 * entries that waste at least floor bytes, and, for information, entries
 * that shrank as much and entries gone. */
struct baseline_diff;
struct baseline_diff *baseline_compare(struct baseline *old, struct baseline *now,
                                       double max_growth, uint64_t floor);
void baseline_diff_free(struct baseline_diff *d);
size_t baseline_regressions(const struct baseline_diff *d);
/* The comparison as text lines, as the members of a JSON object (no braces:
 * "regressions":[...],...), or as JUnit test cases (one per entry of the
 * new run, named by its key). */
void baseline_diff_text(const struct baseline_diff *d, FILE *f);
void baseline_diff_json(const struct baseline_diff *d, FILE *f);
void baseline_diff_junit(const struct baseline_diff *d, FILE *f, void (*xml)(FILE *, const char *));
size_t baseline_diff_cases(const struct baseline_diff *d);
struct annotations;
/* Each regression as an error annotation (annotate.h); a file's path with
 * its {NAME} prefix turned back into keys' DIR. */
void baseline_diff_annotate(const struct baseline_diff *d, const struct baseline_keys *keys,
                            struct annotations *as);

#endif
