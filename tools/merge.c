/* merge.c — several processes' accounts as one report (tool.h).
 *
 * Files are summed by path; their streams are folded where alike (one row
 * per fd, buffer and caveat, counting the streams it stands for); sites
 * are summed by (module, offset) of the site's own frame, so the same line
 * of the same program counts once whichever process ran it. Memory grows
 * with distinct files and sites, not with the number of processes, and
 * their counts are kept packed (counts_packed.h) until the report is
 * built; then, as a single trace's report, only the files the report
 * prints get a full row (merged_report with st_footer_rows). */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_packed.h"
#include "findings.h"
#include "report_select.h"
#include "tool.h"

struct msite {
    char *key;
    struct st_report_frame *frames;
    int nframes;
    struct counts_packed counts;
};

/* A stream row: what st_report_stream holds but its counts, packed. */
struct mstream {
    int fd;
    uint64_t buffer_size, requested_buffer_size;
    enum st_buf_mode mode;
    enum st_buf_origin origin;
    char *caveat;
    uint64_t folded;
    struct counts_packed counts;
};

struct mfile {
    char *path;
    struct counts_packed counts;
    uint64_t processes, processes_with_findings;
    struct mstream *streams;
    size_t nstreams, capstreams;
    struct msite *sites;
    size_t nsites, capsites;
    uint64_t device_read_bytes, device_processes; /* SEEKTRACE_STORAGE=file rows */
};

struct merged {
    struct mfile *files;
    size_t n, cap;
    size_t *index; /* open addressing on path: file index + 1 */
    size_t index_cap;
    int inferred;
    const char *reason;
    char libc[128]; /* the C library versions seen, "2.36" or "2.36,2.41" */
    struct st_report_storage storage;
    char *storage_why; /* the first unmeasured process's reason */
    char storage_text[640];
    /* the built report */
    struct st_report_file *out_files;
    size_t nout;
};

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

struct merged *merged_new(void)
{
    return calloc(1, sizeof(struct merged));
}

static char *xstrdup(const char *s)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        tool_bad_input("out of memory");
    return d;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        tool_bad_input("out of memory");
    return q;
}

static void rehash(struct merged *m)
{
    size_t cap = m->index_cap ? m->index_cap * 2 : 1024;
    size_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        tool_bad_input("out of memory");
    for (size_t i = 0; i < m->n; i++) {
        size_t j = hash_str(m->files[i].path) & (cap - 1);
        while (idx[j])
            j = (j + 1) & (cap - 1);
        idx[j] = i + 1;
    }
    free(m->index);
    m->index = idx;
    m->index_cap = cap;
}

static struct mfile *file_of(struct merged *m, const char *path)
{
    if ((m->n + 1) * 2 > m->index_cap)
        rehash(m);
    size_t j = hash_str(path) & (m->index_cap - 1);
    while (m->index[j]) {
        if (strcmp(m->files[m->index[j] - 1].path, path) == 0)
            return &m->files[m->index[j] - 1];
        j = (j + 1) & (m->index_cap - 1);
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->files = xrealloc(m->files, m->cap * sizeof *m->files);
    }
    struct mfile *f = &m->files[m->n++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    m->index[j] = m->n;
    return f;
}

static void site_key(const struct st_report_site *s, char *buf, size_t size)
{
    if (!s->nframes) {
        snprintf(buf, size, "?");
        return;
    }
    const struct st_report_frame *f = &s->frames[0];
    const char *mod = f->module ? strrchr(f->module, '/') : NULL;
    snprintf(buf, size, "%s+%llx|%s", mod ? mod + 1 : f->module ? f->module : "?",
             (unsigned long long)f->offset, f->function ? f->function : "");
}

static int streams_alike(const struct mstream *a, const struct st_report_stream *b)
{
    return a->fd == b->fd && a->buffer_size == b->buffer_size &&
           a->requested_buffer_size == b->requested_buffer_size && a->mode == b->mode &&
           a->origin == b->origin && !a->caveat == !b->caveat &&
           (!a->caveat || strcmp(a->caveat, b->caveat) == 0);
}

/* Streams alike but for their counts are one row, counts summed: a file
 * every process of a run opens the same way has one stream row, not one per
 * process, and memory grows with the kinds of stream, not with processes. */
static void add_stream(struct mfile *f, const struct st_report_stream *s)
{
    for (size_t i = 0; i < f->nstreams; i++)
        if (streams_alike(&f->streams[i], s)) {
            counts_packed_add(&f->streams[i].counts, &s->counts);
            f->streams[i].folded += s->folded > 1 ? s->folded : 1;
            return;
        }
    if (f->nstreams == f->capstreams) {
        f->capstreams = f->capstreams ? f->capstreams * 2 : 1;
        f->streams = xrealloc(f->streams, f->capstreams * sizeof *f->streams);
    }
    struct mstream *d = &f->streams[f->nstreams++];
    *d = (struct mstream){.fd = s->fd,
                          .buffer_size = s->buffer_size,
                          .requested_buffer_size = s->requested_buffer_size,
                          .mode = s->mode,
                          .origin = s->origin,
                          .caveat = xstrdup(s->caveat), /* the process's report is freed after this */
                          .folded = s->folded > 1 ? s->folded : 1};
    counts_packed_add(&d->counts, &s->counts);
}

void merged_add(struct merged *m, const struct st_report *r)
{
    if (r->capture && strcmp(r->capture, "exact") != 0) {
        m->inferred = 1;
        if (!m->reason && r->capture_reason)
            m->reason = xstrdup(r->capture_reason);
    }
    /* Processes of one run normally share one C library; a run that execs
     * programs under another loader lists each version once. */
    if (r->libc_version && *r->libc_version)
        list_add_once(m->libc, sizeof m->libc, r->libc_version, ",");
    st_storage_add(&m->storage, &r->storage);
    if (!r->storage.measured && !m->storage_why && r->storage.why_not)
        m->storage_why = xstrdup(r->storage.why_not);
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct st_report_file *rf = &r->files[i];
        struct mfile *f = file_of(m, rf->path);
        counts_packed_add(&f->counts, &rf->counts);
        f->processes++;
        f->processes_with_findings += st_file_has_findings(rf) != 0;
        f->device_read_bytes += rf->device_read_bytes;
        f->device_processes += rf->device_measured != 0;
        for (size_t k = 0; k < rf->nstreams; k++)
            add_stream(f, &rf->streams[k]);
        for (size_t k = 0; k < rf->nsites; k++) {
            const struct st_report_site *s = &rf->sites[k];
            char key[512];
            site_key(s, key, sizeof key);
            size_t q = 0;
            while (q < f->nsites && strcmp(f->sites[q].key, key) != 0)
                q++;
            if (q == f->nsites) {
                if (f->nsites == f->capsites) {
                    f->capsites = f->capsites ? f->capsites * 2 : 1;
                    f->sites = xrealloc(f->sites, f->capsites * sizeof *f->sites);
                }
                struct msite *ms = &f->sites[f->nsites++];
                memset(ms, 0, sizeof *ms);
                ms->key = xstrdup(key);
                ms->nframes = s->nframes;
                ms->frames = calloc((size_t)(s->nframes ? s->nframes : 1), sizeof *ms->frames);
                if (!ms->frames)
                    tool_bad_input("out of memory");
                for (int z = 0; z < s->nframes; z++) {
                    ms->frames[z].function = xstrdup(s->frames[z].function);
                    ms->frames[z].source = xstrdup(s->frames[z].source);
                    ms->frames[z].module = xstrdup(s->frames[z].module);
                    ms->frames[z].line = s->frames[z].line;
                    ms->frames[z].offset = s->frames[z].offset;
                }
            }
            counts_packed_add(&f->sites[q].counts, &s->counts);
        }
    }
}

/* A file's merged accounts as a report row: counts unpacked, its stream
 * and site arrays malloc'd (free_row); paths, caveats and frames are the
 * merge's own. */
static void fill_row(const struct mfile *f, struct st_report_file *rf)
{
    memset(rf, 0, sizeof *rf);
    rf->path = f->path;
    counts_packed_get(&f->counts, &rf->counts);
    rf->nstreams = f->nstreams;
    rf->streams = calloc(f->nstreams ? f->nstreams : 1, sizeof *rf->streams);
    rf->sites = calloc(f->nsites ? f->nsites : 1, sizeof *rf->sites);
    if (!rf->streams || !rf->sites)
        tool_bad_input("out of memory");
    for (size_t k = 0; k < f->nstreams; k++) {
        const struct mstream *ms = &f->streams[k];
        struct st_report_stream *s = &rf->streams[k];
        *s = (struct st_report_stream){.fd = ms->fd,
                                       .buffer_size = ms->buffer_size,
                                       .requested_buffer_size = ms->requested_buffer_size,
                                       .mode = ms->mode,
                                       .origin = ms->origin,
                                       .caveat = ms->caveat,
                                       .folded = ms->folded};
        counts_packed_get(&ms->counts, &s->counts);
    }
    rf->processes = f->processes;
    rf->processes_with_findings = f->processes_with_findings;
    rf->device_measured = f->device_processes == f->processes;
    rf->device_read_bytes = f->device_read_bytes;
    rf->nsites = f->nsites;
    for (size_t k = 0; k < f->nsites; k++) {
        rf->sites[k].frames = f->sites[k].frames;
        rf->sites[k].nframes = f->sites[k].nframes;
        counts_packed_get(&f->sites[k].counts, &rf->sites[k].counts);
    }
}

static void free_row(struct st_report_file *rf)
{
    free(rf->streams);
    free(rf->sites);
}

/* The rows of the report built last. */
static void free_out(struct merged *m)
{
    for (size_t i = 0; m->out_files && i < m->nout; i++)
        free_row(&m->out_files[i]);
    free(m->out_files);
    m->out_files = NULL;
    m->nout = 0;
}

static void *out_rows(size_t n)
{
    void *v = calloc(n ? n : 1, sizeof(struct st_report_file));
    if (!v)
        tool_bad_input("out of memory");
    return v;
}

/* Every file a row, each shown to rows->each_file. */
static void every_row(struct merged *m, const struct st_footer_rows *rows)
{
    m->out_files = out_rows(m->n);
    for (m->nout = 0; m->nout < m->n; m->nout++) {
        fill_row(&m->files[m->nout], &m->out_files[m->nout]);
        if (rows && rows->each_file)
            rows->each_file(rows->ctx, &m->out_files[m->nout]);
    }
}

/* The rows rows asks for (report_select.h), as st_trace_footer_rows keeps
 * them: each file unpacked once into a scratch row, shown to each_file and
 * offered; then only those selected unpacked for good. The others' counts,
 * exactly, go to out->other. */
static void selected_rows(struct merged *m, const struct st_footer_rows *rows,
                          struct st_report *out)
{
    size_t cap = rows->files + rows->pairs + rows->findings + ST_REPORT_SELECT_EXTRA;
    struct st_rank *ranks = malloc(cap * sizeof *ranks);
    const void **kept = malloc(cap * sizeof *kept);
    struct st_report_select *sel = malloc(sizeof *sel);
    if (!ranks || !kept || !sel)
        tool_bad_input("out of memory");
    st_report_select_init(sel, ranks, rows->files, rows->pairs, rows->findings);
    for (size_t i = 0; i < m->n; i++) {
        struct st_report_file scratch;
        fill_row(&m->files[i], &scratch);
        st_report_order_sites(&scratch);
        if (rows->each_file)
            rows->each_file(rows->ctx, &scratch);
        st_report_select_offer(sel, &scratch, (const void *)(uintptr_t)(i + 1));
        free_row(&scratch);
    }
    size_t n = st_report_select_kept(sel, kept);
    m->out_files = out_rows(n);
    out->other = sel->all;
    for (m->nout = 0; m->nout < n; m->nout++) {
        fill_row(&m->files[(uintptr_t)kept[m->nout] - 1], &m->out_files[m->nout]);
        st_counts_sub(&out->other, &m->out_files[m->nout].counts);
    }
    out->nfiles_other = sel->active - n;
    free(sel);
    free(kept);
    free(ranks);
}

void merged_report(struct merged *m, struct st_report *out, const struct st_report *first,
                   const struct st_footer_rows *rows)
{
    memset(out, 0, sizeof *out);
    if (first) {
        out->pid = first->pid;
        out->ppid = first->ppid;
        out->argv = first->argv;
        out->argc = first->argc;
    }
    out->capture = m->inferred ? "inferred" : "exact";
    out->capture_reason = m->inferred ? m->reason : NULL;
    out->libc_version = m->libc[0] ? m->libc : NULL;
    free_out(m);
    if (rows && rows->files && m->n > rows->every_up_to)
        selected_rows(m, rows, out);
    else
        every_row(m, rows);
    out->files = m->out_files;
    out->nfiles = m->nout;
    out->storage = m->storage;
    if (!m->storage.measured) {
        /* One process's reason; how many it stands for when several. */
        if (m->storage.processes > 1)
            snprintf(m->storage_text, sizeof m->storage_text, "%llu of %llu processes: %s",
                     (unsigned long long)m->storage.processes_unmeasured,
                     (unsigned long long)m->storage.processes,
                     m->storage_why ? m->storage_why : "not measured");
        else
            snprintf(m->storage_text, sizeof m->storage_text, "%s",
                     m->storage_why ? m->storage_why : "not measured");
        out->storage.why_not = m->storage_text;
    }
    size_t *order = malloc((out->nfiles ? out->nfiles : 1) * sizeof *order);
    st_report_finish(out, order);
    free(order);
}

void merged_free(struct merged *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        struct mfile *f = &m->files[i];
        free(f->path);
        counts_packed_free(&f->counts);
        for (size_t k = 0; k < f->nstreams; k++) {
            free(f->streams[k].caveat);
            counts_packed_free(&f->streams[k].counts);
        }
        free(f->streams);
        for (size_t k = 0; k < f->nsites; k++) {
            for (int z = 0; z < f->sites[k].nframes; z++) {
                free((char *)f->sites[k].frames[z].function);
                free((char *)f->sites[k].frames[z].source);
                free((char *)f->sites[k].frames[z].module);
            }
            free(f->sites[k].frames);
            free(f->sites[k].key);
            counts_packed_free(&f->sites[k].counts);
        }
        free(f->sites);
    }
    free_out(m);
    free(m->files);
    free(m->index);
    free((char *)m->reason);
    free(m->storage_why);
    free(m);
}
