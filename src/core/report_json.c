/* report_json.c — the report as schema seektrace.report/2 (docs/report-json.md). */
#include "findings.h"
#include "hints.h"
#include "json_out.h"
#include "report_model.h"

#define MAX_FINDINGS ST_REPORT_JSON_FINDINGS

static void counts(struct st_json *j, const struct st_counts *c)
{
    static const struct { const char *key; size_t off; } fields[] = {
#define COUNT_FIELD(name, id) {#name, offsetof(struct st_counts, name)},
#include "counts_fields.def"
#undef COUNT_FIELD
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        st_json_key(j, fields[i].key);
        st_json_u64(j, *(const uint64_t *)((const char *)c + fields[i].off));
    }
    st_json_key(j, "amplification");
    if (c->delivered_bytes)
        st_json_double(j, st_counts_amplification(c));
    else
        st_json_null(j);

    st_json_key(j, "write_amplification");
    if (c->written_bytes)
        st_json_double(j, st_counts_write_amplification(c));
    else
        st_json_null(j);

    st_json_key(j, "calls");
    st_json_begin_object(j);
    for (int k = 0; k < ST_CALL_COUNT; k++) {
        if (!c->by_call[k].calls)
            continue;
        st_json_key(j, st_call_name((enum st_call)k));
        st_json_u64(j, c->by_call[k].calls);
    }
    st_json_end_object(j);

    st_json_key(j, "by_call");
    st_json_begin_object(j);
    for (int k = 0; k < ST_CALL_COUNT; k++) {
        const struct st_call_cost *cc = &c->by_call[k];
        uint64_t any = 0;
#define CALL_COST_FIELD(name, id) any |= cc->name;
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
        if (!any)
            continue;
        st_json_key(j, st_call_name((enum st_call)k));
        st_json_begin_object(j);
#define CALL_COST_FIELD(name, id)                                                    \
    st_json_key(j, #name);                                                           \
    st_json_u64(j, cc->name);
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
        st_json_end_object(j);
    }
    st_json_end_object(j);
}

/* The device's figures, or null and why they are not a measurement. */
static void storage(struct st_json *j, const struct st_report_storage *s)
{
    st_json_key(j, "device_read_bytes");
    if (s->measured)
        st_json_u64(j, s->device_read_bytes);
    else
        st_json_null(j);
    st_json_key(j, "device_write_bytes");
    if (s->measured)
        st_json_u64(j, s->device_write_bytes);
    else
        st_json_null(j);
    if (!s->measured) {
        st_json_key(j, "device_unmeasured");
        st_json_string(j, s->why_not ? s->why_not : "not measured");
    }
}

static void stream(struct st_json *j, const struct st_report_stream *s)
{
    st_json_begin_object(j);
    st_json_key(j, "fd");
    st_json_i64(j, s->fd);
    st_json_key(j, "buffer_size");
    st_json_u64(j, s->buffer_size);
    st_json_key(j, "buffer_mode");
    st_json_string(j, st_buf_mode_name(s->mode));
    st_json_key(j, "buffer_origin");
    st_json_string(j, st_buf_origin_name(s->origin));
    st_json_key(j, "requested_buffer_size");
    st_json_u64(j, s->requested_buffer_size);
    if (s->caveat) {
        st_json_key(j, "caveat");
        st_json_string(j, s->caveat);
    }
    if (s->folded > 1) { /* merged reports only (report-json.md) */
        st_json_key(j, "folded");
        st_json_u64(j, s->folded);
    }
    counts(j, &s->counts);
    st_json_end_object(j);
}

static void frame(struct st_json *j, const struct st_report_frame *f)
{
    st_json_key(j, "function");
    if (f->function)
        st_json_string(j, f->function);
    else
        st_json_null(j);
    st_json_key(j, "source");
    if (f->source)
        st_json_string(j, f->source);
    else
        st_json_null(j);
    st_json_key(j, "line");
    st_json_i64(j, f->line);
    st_json_key(j, "module");
    st_json_string(j, f->module ? f->module : "");
    st_json_key(j, "offset");
    st_json_u64(j, f->offset);
}

/* A site: its own frame's fields at the top, callers under "frames". */
static void site(struct st_json *j, const struct st_report_site *s, const char *path)
{
    static const struct st_report_frame unknown;
    st_json_begin_object(j);
    if (path) {
        st_json_key(j, "path");
        st_json_string(j, path);
    }
    frame(j, s->nframes ? &s->frames[0] : &unknown);
    st_json_key(j, "frames");
    st_json_begin_array(j);
    for (int k = 0; k < s->nframes; k++) {
        st_json_begin_object(j);
        frame(j, &s->frames[k]);
        st_json_end_object(j);
    }
    st_json_end_array(j);
    counts(j, &s->counts);
    st_json_end_object(j);
}

static void findings(struct st_json *j, const struct st_report *r)
{
    struct st_finding f[MAX_FINDINGS];
    size_t n = st_find_problems(r, f, MAX_FINDINGS);
    st_json_key(j, "findings");
    st_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        st_json_begin_object(j);
        st_json_key(j, "rule");
        st_json_string(j, f[i].rule);
        st_json_key(j, "path");
        st_json_string(j, f[i].file->path);
        st_json_key(j, "cost");
        st_json_u64(j, f[i].cost);
        st_json_key(j, "what");
        st_json_string(j, f[i].what);
        st_json_key(j, "change");
        st_json_string(j, f[i].change);
        st_json_key(j, "site");
        if (f[i].site) {
            st_json_begin_object(j);
            frame(j, &f[i].site->frames[0]);
            st_json_end_object(j);
        } else {
            st_json_null(j);
        }
        st_json_end_object(j);
    }
    st_json_end_array(j);
}

/* What the figures cannot show (hints.h): always present, often empty. */
static void hints(struct st_json *j, const struct st_report *r)
{
    struct st_hint h[4];
    size_t n = st_find_hints(r, h, sizeof h / sizeof h[0]);
    st_json_key(j, "hints");
    st_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        st_json_begin_object(j);
        st_json_key(j, "rule");
        st_json_string(j, h[i].rule);
        st_json_key(j, "path");
        st_json_string(j, h[i].file->path);
        st_json_key(j, "text");
        st_json_string(j, h[i].text);
        st_json_end_object(j);
    }
    st_json_end_array(j);
}

/* The report object, all but its closing brace. */
static void write_open(const struct st_report *r, struct st_outbuf *o)
{
    struct st_json j;
    st_json_init(&j, o);
    st_json_begin_object(&j);
    st_json_key(&j, "schema");
    st_json_string(&j, "seektrace.report/2");
    st_json_key(&j, "capture");
    st_json_string(&j, r->capture);
    if (r->capture_reason) {
        st_json_key(&j, "capture_reason");
        st_json_string(&j, r->capture_reason);
    }
    if (r->libc_version) {
        st_json_key(&j, "libc_version");
        st_json_string(&j, r->libc_version);
    }
    st_json_key(&j, "pid");
    st_json_i64(&j, r->pid);
    st_json_key(&j, "ppid");
    st_json_i64(&j, r->ppid);
    st_json_key(&j, "argv");
    st_json_begin_array(&j);
    for (int i = 0; i < r->argc; i++)
        st_json_string(&j, r->argv[i]);
    st_json_end_array(&j);
    st_json_key(&j, "totals");
    st_json_begin_object(&j);
    counts(&j, &r->totals);
    storage(&j, &r->storage);
    st_json_end_object(&j);
    st_json_key(&j, "files");
    st_json_begin_array(&j);
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct st_report_file *f = &r->files[i];
        st_json_begin_object(&j);
        st_json_key(&j, "path");
        st_json_string(&j, f->path);
        if (f->processes > 1) { /* merged reports only (report-json.md) */
            st_json_key(&j, "processes");
            st_json_u64(&j, f->processes);
        }
        counts(&j, &f->counts);
        if (r->storage.per_file) {
            st_json_key(&j, "device_read_bytes");
            if (f->device_measured)
                st_json_u64(&j, f->device_read_bytes);
            else
                st_json_null(&j);
        }
        st_json_key(&j, "streams");
        st_json_begin_array(&j);
        for (size_t k = 0; k < f->nstreams; k++)
            stream(&j, &f->streams[k]);
        st_json_end_array(&j);
        st_json_key(&j, "sites");
        st_json_begin_array(&j);
        for (size_t k = 0; k < f->nsites; k++)
            site(&j, &f->sites[k], NULL);
        st_json_end_array(&j);
        st_json_end_object(&j);
    }
    st_json_end_array(&j);
    /* The files without a row (report-json.md, "Rows kept"): said only
     * when there are some, so that a report that lists every file reads
     * as it always has. */
    if (r->nfiles_other) {
        st_json_key(&j, "other_files");
        st_json_begin_object(&j);
        st_json_key(&j, "files");
        st_json_u64(&j, r->nfiles_other);
        counts(&j, &r->other);
        st_json_end_object(&j);
    }
    /* Every (file, site) pair of the files listed, each file's worst first. */
    st_json_key(&j, "sites");
    st_json_begin_array(&j);
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->files[i].nsites; k++)
            site(&j, &r->files[i].sites[k], r->files[i].path);
    st_json_end_array(&j);
    findings(&j, r);
    hints(&j, r);
}

void st_report_write_json(const struct st_report *r, struct st_outbuf *o)
{
    write_open(r, o);
    st_out_str(o, "}\n");
}

void st_report_write_json_open(const struct st_report *r, struct st_outbuf *o)
{
    write_open(r, o);
}
