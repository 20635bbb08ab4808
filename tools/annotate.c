/* annotate.c — SARIF, GitHub and GitLab renderings of check's results
 * (annotate.h). */
#define _GNU_SOURCE 1
#include "annotate.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#ifndef SEEKTRACE_VERSION
#define SEEKTRACE_VERSION "0"
#endif

/* Every rule a result may name, with its one-line description: the
 * findings' from docs/findings.md (generated at configure time), then
 * check's own. */
static const struct {
    const char *id, *text;
} rules[] = {
#define FINDING_RULE(id, text) {id, text},
#include "finding_rules.def"
#undef FINDING_RULE
    {"limit/amplification", "kernel bytes read per byte delivered exceed --max-amplification"},
    {"limit/read-syscalls", "read syscalls on a file exceed --max-read-syscalls"},
    {"limit/reread-bytes", "bytes read again exceed --max-reread-bytes"},
    {"limit/write-syscalls-per-mib",
     "write syscalls per MiB written to a file exceed --max-write-syscalls-per-mib"},
    {"baseline/grew", "a file or call site costs more than in the baseline run"},
    {"baseline/new", "a file or call site new since the baseline run wastes kernel reads"},
};
#define NRULES (sizeof rules / sizeof rules[0])

static char *dup_or_null(const char *s)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        tool_bad_input("out of memory");
    return d;
}

static int same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_result(const struct annotation *y, const struct annotation *x)
{
    return strcmp(y->rule, x->rule) == 0 && same(y->path, x->path) &&
           same(y->identity, x->identity) && same(y->source, x->source) && y->line == x->line;
}

static size_t hash_str(size_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u; /* FNV-1a */
    return (h ^ 0xff) * 1099511628211u;
}

static size_t hash_result(const struct annotation *x)
{
    size_t h = 14695981039346656037u;
    h = hash_str(hash_str(hash_str(hash_str(h, x->rule), x->path), x->identity), x->source);
    return (h ^ (size_t)(unsigned)x->line) * 1099511628211u;
}

/* The index's slot for x: the one holding its equal, or an empty one. A
 * job's check meets thousands of results: a walk of all of them for each
 * (github output of 12,002 violations took 0.59 s). */
static size_t *slot_for(const struct annotations *as, size_t *index, size_t cap,
                        const struct annotation *x)
{
    size_t i = hash_result(x) & (cap - 1);
    while (index[i] && !same_result(&as->a[index[i] - 1], x))
        i = (i + 1) & (cap - 1);
    return &index[i];
}

static void grow_index(struct annotations *as)
{
    size_t cap = as->index_cap ? 2 * as->index_cap : 64;
    size_t *index = calloc(cap, sizeof *index);
    if (!index)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < as->n; i++)
        *slot_for(as, index, cap, &as->a[i]) = i + 1;
    free(as->index);
    as->index = index;
    as->index_cap = cap;
}

void annotations_add(struct annotations *as, const struct annotation *x)
{
    if (2 * (as->n + 1) > as->index_cap)
        grow_index(as);
    size_t *slot = slot_for(as, as->index, as->index_cap, x);
    if (*slot) {
        as->a[*slot - 1].processes++;
        return;
    }
    if (as->n == as->cap) {
        as->cap = as->cap ? 2 * as->cap : 16;
        as->a = reallocarray(as->a, as->cap, sizeof *as->a);
        if (!as->a)
            tool_bad_input("out of memory");
    }
    struct annotation *y = &as->a[as->n++];
    *y = *x;
    y->message = dup_or_null(x->message);
    y->path = dup_or_null(x->path);
    y->source = dup_or_null(x->source);
    y->identity = dup_or_null(x->identity);
    y->processes = 1;
    *slot = as->n;
}

void annotations_free(struct annotations *as)
{
    for (size_t i = 0; i < as->n; i++) {
        free(as->a[i].message);
        free(as->a[i].path);
        free(as->a[i].source);
        free(as->a[i].identity);
    }
    free(as->a);
    free(as->index);
    memset(as, 0, sizeof *as);
}

int annotations_format(const char *format)
{
    return strcmp(format, "sarif") == 0 || strcmp(format, "github") == 0 ||
           strcmp(format, "gitlab") == 0;
}

/* source relative to root when it lies under it, else NULL. */
static const char *under_root(const char *source, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (!source || strncmp(source, root, n) != 0 || source[n] != '/')
        return NULL;
    return source + n + 1;
}

/* The place a result is shown at: the source line when known (relative to
 * root when under it), else the file the I/O was on. */
static const char *place(const struct annotation *a, const char *root, int *relative)
{
    const char *rel = under_root(a->source, root);
    *relative = rel != NULL;
    return rel ? rel : a->source ? a->source : a->path;
}

/* ---- SARIF 2.1.0 ------------------------------------------------------------ */

/* A URI reference for a path: the unreserved characters and '/' as they are,
 * every other byte %XX (RFC 3986). */
static void uri(FILE *f, const char *path)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
}

static size_t rule_index(const char *id)
{
    for (size_t i = 0; i < NRULES; i++)
        if (strcmp(rules[i].id, id) == 0)
            return i;
    return SIZE_MAX;
}

static void sarif_result(const struct annotation *a, const char *root, FILE *f)
{
    size_t r = rule_index(a->rule);
    fputs("{\"ruleId\":", f);
    json_str(f, a->rule);
    if (r != SIZE_MAX)
        fprintf(f, ",\"ruleIndex\":%zu", r);
    fprintf(f, ",\"level\":\"%s\",\"message\":{\"text\":", a->error ? "error" : "warning");
    json_str(f, a->message);
    fputc('}', f);
    int relative;
    const char *where = place(a, root, &relative);
    if (where && (relative || where[0] == '/')) {
        fputs(",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"", f);
        if (!relative)
            fputs("file://", f);
        uri(f, where);
        fputc('"', f);
        if (relative)
            fputs(",\"uriBaseId\":\"SRCROOT\"", f);
        fputc('}', f);
        if (a->source && a->line > 0)
            fprintf(f, ",\"region\":{\"startLine\":%d}", a->line);
        fputs("}}]", f);
    }
    fputs(",\"properties\":{\"path\":", f);
    if (a->path)
        json_str(f, a->path);
    else
        fputs("null", f);
    fprintf(f,
            ",\"kernel_read_bytes\":%" PRIu64 ",\"read_syscalls\":%" PRIu64
            ",\"delivered_bytes\":%" PRIu64 ",\"reread_bytes\":%" PRIu64 ",\"processes\":%" PRIu64
            "}}",
            a->kernel_read_bytes, a->read_syscalls, a->delivered_bytes, a->reread_bytes,
            a->processes);
}

static void sarif(const struct annotations *as, const char *root, FILE *f)
{
    fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
          "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"seektrace\",\"version\":\"" SEEKTRACE_VERSION
          "\",\"rules\":[",
          f);
    for (size_t i = 0; i < NRULES; i++) {
        fprintf(f, "%s{\"id\":", i ? "," : "");
        json_str(f, rules[i].id);
        fputs(",\"shortDescription\":{\"text\":", f);
        json_str(f, rules[i].text);
        fputs("}}", f);
    }
    fputs("]}},\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":\"file://", f);
    uri(f, root);
    fputs(root[strlen(root) - 1] == '/' ? "\"}}" : "/\"}}", f);
    fputs(",\"results\":[", f);
    for (size_t i = 0; i < as->n; i++) {
        if (i)
            fputc(',', f);
        sarif_result(&as->a[i], root, f);
    }
    fputs("]}]}\n", f);
}

/* ---- GitHub Actions workflow commands ---------------------------------------- */

/* A command's value (property 1) or message (0), escaped as the runner
 * reads it back. */
static void gh_escape(FILE *f, const char *s, int property)
{
    for (; *s; s++) {
        switch (*s) {
        case '%': fputs("%25", f); break;
        case '\r': fputs("%0D", f); break;
        case '\n': fputs("%0A", f); break;
        case ':': fputs(property ? "%3A" : ":", f); break;
        case ',': fputs(property ? "%2C" : ",", f); break;
        default: fputc(*s, f);
        }
    }
}

static void github(const struct annotations *as, const char *root, FILE *f)
{
    for (size_t i = 0; i < as->n; i++) {
        const struct annotation *a = &as->a[i];
        int relative;
        const char *where = place(a, root, &relative);
        fprintf(f, "::%s ", a->error ? "error" : "warning");
        if (where) {
            fputs("file=", f);
            gh_escape(f, where, 1);
            if (a->source && a->line > 0)
                fprintf(f, ",line=%d", a->line);
            fputc(',', f);
        }
        fputs("title=", f);
        gh_escape(f, "seektrace ", 1);
        gh_escape(f, a->rule, 1);
        fputs("::", f);
        gh_escape(f, a->message, 0);
        fputc('\n', f);
    }
}

/* ---- GitLab Code Quality -------------------------------------------------------- */

/* A fingerprint that is the same in every run of the job: the rule, the
 * source line and the identity, or without one the file's name (a checkout
 * or scratch directory may move between runs). */
static uint64_t fingerprint(const struct annotation *a, const char *where)
{
    uint64_t h = 1469598103934665603ull;
    const char *name = a->path && strrchr(a->path, '/') ? strrchr(a->path, '/') + 1 : a->path;
    const char *parts[] = {a->rule, a->identity ? a->identity : name ? name : "",
                           a->source && where ? where : ""};
    for (size_t i = 0; i < 3; i++)
        for (const char *p = parts[i];; p++) {
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
            if (!*p)
                break;
        }
    return h ^ (uint64_t)a->line;
}

static void gitlab(const struct annotations *as, const char *root, FILE *f)
{
    fputc('[', f);
    for (size_t i = 0; i < as->n; i++) {
        const struct annotation *a = &as->a[i];
        int relative;
        const char *where = place(a, root, &relative);
        fprintf(f, "%s\n{\"description\":", i ? "," : "");
        json_str(f, a->message);
        fputs(",\"check_name\":", f);
        json_str(f, a->rule);
        fprintf(f, ",\"fingerprint\":\"%016" PRIx64 "\",\"severity\":\"%s\",\"location\":{\"path\":",
                fingerprint(a, where), a->error ? "major" : "minor");
        json_str(f, where ? where : "unknown");
        fprintf(f, ",\"lines\":{\"begin\":%d}}}", a->source && a->line > 0 ? a->line : 1);
    }
    fputs(as->n ? "\n]\n" : "]\n", f);
}

void annotations_write(const struct annotations *as, const char *format, const char *source_root,
                       FILE *f)
{
    char cwd[PATH_MAX];
    const char *root = source_root;
    if (!root)
        root = getcwd(cwd, sizeof cwd) ? cwd : "/";
    if (strcmp(format, "sarif") == 0)
        sarif(as, root, f);
    else if (strcmp(format, "github") == 0)
        github(as, root, f);
    else
        gitlab(as, root, f);
}
