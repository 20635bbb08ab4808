/* baseline.c — a job's figures under stable keys: building, saving and
 * reading a baseline (baseline.h). The comparison is baseline_diff.c's. */
#define _GNU_SOURCE 1
#include "baseline.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "name_text.h"

#define BASELINE_NAME(name, bytes, judged) #name,
#define BASELINE_BYTES(name, bytes, judged) bytes,
#define BASELINE_JUDGED(name, bytes, judged) judged,
const char *const baseline_metric_names[BM_COUNT] = {BASELINE_METRICS(BASELINE_NAME)};
const unsigned char baseline_metric_is_bytes[BM_COUNT] = {BASELINE_METRICS(BASELINE_BYTES)};
const unsigned char baseline_metric_judged[BM_COUNT] = {BASELINE_METRICS(BASELINE_JUDGED)};

/* A baseline file is read whole; a job's is a few MB at most. */
#define BASELINE_FILE_MAX (1u << 30)

struct baseline {
    struct baseline_keys keys; /* borrowed */
    struct baseline_entry *e;
    size_t n, cap;
    size_t *slot; /* open addressing: index + 1, 0 empty */
    size_t nslots;
};

static void *grow(void *p, size_t n, size_t size)
{
    void *q = reallocarray(p, n, size);
    if (!q)
        tool_bad_input("out of memory");
    return q;
}

static char *dup_or_die(const char *s)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        tool_bad_input("out of memory");
    return d;
}

/* ---- keys ------------------------------------------------------------------ */

void baseline_keys_free(struct baseline_keys *k)
{
    for (size_t i = 0; i < k->nprefixes; i++)
        free((char *)k->prefix_names[i]);
    free(k->prefix_names);
    free(k->prefix_dirs);
    free(k->globs);
    memset(k, 0, sizeof *k);
}

int baseline_keys_parse(struct baseline_keys *k, const char *cmd, int argc, char **argv, int *i)
{
    const char *v;
    if (opt_value(cmd, argc, argv, i, "--path-glob", &v)) {
        k->globs = grow(k->globs, k->nglobs + 1, sizeof *k->globs);
        k->globs[k->nglobs++] = v;
        return 1;
    }
    if (!opt_value(cmd, argc, argv, i, "--path-prefix", &v))
        return 0;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || eq[1] != '/')
        tool_usage_error(cmd, "--path-prefix takes NAME=/DIR, not '%s'", v);
    k->prefix_names = grow(k->prefix_names, k->nprefixes + 1, sizeof *k->prefix_names);
    k->prefix_dirs = grow(k->prefix_dirs, k->nprefixes + 1, sizeof *k->prefix_dirs);
    /* The name is kept with its '=' cut off in a copy of the argument. */
    char *name = dup_or_die(v);
    name[eq - v] = '\0';
    k->prefix_names[k->nprefixes] = name;
    k->prefix_dirs[k->nprefixes++] = eq + 1;
    return 1;
}

/* n decimal digits at s (0 if none). */
static size_t digits(const char *s)
{
    size_t n = 0;
    while (isdigit((unsigned char)s[n]))
        n++;
    return n;
}

/* Kernel names that hold a number which changes every run: "pipe:[4711]",
 * "socket:[99]", "/proc/1234/...", "/dev/pts/3". The number becomes '*'. */
static void drop_run_numbers(char *s)
{
    static const char *const before[] = {"pipe:[", "socket:[", "/proc/", "/dev/pts/"};
    for (size_t i = 0; i < sizeof before / sizeof *before; i++) {
        size_t len = strlen(before[i]);
        if (strncmp(s, before[i], len) != 0)
            continue;
        size_t n = digits(s + len);
        if (n) {
            s[len] = '*';
            memmove(s + len + 1, s + len + n, strlen(s + len + n) + 1);
        }
        return;
    }
}

/* "file " + the path as keys has it. */
static void file_key(const struct baseline_keys *k, const char *path, char *out, size_t size)
{
    for (size_t i = 0; i < k->nglobs; i++)
        if (fnmatch(k->globs[i], path, 0) == 0) {
            snprintf(out, size, "file %s", k->globs[i]);
            return;
        }
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < k->nprefixes; i++) {
        const char *dir = k->prefix_dirs[i];
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            len--;
        if (len > best_len && strncmp(path, dir, len) == 0 &&
            (path[len] == '/' || path[len] == '\0')) {
            best = i + 1;
            best_len = len;
        }
    }
    if (best)
        snprintf(out, size, "file {%s}%s", k->prefix_names[best - 1], path + best_len);
    else
        snprintf(out, size, "file %s", path);
    drop_run_numbers(out + strlen("file "));
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* "site MODULE FUNCTION SOURCE:LINE" from names a rebuild of the same code
 * keeps (no address, no directory); 0 when the site is unknown. */
static int site_key(const struct st_report_site *s, char *out, size_t size)
{
    if (!s->nframes)
        return 0;
    const struct st_report_frame *f = &s->frames[0];
    const char *module = f->module ? base_name(f->module) : "?";
    if (!f->function && !f->source)
        snprintf(out, size, "site %s +0x%" PRIx64, module, f->offset);
    else if (f->source)
        snprintf(out, size, "site %s %s %s:%d", module, f->function ? f->function : "?",
                 base_name(f->source), f->line);
    else
        snprintf(out, size, "site %s %s", module, f->function);
    return 1;
}

/* ---- the set ------------------------------------------------------------- */

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static size_t *slot_of(const struct baseline *b, const char *key)
{
    size_t mask = b->nslots - 1;
    for (size_t i = (size_t)hash(key) & mask;; i = (i + 1) & mask)
        if (!b->slot[i] || strcmp(b->e[b->slot[i] - 1].key, key) == 0)
            return &b->slot[i];
}

static void rehash(struct baseline *b)
{
    free(b->slot);
    b->nslots = b->nslots ? b->nslots * 2 : 256;
    b->slot = calloc(b->nslots, sizeof *b->slot);
    if (!b->slot)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < b->n; i++)
        *slot_of(b, b->e[i].key) = i + 1;
}

/* The entry with key, made empty if there was none. */
static struct baseline_entry *entry(struct baseline *b, const char *key)
{
    if (2 * (b->n + 1) > b->nslots)
        rehash(b);
    size_t *slot = slot_of(b, key);
    if (*slot)
        return &b->e[*slot - 1];
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->e = grow(b->e, b->cap, sizeof *b->e);
    }
    struct baseline_entry *e = &b->e[b->n++];
    memset(e, 0, sizeof *e);
    e->key = dup_or_die(key);
    *slot = b->n;
    return e;
}

struct baseline *baseline_new(const struct baseline_keys *keys)
{
    struct baseline *b = calloc(1, sizeof *b);
    if (!b)
        tool_bad_input("out of memory");
    b->keys = *keys;
    rehash(b);
    return b;
}

void baseline_free(struct baseline *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        free(b->e[i].key);
        free(b->e[i].where);
        free(b->e[i].source);
    }
    free(b->e);
    free(b->slot);
    free(b);
}

int baseline_entry_empty(const struct baseline_entry *e)
{
    for (int m = 0; m < BM_COUNT; m++)
        if (e->v[m])
            return 0;
    return 1;
}

size_t baseline_size(const struct baseline *b)
{
    return b->n;
}

const struct baseline_entry *baseline_entry(const struct baseline *b, size_t i)
{
    return &b->e[i];
}

const struct baseline_entry *baseline_find(const struct baseline *b, const char *key)
{
    size_t slot = *slot_of(b, key);
    return slot ? &b->e[slot - 1] : NULL;
}

static int by_key(const void *x, const void *y)
{
    return strcmp(((const struct baseline_entry *)x)->key, ((const struct baseline_entry *)y)->key);
}

void baseline_sort(struct baseline *b)
{
    qsort(b->e, b->n, sizeof *b->e, by_key);
    memset(b->slot, 0, b->nslots * sizeof *b->slot);
    for (size_t i = 0; i < b->n; i++)
        *slot_of(b, b->e[i].key) = i + 1;
}

static void add_counts(struct baseline_entry *e, const struct st_counts *c)
{
#define BASELINE_ADD(name, bytes, judged) e->v[BM_##name] += c->name;
    BASELINE_METRICS(BASELINE_ADD)
#undef BASELINE_ADD
}

/* e happens at frame f. */
static void locate(struct baseline_entry *e, const struct st_report_frame *f)
{
    char desc[512];
    free(e->where);
    free(e->source);
    e->where = dup_or_die(st_frame_describe(f, desc, sizeof desc));
    e->source = dup_or_die(f->source);
    e->line = f->line;
}

/* A file happens where it cost the most: its costliest site so far (the
 * findings' price, wasted bytes plus 4 KiB a syscall). */
static void locate_file(struct baseline_entry *e, const struct st_report_file *f)
{
    for (size_t k = 0; k < f->nsites; k++) {
        const struct st_report_site *s = &f->sites[k];
        const struct st_counts *c = &s->counts;
        uint64_t cost = st_counts_wasted_bytes(c) + c->reread_bytes +
                        4096 * (c->read_syscalls + c->lseek_syscalls + c->write_syscalls);
        if (s->nframes && (!e->where || cost > e->where_cost)) {
            locate(e, &s->frames[0]);
            e->where_cost = cost;
        }
    }
}

void baseline_add(struct baseline *b, const struct process *p)
{
    char key[4200];
    for (size_t i = 0; i < p->report.nfiles; i++) {
        const struct st_report_file *f = &p->report.files[i];
        file_key(&b->keys, f->path, key, sizeof key);
        struct baseline_entry *fe = entry(b, key);
        add_counts(fe, &f->counts);
        locate_file(fe, f);
        for (size_t k = 0; k < f->nsites; k++) {
            const struct st_report_site *s = &f->sites[k];
            if (!site_key(s, key, sizeof key))
                continue;
            struct baseline_entry *e = entry(b, key);
            if (!e->where)
                locate(e, &s->frames[0]);
            add_counts(e, &s->counts);
        }
    }
}

/* ---- saving and reading ---------------------------------------------------- */

void baseline_entry_json_name(const struct baseline_entry *e, FILE *f)
{
    fputs("\"key\":", f);
    json_str(f, e->key);
    if (e->where) {
        fputs(",\"where\":", f);
        json_str(f, e->where);
    }
    if (e->source) {
        fputs(",\"source\":", f);
        json_str(f, e->source);
        fprintf(f, ",\"line\":%d", e->line);
    }
}

void baseline_write(struct baseline *b, FILE *f)
{
    baseline_sort(b);
    fprintf(f, "{\"schema\":\"" BASELINE_SCHEMA "\",\n\"entries\":[");
    const char *sep = "\n";
    for (size_t i = 0; i < b->n; i++) {
        const struct baseline_entry *e = &b->e[i];
        if (baseline_entry_empty(e))
            continue;
        fputs(sep, f);
        sep = ",\n";
        fputc('{', f);
        baseline_entry_json_name(e, f);
        for (int m = 0; m < BM_COUNT; m++)
            fprintf(f, ",\"%s\":%" PRIu64, baseline_metric_names[m], e->v[m]);
        fputc('}', f);
    }
    fprintf(f, "\n]}\n");
}

/* A string member, decoded back to the bytes it names (name_text.h). */
static char *j_name(const struct jval *o, const char *key)
{
    const struct jval *v = json_get(o, key);
    if (!v || v->type != J_STRING)
        return NULL;
    char *s = dup_or_die(v->str);
    s[st_name_decode(s, strlen(s))] = '\0';
    return s;
}

static const char *read_entries(struct baseline *b, const struct jval *entries)
{
    if (!entries || entries->type != J_ARRAY)
        return "no \"entries\" array";
    for (size_t i = 0; i < entries->n; i++) {
        const struct jval *o = &entries->items[i];
        char *key = o->type == J_OBJECT ? j_name(o, "key") : NULL;
        if (!key)
            return "an entry without a \"key\"";
        struct baseline_entry *e = entry(b, key);
        free(key);
        if (!e->where) {
            e->where = j_name(o, "where");
            e->source = j_name(o, "source");
            const struct jval *line = json_get(o, "line");
            e->line = line && line->is_u64 && line->u64 < 1u << 30 ? (int)line->u64 : 0;
        }
        for (int m = 0; m < BM_COUNT; m++) {
            const struct jval *v = json_get(o, baseline_metric_names[m]);
            if (!v || !v->is_u64)
                return "an entry without a count";
            e->v[m] += v->u64;
        }
    }
    return NULL;
}

/* The whole of a file that starts with '{', or NULL (err says why). */
static char *slurp(FILE *f, const char *path, size_t *len, char err[ST_TRACE_ERROR_MAX])
{
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            if (cap >= BASELINE_FILE_MAX) {
                snprintf(err, ST_TRACE_ERROR_MAX, "%s: a baseline larger than 1 GiB", path);
                free(text);
                return NULL;
            }
            cap = cap ? 2 * cap : 1 << 16;
            text = grow(text, cap, 1);
        }
        size_t got = fread(text + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: cannot read: %s", path, strerror(errno));
        free(text);
        return NULL;
    }
    return text;
}

/* Reads the saved baseline at path into b: 1 read, -1 a saved baseline that
 * cannot be read (err says why), 0 not a saved baseline (traces, reports). */
static int read_saved(const char *path, struct baseline *b, char err[ST_TRACE_ERROR_MAX])
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int c;
    while ((c = getc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
        continue;
    if (c != '{') {
        fclose(f);
        return 0;
    }
    rewind(f);
    size_t len;
    char *text = slurp(f, path, &len, err);
    fclose(f);
    if (!text)
        return -1;
    struct jdoc *doc = NULL;
    size_t pos = 0;
    char jerr[200];
    struct jval *v = json_parse(&doc, text, len, &pos, jerr, sizeof jerr);
    int rc = 0;
    const struct jval *schema = v ? json_get(v, "schema") : NULL;
    if (!v) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: not JSON at byte %zu: %s", path, pos, jerr);
        rc = -1;
    } else if (schema && schema->type == J_STRING &&
               strncmp(schema->str, "seektrace.baseline/", 19) == 0) {
        const char *why = strcmp(schema->str, BASELINE_SCHEMA) != 0
                              ? "a baseline of another version (this is " BASELINE_SCHEMA ")"
                              : read_entries(b, json_get(v, "entries"));
        if (why) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: %s", path, why);
            rc = -1;
        } else {
            rc = 1;
        }
    }
    json_free(doc);
    free(text);
    return rc;
}

static int on_process(struct process *p, void *ctx)
{
    baseline_add(ctx, p);
    return 0;
}

struct baseline *baseline_open(const char *path, const struct baseline_keys *keys,
                               char err[ST_TRACE_ERROR_MAX])
{
    struct baseline *b = baseline_new(keys);
    int saved = read_saved(path, b, err);
    if (saved == 1)
        return b;
    if (saved < 0) {
        baseline_free(b);
        return NULL;
    }
    /* Traces and reports: a file, or a directory's traces. */
    char *one[] = {(char *)path};
    struct inputs in;
    inputs_collect(one, 1, &in);
    struct load_opts lo = {.want_sites = 1};
    for (size_t i = 0; i < in.n; i++)
        if (load_file(in.paths[i], &lo, on_process, b, err) != 0) {
            baseline_free(b);
            b = NULL;
            break;
        }
    inputs_free(&in);
    return b;
}
