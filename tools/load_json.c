/* load_json.c — see load_json.h: the reports the library writes at exit
 * (seektrace.report/1 and /2, docs/report-json.md), and the command's merged
 * documents that hold them (seektrace.merged/1 and /2), read back as struct
 * st_report. */
#define _GNU_SOURCE 1
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "labels.h"
#include "load_json.h"
#include "name_text.h"

static const struct {
    const char *name;
    size_t off;
} json_counts[] = {
#define COUNT_FIELD(name, id) {#name, offsetof(struct st_counts, name)},
#include "counts_fields.def"
#undef COUNT_FIELD
};

static int j_u64(const struct jval *v, uint64_t *out)
{
    if (!v || v->type != J_NUMBER || !v->is_u64)
        return -1;
    *out = v->u64;
    return 0;
}

static int j_counts(const struct jval *o, struct st_counts *c, const char **why)
{
    for (size_t i = 0; i < sizeof json_counts / sizeof json_counts[0]; i++) {
        const struct jval *v = json_get(o, json_counts[i].name);
        if (!v)
            continue; /* older reports lack newer counters */
        if (j_u64(v, (uint64_t *)((char *)c + json_counts[i].off)) != 0) {
            *why = json_counts[i].name;
            return -1;
        }
    }
    const struct jval *by = json_get(o, "by_call");
    for (size_t i = 0; by && by->type == J_OBJECT && i < by->n; i++) {
        int k = ST_CALL_OTHER;
        for (int c2 = 0; c2 < ST_CALL_COUNT; c2++)
            if (strcmp(by->keys[i], st_call_name((enum st_call)c2)) == 0)
                k = c2;
        static const struct {
            const char *name;
            size_t off;
        } sub[] = {
#define CALL_COST_FIELD(name, id) {#name, offsetof(struct st_call_cost, name)},
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
        };
        for (size_t s = 0; s < sizeof sub / sizeof sub[0]; s++) {
            uint64_t v;
            const struct jval *jv = json_get(&by->items[i], sub[s].name);
            if (jv && j_u64(jv, &v) != 0) {
                *why = "by_call";
                return -1;
            }
            if (jv) /* older reports lack newer counters */
                *(uint64_t *)((char *)&c->by_call[k] + sub[s].off) += v;
        }
    }
    return 0;
}

static const char *j_string(const struct jval *v)
{
    return v && v->type == J_STRING ? v->str : NULL;
}

static int j_frame(const struct jval *o, struct st_report_frame *f)
{
    f->function = j_string(json_get(o, "function"));
    f->source = j_string(json_get(o, "source"));
    f->module = j_string(json_get(o, "module"));
    const struct jval *line = json_get(o, "line");
    f->line = line && line->type == J_NUMBER ? (int)line->number : 0;
    uint64_t off = 0;
    j_u64(json_get(o, "offset"), &off);
    f->offset = off;
    return 0;
}

/* Every string value under v back to the bytes it names (name_text.h).
 * Recursion: no deeper than json.c parses (MAX_DEPTH). */
static void decode_names(struct jval *v) // NOLINT(misc-no-recursion)
{
    if (v->type == J_STRING) {
        v->len = st_name_decode(v->str, v->len);
        v->str[v->len] = '\0';
    }
    for (size_t i = 0; (v->type == J_ARRAY || v->type == J_OBJECT) && i < v->n; i++)
        decode_names(&v->items[i]);
}

/* A seektrace.report/2 object (or /1, whose strings json.c already turned
 * back into bytes: it wrote a byte that is not UTF-8 as \udcXX) as a report;
 * memory from the JSON arena (alloc). Returns NULL or a reason. */
static const char *json_report(struct jval *v, struct st_report *r)
{
    memset(r, 0, sizeof *r);
    const char *schema = j_string(json_get(v, "schema"));
    if (!schema)
        return "not a seektrace report (no \"schema\")";
    if (strcmp(schema, "seektrace.report/2") == 0)
        decode_names(v);
    else if (strcmp(schema, "seektrace.report/1") != 0)
        return strncmp(schema, "seektrace.report/", 17) == 0 ||
                       strncmp(schema, "seektrace.merged/", 17) == 0
                   ? "a newer report schema than this seektrace reads (seektrace.report/2, "
                     "seektrace.merged/2)"
                   : "not a seektrace report (seektrace.report/1 or /2, seektrace.merged/1 "
                     "or /2)";
    const struct jval *files = json_get(v, "files");
    if (!files || files->type != J_ARRAY)
        return "no \"files\" array";
    r->capture = j_string(json_get(v, "capture"));
    if (!r->capture)
        r->capture = "exact";
    r->capture_reason = j_string(json_get(v, "capture_reason"));
    r->libc_version = j_string(json_get(v, "libc_version"));
    const struct jval *pid = json_get(v, "pid"), *ppid = json_get(v, "ppid");
    r->pid = pid && pid->type == J_NUMBER ? (long)pid->number : 0;
    r->ppid = ppid && ppid->type == J_NUMBER ? (long)ppid->number : 0;
    const struct jval *argv = json_get(v, "argv");
    if (argv && argv->type == J_ARRAY) {
        const char **a = calloc(argv->n + 1, sizeof *a);
        if (!a)
            return "out of memory";
        for (size_t i = 0; i < argv->n; i++)
            a[i] = j_string(&argv->items[i]) ? j_string(&argv->items[i]) : "";
        r->argv = a;
        r->argc = (int)argv->n;
    }
    r->files = calloc(files->n ? files->n : 1, sizeof *r->files);
    if (!r->files)
        return "out of memory";
    const char *why = NULL;
    for (size_t i = 0; i < files->n; i++) {
        const struct jval *f = &files->items[i];
        struct st_report_file *rf = &r->files[r->nfiles];
        rf->path = j_string(json_get(f, "path"));
        if (!rf->path || j_counts(f, &rf->counts, &why) != 0)
            return why ? "a file's counter is not a non-negative integer" : "a file without \"path\"";
        const struct jval *streams = json_get(f, "streams");
        if (streams && streams->type == J_ARRAY && streams->n) {
            rf->streams = calloc(streams->n, sizeof *rf->streams);
            if (!rf->streams)
                return "out of memory";
            for (size_t k = 0; k < streams->n; k++) {
                const struct jval *s = &streams->items[k];
                struct st_report_stream *rs = &rf->streams[rf->nstreams++];
                const struct jval *fd = json_get(s, "fd");
                rs->fd = fd && fd->type == J_NUMBER ? (int)fd->number : -1;
                j_u64(json_get(s, "buffer_size"), &rs->buffer_size);
                j_u64(json_get(s, "requested_buffer_size"), &rs->requested_buffer_size);
                const char *mode = j_string(json_get(s, "buffer_mode"));
                rs->mode = !mode ? ST_BUF_UNKNOWN : !strcmp(mode, "full") ? ST_BUF_FULL
                         : !strcmp(mode, "line") ? ST_BUF_LINE : !strcmp(mode, "none") ? ST_BUF_NONE
                         : ST_BUF_UNKNOWN;
                const char *origin = j_string(json_get(s, "buffer_origin"));
                rs->origin = origin && !strcmp(origin, "user") ? ST_BUF_USER
                           : origin && !strcmp(origin, "setvbuf-size-ignored") ? ST_BUF_SIZE_IGNORED
                           : ST_BUF_DEFAULT;
                rs->caveat = j_string(json_get(s, "caveat"));
                if (j_counts(s, &rs->counts, &why) != 0)
                    return "a stream's counter is not a non-negative integer";
            }
        }
        const struct jval *sites = json_get(f, "sites");
        if (sites && sites->type == J_ARRAY && sites->n) {
            rf->sites = calloc(sites->n, sizeof *rf->sites);
            if (!rf->sites)
                return "out of memory";
            for (size_t k = 0; k < sites->n; k++) {
                const struct jval *s = &sites->items[k];
                struct st_report_site *rs = &rf->sites[rf->nsites++];
                const struct jval *frames = json_get(s, "frames");
                if (frames && frames->type == J_ARRAY && frames->n) {
                    struct st_report_frame *fr = calloc(frames->n, sizeof *fr);
                    if (!fr)
                        return "out of memory";
                    for (size_t q = 0; q < frames->n; q++)
                        j_frame(&frames->items[q], &fr[q]);
                    rs->frames = fr;
                    rs->nframes = (int)frames->n;
                }
                if (j_counts(s, &rs->counts, &why) != 0)
                    return "a site's counter is not a non-negative integer";
            }
        }
        r->nfiles++;
    }
    for (size_t i = 0; i < r->nfiles; i++)
        st_counts_add(&r->totals, &r->files[i].counts);
    return NULL;
}

static void free_json_report(struct st_report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].streams);
        for (size_t k = 0; k < r->files[i].nsites; k++)
            free((void *)r->files[i].sites[k].frames);
        free(r->files[i].sites);
    }
    free(r->files);
    free((void *)r->argv);
}

/* One report object: fn called with it as a process. Returns 0, fn's
 * result, or -1 with err. */
static int one_report(const char *path, struct jval *v, size_t at, process_fn fn, void *ctx,
                      char *err)
{
    struct process p;
    memset(&p, 0, sizeof p);
    p.kind = SOURCE_JSON;
    p.status = "report";
    const char *bad = v->type == J_OBJECT ? json_report(v, &p.report) : "not a JSON object";
    if (bad) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: %s (the value at byte %zu)", path, bad, at);
        free_json_report(&p.report);
        return -1;
    }
    /* A merged document says when a process's trace was not complete. */
    const char *status = j_string(json_get(json_get(v, "trace"), "status"));
    if (status && (!strcmp(status, "partial") || !strcmp(status, "truncated")))
        p.status = !strcmp(status, "partial") ? "partial" : "truncated";
    /* Where and when it ran, as report --json wrote it from its trace. */
    const struct jval *start = json_get(v, "start_time_ns"), *dur = json_get(v, "duration_ns");
    const struct jval *labels = json_get(v, "labels");
    char *kv[ST_LABELS_MAX] = {NULL};
    if (start && start->is_u64 && dur && dur->is_u64) {
        p.start_realtime_ns = start->u64;
        p.duration_ns = dur->u64;
        p.host = j_string(json_get(v, "host"));
        for (size_t i = 0; labels && labels->type == J_OBJECT && i < labels->n &&
                           p.nlabels < ST_LABELS_MAX; i++) {
            const char *val = j_string(&labels->items[i]);
            if (val && asprintf(&kv[p.nlabels], "%s=%s", labels->keys[i], val) >= 0)
                p.nlabels++;
        }
        p.labels = kv;
    }
    p.source = strdup(path);
    int rc = p.source ? fn(&p, ctx) : -1;
    if (!p.source)
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: out of memory", path);
    for (int i = 0; i < p.nlabels; i++)
        free(kv[i]);
    free_json_report(&p.report);
    free(p.source);
    return rc;
}

/* A seektrace.merged/1|2 document (report --json over several processes,
 * run --json): each of its processes, as the reports they are; "merged"
 * is their sum and is not read again. */
static int merged_reports(const char *path, struct jval *v, size_t at, process_fn fn, void *ctx,
                          char *err)
{
    const struct jval *procs = json_get(v, "processes");
    if (!procs || procs->type != J_ARRAY) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: a merged report without a \"processes\" array "
                 "(the value at byte %zu)", path, at);
        return -1;
    }
    for (size_t i = 0; i < procs->n; i++) {
        int rc = one_report(path, &procs->items[i], at, fn, ctx, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The other documents the command writes, which hold no process's report. */
static const char *not_a_report(const char *schema)
{
    static const char *const others[] = {"seektrace.sites/", "seektrace.check/",
                                         "seektrace.whatif/", "seektrace.sweep/",
                                         "seektrace.calibration/"};
    for (size_t i = 0; schema && i < sizeof others / sizeof others[0]; i++)
        if (strncmp(schema, others[i], strlen(others[i])) == 0)
            return "holds no process's report (seektrace report --json, run --json and the "
                   "library's SEEKTRACE_FORMAT=json write them)";
    return NULL;
}

int load_json(const char *path, const char *text, size_t len, process_fn fn, void *ctx,
                     char *err)
{
    size_t pos = 0;
    int count = 0;
    while (pos < len) {
        /* JSON lines, or reports one after another: skip blank space and
         * any line that is not JSON (a text report in the same stream). */
        while (pos < len && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\t' ||
                             text[pos] == '\r'))
            pos++;
        if (pos >= len)
            break;
        struct jdoc *doc = NULL;
        char why[256];
        size_t at = pos;
        struct jval *v = json_parse(&doc, text, len, &pos, why, sizeof why);
        if (!v) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: not a JSON report: %s at byte %zu", path, why,
                     pos);
            json_free(doc);
            return -1;
        }
        const char *schema = v->type == J_OBJECT ? j_string(json_get(v, "schema")) : NULL;
        int rc;
        if (schema && (!strcmp(schema, "seektrace.merged/1") ||
                       !strcmp(schema, "seektrace.merged/2"))) {
            rc = merged_reports(path, v, at, fn, ctx, err);
        } else if (not_a_report(schema)) {
            snprintf(err, ST_TRACE_ERROR_MAX, "%s: a %s document %s", path, schema,
                     not_a_report(schema));
            rc = -1;
        } else {
            rc = one_report(path, v, at, fn, ctx, err);
        }
        json_free(doc);
        if (rc != 0)
            return rc;
        count++;
    }
    if (!count) {
        snprintf(err, ST_TRACE_ERROR_MAX, "%s: empty: neither a trace nor a JSON report", path);
        return -1;
    }
    return 0;
}
