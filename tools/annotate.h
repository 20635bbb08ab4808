/* annotate.h — check's results where code review shows them: SARIF 2.1.0
 * (GitHub code scanning and most viewers), GitHub Actions workflow commands
 * and GitLab Code Quality JSON, each result at the program's source line
 * that caused it when the call site is known.
 *
 * Three kinds of result, by rule id: the limits ("limit/amplification", ...)
 * and the baseline ("baseline/grew", "baseline/new") fail the check and are
 * errors; the report's findings (docs/findings.md: "fseek-discards-buffer",
 * ...) are warnings. A finding made the same way by many processes of a job
 * is one result, with the number of processes. */
#ifndef SEEKTRACE_TOOLS_ANNOTATE_H
#define SEEKTRACE_TOOLS_ANNOTATE_H

#include <stdint.h>
#include <stdio.h>

struct annotation {
    const char *rule;   /* static */
    int error;          /* fails the check (error) or advises (warning) */
    char *message;
    char *path;         /* the file the I/O was on, or NULL */
    char *identity;     /* what it is about, the same in every run of the job (a
                         * baseline key), or NULL: its rule, source line and
                         * the file's name (not its directory) */
    char *source;       /* the program's source file of the call site, or NULL */
    int line;           /* 0 unknown */
    uint64_t kernel_read_bytes, read_syscalls, delivered_bytes, reread_bytes;
    uint64_t processes; /* how many processes it was found in */
};

struct annotations {
    struct annotation *a;
    size_t n, cap;
    size_t *index; /* open addressing on what makes two the same: a + 1 */
    size_t index_cap;
};

/* Adds a copy of x (its strings copied) unless one with the same rule,
 * path, source and line is there: that one counts another process. */
void annotations_add(struct annotations *as, const struct annotation *x);
void annotations_free(struct annotations *as);

/* Whether format is one of these ("sarif", "github", "gitlab"). */
int annotations_format(const char *format);
/* Writes them in format; sources under source_root (NULL: the current
 * directory) are named relative to it, as the repository names them. */
void annotations_write(const struct annotations *as, const char *format, const char *source_root,
                       FILE *f);

#endif
