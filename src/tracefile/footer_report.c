/* footer_report.c — a finished trace's footer as a report (trace_reader.h:
 * st_trace_footer_report, st_trace_footer_rows); the format is in
 * include/seektrace/trace_format.h, "Footer". */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_select.h"
#include "sort.h"
#include "trace_codec.h"
#include "trace_mem.h"
#include "trace_reader.h"
#include "trace_reader_internal.h"

struct fcur {
    const uint8_t *p, *end;
    struct st_trace_mem **mem;
};

static int f_u(struct fcur *c, uint64_t *v)
{
    return st_get_u(&c->p, c->end, v);
}

/* A length-prefixed string; *s NULL for length 0. */
static int f_str(struct fcur *c, const char **s)
{
    uint64_t n;
    if (f_u(c, &n) != 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    if (n == 0) {
        *s = NULL;
        return 0;
    }
    char *d = st_trace_mem_alloc(c->mem, (size_t)n + 1);
    if (!d)
        return -1;
    memcpy(d, c->p, (size_t)n);
    c->p += n;
    *s = d;
    return 0;
}

static int f_counts(struct fcur *c, struct st_counts *out, const struct st_trace_info *in)
{
    return st_counts_decode(&c->p, c->end, out, in->call_map, in->ncalls);
}

static int f_process(struct fcur *c, struct st_report *r)
{
    uint64_t pid, ppid, argc;
    if (f_u(c, &pid) != 0 || f_u(c, &ppid) != 0 || f_u(c, &argc) != 0 ||
        argc > (uint64_t)(c->end - c->p))
        return -1;
    r->pid = (long)pid;
    r->ppid = (long)ppid;
    const char **argv = st_trace_mem_alloc(c->mem, sizeof *argv * (size_t)(argc ? argc : 1));
    if (!argv)
        return -1;
    for (uint64_t i = 0; i < argc; i++) {
        if (f_str(c, &argv[i]) != 0)
            return -1;
        if (!argv[i])
            argv[i] = "";
    }
    r->argv = argv;
    r->argc = (int)argc;
    if (f_str(c, &r->capture) != 0 || f_str(c, &r->capture_reason) != 0)
        return -1;
    if (!r->capture)
        r->capture = "exact";
    return 0;
}

static int f_file(struct fcur *c, struct st_report_file *f, const struct st_trace_info *in)
{
    uint64_t n;
    if (f_str(c, &f->path) != 0 || f_counts(c, &f->counts, in) != 0 || f_u(c, &n) != 0 ||
        n > (uint64_t)(c->end - c->p))
        return -1;
    if (!f->path)
        f->path = "";
    f->nstreams = (size_t)n;
    f->streams = n ? st_trace_mem_alloc(c->mem, sizeof *f->streams * (size_t)n) : NULL;
    if (n && !f->streams)
        return -1;
    for (size_t i = 0; i < f->nstreams; i++) {
        struct st_report_stream *s = &f->streams[i];
        uint64_t fd, size, req;
        if (f_u(c, &fd) != 0 || f_u(c, &size) != 0 || f_u(c, &req) != 0 || c->p >= c->end)
            return -1;
        int64_t sfd = st_unzigzag(fd);
        uint8_t b = *c->p++;
        if (sfd < -1 || sfd > INT32_MAX || (b & 15) > ST_TRACE_BUF_NONE ||
            (b >> 4) > ST_TRACE_ORIGIN_SIZE_IGNORED)
            return -1;
        s->fd = (int)sfd;
        s->buffer_size = size;
        s->requested_buffer_size = req;
        s->mode = (enum st_buf_mode)(b & 15);
        s->origin = (enum st_buf_origin)(b >> 4);
        if (f_str(c, &s->caveat) != 0 || f_counts(c, &s->counts, in) != 0)
            return -1;
    }
    if (f_u(c, &n) != 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    f->nsites = (size_t)n;
    f->sites = n ? st_trace_mem_alloc(c->mem, sizeof *f->sites * (size_t)n) : NULL;
    if (n && !f->sites)
        return -1;
    for (size_t i = 0; i < f->nsites; i++) {
        struct st_report_site *s = &f->sites[i];
        uint64_t nf;
        if (f_u(c, &nf) != 0 || nf > 64)
            return -1;
        struct st_report_frame *frames = nf ? st_trace_mem_alloc(c->mem, sizeof *frames * (size_t)nf) : NULL;
        if (nf && !frames)
            return -1;
        for (uint64_t k = 0; k < nf; k++) {
            uint64_t line;
            if (f_str(c, &frames[k].function) != 0 || f_str(c, &frames[k].source) != 0 ||
                f_u(c, &line) != 0 || line > INT32_MAX || f_str(c, &frames[k].module) != 0 ||
                f_u(c, &frames[k].offset) != 0)
                return -1;
            frames[k].line = (int)line;
        }
        s->frames = frames;
        s->nframes = (int)nf;
        if (f_counts(c, &s->counts, in) != 0)
            return -1;
    }
    return 0;
}

/* The rows a bounded footer report keeps: the FILE records selected, by
 * where they start in the footer, ascending. */
struct kept_rows {
    const void **at;
    size_t n;
    uint64_t *ordinal; /* each kept record's place among the FILE records */
};

/* The row of the ordinal-th FILE record, or NULL when it has none. */
static struct st_report_file *row_of(struct st_report *out, const struct kept_rows *kept,
                                     uint64_t ordinal)
{
    if (!kept)
        return ordinal < out->nfiles ? &out->files[ordinal] : NULL;
    size_t lo = 0, hi = out->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kept->ordinal[mid] < ordinal)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < out->nfiles && kept->ordinal[lo] == ordinal ? &out->files[lo] : NULL;
}

/* STORAGE (4.1): the device's figures, and per file when measured so
 * (files: how many FILE records the footer has). */
static int f_storage(struct fcur *c, struct st_report *out, const struct kept_rows *kept,
                     size_t files)
{
    struct st_report_storage *s = &out->storage;
    uint64_t flags, n;
    if (f_u(c, &flags) != 0 || f_u(c, &s->device_read_bytes) != 0 ||
        f_u(c, &s->device_write_bytes) != 0 || f_str(c, &s->why_not) != 0 || f_u(c, &n) != 0 ||
        n > files)
        return -1;
    s->measured = (flags & ST_FOOT_STORAGE_MEASURED) != 0;
    s->per_file = (flags & ST_FOOT_STORAGE_PER_FILE) != 0;
    s->processes = 1;
    s->processes_unmeasured = !s->measured;
    if (!s->measured && !s->why_not)
        s->why_not = "not measured";
    for (uint64_t i = 0; i < n; i++) {
        uint64_t file, bytes;
        if (f_u(c, &file) != 0 || f_u(c, &bytes) != 0 || file >= files)
            return -1;
        struct st_report_file *f = row_of(out, kept, file);
        if (f) {
            f->device_measured = 1;
            f->device_read_bytes = bytes;
        }
    }
    return 0;
}

/* One record of the footer: its tag and bytes; 0, or -1 when it is cut. */
static int next_record(struct fcur *c, uint64_t *tag, struct fcur *rec)
{
    uint64_t n;
    if (f_u(c, tag) != 0 || f_u(c, &n) != 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    *rec = (struct fcur){c->p, c->p + n, c->mem};
    c->p += n;
    return 0;
}

/* Whether a record was read whole: a newer minor version may append to
 * the records this reader knows only after their last field. */
static int record_whole(uint64_t tag, const struct fcur *rec)
{
    return rec->p == rec->end || (tag > ST_FOOT_FILE && tag != ST_FOOT_STORAGE);
}

/* The footer's records, then (5.0) those of the rows chunks its ROWS
 * record lists: every FILE record of the trace, a pass at a time, with a
 * rows chunk in memory at once. */
struct records {
    struct st_trace_reader *r;
    struct fcur c;          /* the footer's payload */
    const uint8_t *payload;
    struct fcur list;       /* the ROWS record's chunks not yet read */
    uint64_t nlist;
    uint8_t *chunk;         /* the rows chunk being read (chunk_size bytes) */
    struct fcur in_chunk;   /* its records not yet read */
    uint64_t chunk_index;
    const uint8_t *at;      /* where the last record began */
    int from_rows;          /* it lies in a rows chunk */
    uint64_t files;         /* FILE records so far: the next one's ordinal */
};

static void records_start(struct records *s, struct st_trace_reader *r, struct fcur c,
                          uint8_t *chunk)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->c = c;
    s->payload = c.p;
    s->chunk = chunk;
}

/* ROWS (5.0): u n, n × (u chunk, u used, u crc32); kept to be read once
 * the footer's own records are. */
static int take_rows(struct records *s, struct fcur rec)
{
    uint64_t n, v;
    if (s->nlist || f_u(&rec, &n) != 0 || n > (uint64_t)(rec.end - rec.p))
        return -1;
    s->list = rec;
    for (uint64_t i = 0; i < 3 * n; i++)
        if (f_u(&rec, &v) != 0)
            return -1;
    s->nlist = n;
    return 0;
}

/* The next record: 1 with its tag and bytes, 0 at the end, -1 where the
 * footer or a rows chunk is corrupt (err set, or empty: records_fail says
 * where). */
static int records_next(struct records *s, uint64_t *tag, struct fcur *rec, char *err)
{
    err[0] = '\0';
    for (;;) {
        if (s->from_rows && s->in_chunk.p < s->in_chunk.end) {
            s->at = s->in_chunk.p;
            if (next_record(&s->in_chunk, tag, rec) != 0 || *tag != ST_FOOT_FILE)
                return -1;
            s->files++;
            return 1;
        }
        if (s->from_rows || s->c.p >= s->c.end) {
            if (!s->nlist)
                return 0;
            uint64_t idx = 0, used = 0, crc = 0; /* take_rows read them once */
            f_u(&s->list, &idx);
            f_u(&s->list, &used);
            f_u(&s->list, &crc);
            s->nlist--;
            const uint8_t *p;
            if (st_trace_rows_bytes(s->r, idx, used, crc, s->chunk, &p, err) != 0)
                return -1;
            s->from_rows = 1;
            s->chunk_index = idx;
            s->in_chunk = (struct fcur){p, p + used, s->c.mem};
            continue;
        }
        s->at = s->c.p;
        /* ROWS before 5.0 is an unknown tag, skipped. */
        if (next_record(&s->c, tag, rec) != 0 ||
            (*tag == ST_FOOT_ROWS && st_trace_info(s->r)->version_major >= 5 &&
             take_rows(s, *rec) != 0))
            return -1;
        s->files += *tag == ST_FOOT_FILE;
        return 1;
    }
}

/* err says where the last record read lies, when records_next has not. */
static void records_fail(const struct records *s, const struct st_trace_info *in, char *err)
{
    if (err[0])
        return;
    if (s->from_rows)
        st_trace_fail(err, st_trace_path(s->r),
                      "corrupt record in rows chunk %" PRIu64 " at byte %" PRIu64, s->chunk_index,
                      in->header_size + s->chunk_index * (uint64_t)in->chunk_size +
                          (uint64_t)(s->at - s->chunk));
    else
        st_trace_fail(err, st_trace_path(s->r), "corrupt footer record at byte %" PRIu64,
                      in->footer_offset + ST_TRACE_FOOTER_FRAME + (uint64_t)(s->at - s->payload));
}

/* A FILE record's place among them all, as the selection's item: kept
 * rows come back in this order (report_select.h). */
static const void *item_of(uint64_t ordinal)
{
    return (const void *)(uintptr_t)(ordinal + 1);
}

/* The first pass of a bounded report: every FILE record decoded in
 * scratch memory, shown to each_file and offered to the selection; then
 * the records selected, in kept. 0, or -1 where the footer is corrupt
 * (err set; *oom set when memory ran out instead). */
static int select_rows(struct records *s, const struct st_trace_info *in,
                       const struct st_footer_rows *rows, struct st_report_select *sel,
                       struct kept_rows *kept, int *oom, char *err)
{
    struct st_trace_mem *scratch = NULL;
    int bad = 0, k;
    uint64_t tag;
    struct fcur rec;
    while (!bad && (k = records_next(s, &tag, &rec, err)) != 0) {
        if (k < 0) {
            bad = 1;
            break;
        }
        if (tag != ST_FOOT_FILE)
            continue;
        struct st_report_file f;
        memset(&f, 0, sizeof f);
        rec.mem = &scratch;
        if (f_file(&rec, &f, in) != 0 || !record_whole(tag, &rec)) {
            bad = 1;
            break;
        }
        if (rows->each_file)
            rows->each_file(rows->ctx, &f);
        if (sel->rows.cap)
            st_report_select_offer(sel, &f, item_of(s->files - 1));
        st_trace_mem_reset(&scratch);
    }
    st_trace_mem_free(scratch);
    if (bad) {
        records_fail(s, in, err);
        return -1;
    }
    if (!sel->rows.cap)
        return 0;
    size_t cap = sel->rows.cap + sel->pairs.cap + sel->findings.cap + ST_REPORT_SELECT_EXTRA;
    kept->at = malloc(cap * sizeof *kept->at);
    kept->ordinal = malloc(cap * sizeof *kept->ordinal);
    if (!kept->at || !kept->ordinal) {
        *oom = 1;
        return 0;
    }
    kept->n = st_report_select_kept(sel, kept->at);
    return 0;
}

static int worse_file_first(const void *a, const void *b)
{
    return st_rank_cmp(&((const struct st_report_file *)a)->rank,
                       &((const struct st_report_file *)b)->rank);
}

/* Rows read from rows chunks come after the footer's own: ranked among
 * them, the rows are in the report's order again. */
static void order_rows(struct st_report *out)
{
    for (size_t i = 0; i < out->nfiles; i++)
        out->files[i].rank = st_report_rank_file(&out->files[i]);
    st_sort(out->files, out->nfiles, sizeof *out->files, worse_file_first);
}

int st_trace_footer_report(struct st_trace_reader *r, struct st_report *out, void **block,
                           char err[ST_TRACE_ERROR_MAX])
{
    return st_trace_footer_rows(r, NULL, out, block, err);
}

int st_trace_footer_rows(struct st_trace_reader *r, const struct st_footer_rows *rows,
                         struct st_report *out, void **block, char err[ST_TRACE_ERROR_MAX])
{
    memset(out, 0, sizeof *out);
    *block = NULL;
    const struct st_trace_info *in = st_trace_info(r);
    if (!in->finished)
        return 0;
    uint8_t *buf;
    const uint8_t *payload;
    uint32_t len;
    if (st_trace_footer_bytes(r, &buf, &payload, &len, err) != 0)
        return -1;
    struct st_trace_mem *mem = NULL;
    struct fcur c = {payload, payload + len, &mem};
    struct st_report_select sel;
    memset(&sel, 0, sizeof sel);
    struct st_rank *ranks = NULL;
    struct kept_rows kept = {0};
    struct records recs;
    uint8_t *chunk = malloc(in->chunk_size);
    uint64_t tag;
    struct fcur rec;
    int k;
    if (!chunk) {
        st_trace_fail(err, st_trace_path(r), "out of memory reading the footer");
        goto fail;
    }
    /* Files are counted first so the array is allocated once; the process
     * is read then too, so that each_file's caller knows whose files it is
     * shown (the writer puts it first). */
    int have_process = 0;
    records_start(&recs, r, c, chunk);
    while ((k = records_next(&recs, &tag, &rec, err)) == 1)
        if (tag == ST_FOOT_PROCESS) {
            if (f_process(&rec, out) != 0 || !record_whole(tag, &rec)) {
                k = -1;
                break;
            }
            out->libc_version = in->libc_version; /* an info record, not in the footer */
            have_process = 1;
        }
    if (k < 0)
        goto corrupt;
    size_t nfiles = (size_t)recs.files;
    int from_rows = recs.from_rows;
    int bounded = rows && rows->files && nfiles > rows->every_up_to;
    int oom = 0;
    if (bounded) {
        ranks = malloc((rows->files + rows->pairs + rows->findings + ST_REPORT_SELECT_EXTRA) *
                       sizeof *ranks);
        if (!ranks)
            oom = 1;
        else
            st_report_select_init(&sel, ranks, rows->files, rows->pairs, rows->findings);
    }
    if (!oom && rows && (bounded || rows->each_file)) {
        records_start(&recs, r, c, chunk);
        if (select_rows(&recs, in, rows, &sel, &kept, &oom, err) != 0)
            goto fail;
    }
    size_t nrows = bounded ? kept.n : nfiles;
    out->files = oom ? NULL : st_trace_mem_alloc(&mem, sizeof *out->files * (nrows ? nrows : 1));
    out->storage.processes = out->storage.processes_unmeasured = 1;
    out->storage.why_not = "the trace has no device figures (written before format 4.1)";
    records_start(&recs, r, c, chunk);
    while (out->files && (k = records_next(&recs, &tag, &rec, err)) != 0) {
        if (k < 0)
            goto corrupt;
        int ok = 0;
        uint64_t ordinal = recs.files - 1;
        if (tag == ST_FOOT_PROCESS) {
            continue; /* read with the count */
        } else if (tag == ST_FOOT_FILE && ordinal < nfiles) {
            /* Bounded: the records kept come in their order. */
            if (bounded && (out->nfiles == kept.n || kept.at[out->nfiles] != item_of(ordinal)))
                continue;
            if (bounded)
                kept.ordinal[out->nfiles] = ordinal;
            ok = f_file(&rec, &out->files[out->nfiles], in);
            if (ok == 0)
                out->nfiles++;
        } else if (tag == ST_FOOT_STORAGE) {
            ok = f_storage(&rec, out, bounded ? &kept : NULL, nfiles);
        }
        if (ok != 0 || !record_whole(tag, &rec))
            goto corrupt;
    }
    if (!out->files || !have_process) {
        st_trace_fail(err, st_trace_path(r), "corrupt footer at byte %" PRIu64 ": %s", in->footer_offset,
             out->files ? "no process record" : "out of memory");
        goto fail;
    }
    if (from_rows)
        order_rows(out);
    for (size_t i = 0; i < out->nfiles; i++)
        st_counts_add(&out->totals, &out->files[i].counts);
    if (bounded) {
        /* The other files, exactly: every file's counts less the rows'. */
        out->other = sel.all;
        st_counts_sub(&out->other, &out->totals);
        out->totals = sel.all;
        out->nfiles_other = sel.active - out->nfiles;
    }
    free(ranks);
    free(kept.at);
    free(kept.ordinal);
    free(chunk);
    free(buf);
    *block = mem;
    return 1;
corrupt:
    records_fail(&recs, in, err);
fail:
    free(ranks);
    free(kept.at);
    free(kept.ordinal);
    free(chunk);
    st_trace_mem_free(mem);
    free(buf);
    return -1;
}
