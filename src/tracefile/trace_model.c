/* trace_model.c — see trace_model.h. The rules mirror the library's:
 * record.c, ledger.c, stdio_slots.c for what each event counts, and
 * exit_report.c for how counts become a report. */
#include "trace_model.h"

#include <stdlib.h>
#include <string.h>

#include "flush_cause.h"
#include "whatif_stream.h"

enum okind { O_NONE, O_FILE, O_STREAM, O_CELL };

struct obj {
    uint32_t id;
    uint8_t kind;
    uint8_t buf_mode, buf_origin;
    int fd;
    char *path;                /* file */
    char *caveat;              /* stream */
    uint32_t file;             /* stream */
    uint64_t ordinal, buffer_size, requested_buffer_size, buf_time;
    uint32_t owner, site;      /* cell */
    struct st_counts *counts;  /* cell */
    struct st_whatif_stream *whatif; /* stream: its 4 KiB what-if, from OP events */
};

struct sitedef {
    uint32_t id;
    size_t n;
    uint64_t frames[16];
};

/* uint32 key -> index + 1 (0: empty), open addressing. */
struct map {
    uint32_t *keys;
    uint32_t *vals;
    size_t cap, n;
};

struct st_trace_model {
    struct obj *objs;
    size_t nobjs, capobjs;
    struct map obj_index;
    struct sitedef *sites;
    size_t nsites, capsites;
    struct map site_index;
    struct st_trace_module *mods;
    size_t nmods, capmods;
    uint64_t events, by_kind[32];
    /* the built report's memory */
    void **allocs;
    size_t nallocs, capallocs;
};

static size_t hash32(uint32_t k, size_t mask)
{
    return (size_t)((k * 0x9E3779B1u) ^ (k >> 16)) & mask;
}

static int map_grow(struct map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    uint32_t *keys = calloc(cap, sizeof *keys), *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i]) {
            size_t j = hash32(m->keys[i], cap - 1);
            while (vals[j])
                j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

/* The slot for key (its value 0 if absent); NULL when out of memory. */
static uint32_t *map_slot(struct map *m, uint32_t key)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m) != 0)
        return NULL;
    size_t j = hash32(key, m->cap - 1);
    while (m->vals[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    m->keys[j] = key;
    return &m->vals[j];
}

static uint32_t map_get(const struct map *m, uint32_t key)
{
    if (!m->cap)
        return 0;
    size_t j = hash32(key, m->cap - 1);
    while (m->vals[j]) {
        if (m->keys[j] == key)
            return m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return 0;
}

struct st_trace_model *st_trace_model_new(void)
{
    return calloc(1, sizeof(struct st_trace_model));
}

void st_trace_model_free(struct st_trace_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nobjs; i++) {
        free(m->objs[i].path);
        free(m->objs[i].caveat);
        free(m->objs[i].counts);
        free(m->objs[i].whatif);
    }
    free(m->objs);
    free(m->obj_index.keys);
    free(m->obj_index.vals);
    free(m->sites);
    free(m->site_index.keys);
    free(m->site_index.vals);
    for (size_t i = 0; i < m->nmods; i++)
        free((char *)m->mods[i].path);
    free(m->mods);
    for (size_t i = 0; i < m->nallocs; i++)
        free(m->allocs[i]);
    free(m->allocs);
    free(m);
}

static void *grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
}

static struct obj *obj_of(struct st_trace_model *m, uint32_t id)
{
    uint32_t *slot = map_slot(&m->obj_index, id);
    if (!slot)
        return NULL;
    if (*slot)
        return &m->objs[*slot - 1];
    struct obj *objs = grow_array(m->objs, &m->capobjs, m->nobjs + 1, sizeof *objs);
    if (!objs)
        return NULL;
    m->objs = objs;
    struct obj *o = &m->objs[m->nobjs++];
    memset(o, 0, sizeof *o);
    o->id = id;
    o->fd = -1;
    *slot = (uint32_t)m->nobjs;
    m->obj_index.n++;
    return o;
}

static const struct obj *obj_find(const struct st_trace_model *m, uint32_t id)
{
    uint32_t i = map_get(&m->obj_index, id);
    return i ? &m->objs[i - 1] : NULL;
}

static struct st_counts *cell_counts(struct st_trace_model *m, uint32_t id)
{
    if (!id)
        return NULL;
    struct obj *o = obj_of(m, id);
    if (!o)
        return NULL;
    if (!o->counts)
        o->counts = calloc(1, sizeof *o->counts);
    return o->counts;
}

static char *strndup_(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void set_buffer(struct obj *o, const struct st_trace_event *ev)
{
    if (ev->time_ns < o->buf_time)
        return; /* an older view than one already applied */
    o->buf_time = ev->time_ns;
    o->buffer_size = ev->buffer_size;
    o->requested_buffer_size = ev->requested_buffer_size;
    o->buf_mode = (uint8_t)ev->buf_mode;
    o->buf_origin = (uint8_t)ev->buf_origin;
    free(o->caveat);
    o->caveat = ev->str_len ? strndup_(ev->str, ev->str_len) : NULL;
}

/* One function per event kind, named after its events.def line: what the
 * kind adds to the model. call is the event's call, ST_CALL_OTHER when it
 * names none the build knows. */
typedef int apply_fn(struct st_trace_model *m, const struct st_trace_event *ev, int call);

/* Kinds that only steer decoding (the reader applies them) or that the
 * model does not keep. */
static int apply_nothing(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    return 0;
}
#define apply_TARGET apply_nothing
#define apply_END apply_nothing
#define apply_MARK apply_nothing
#define apply_CLOSE apply_nothing
#define apply_LOST apply_nothing

static int apply_FILE_DEF(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct obj *o = obj_of(m, ev->id);
    if (!o)
        return -1;
    if (o->kind == O_NONE || o->kind == O_FILE) {
        o->kind = O_FILE;
        if (!o->path && !(o->path = strndup_(ev->str, ev->str_len)))
            return -1;
    }
    return 0;
}

static int apply_STREAM_DEF(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct obj *o = obj_of(m, ev->id);
    if (!o)
        return -1;
    if (o->kind == O_NONE || o->kind == O_STREAM) {
        o->kind = O_STREAM;
        o->file = ev->file;
        o->fd = ev->fd;
        o->ordinal = ev->ordinal;
        set_buffer(o, ev);
    }
    return 0;
}

static int apply_BUF(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct obj *o = obj_of(m, ev->id);
    if (!o)
        return -1;
    set_buffer(o, ev);
    return 0;
}

static int apply_CELL_DEF(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct obj *o = obj_of(m, ev->id);
    if (!o)
        return -1;
    if (o->kind == O_NONE || o->kind == O_CELL) {
        o->kind = O_CELL;
        o->owner = ev->owner;
        o->site = ev->site;
    }
    return 0;
}

static int apply_SITE_DEF(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    uint32_t *slot = map_slot(&m->site_index, ev->id);
    if (!slot)
        return -1;
    if (*slot)
        return 0;
    struct sitedef *s = grow_array(m->sites, &m->capsites, m->nsites + 1, sizeof *s);
    if (!s)
        return -1;
    m->sites = s;
    s = &m->sites[m->nsites++];
    s->id = ev->id;
    s->n = ev->nframes;
    memcpy(s->frames, ev->frames, sizeof s->frames);
    *slot = (uint32_t)m->nsites;
    m->site_index.n++;
    return 0;
}

static int apply_MODULE(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    for (size_t i = 0; i < m->nmods; i++)
        if (m->mods[i].start == ev->start)
            return 0;
    struct st_trace_module *mods = grow_array(m->mods, &m->capmods, m->nmods + 1, sizeof *mods);
    if (!mods)
        return -1;
    m->mods = mods;
    char *path = strndup_(ev->str, ev->str_len);
    if (!path)
        return -1;
    m->mods[m->nmods++] = (struct st_trace_module){ev->start, ev->length, ev->module_offset, path};
    return 0;
}

static int apply_COUNT(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c)
        c->by_call[call].calls++;
    return 0;
}

static int apply_CALL(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    return ev->counted ? apply_COUNT(m, ev, call) : 0;
}

static int apply_READ(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (!c)
        return 0;
    c->read_syscalls++;
    c->by_call[call].read_syscalls++;
    if (ev->result > 0) {
        c->kernel_read_bytes += (uint64_t)ev->result;
        c->by_call[call].kernel_read_bytes += (uint64_t)ev->result;
    }
    c->reread_bytes += ev->reread;
    return 0;
}
#define apply_READ_REREAD apply_READ /* the reader set ev->reread */

static int apply_REREAD(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c)
        c->reread_bytes += ev->reread;
    return 0;
}

static int apply_LSEEK(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c) {
        c->lseek_syscalls++;
        c->by_call[call].lseek_syscalls++;
    }
    return 0;
}

static int apply_FSTAT(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c) {
        c->fstat_syscalls++;
        c->by_call[call].fstat_syscalls++;
    }
    return 0;
}

static int apply_WRITE(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c) {
        c->write_syscalls++;
        if (ev->result > 0)
            c->kernel_write_bytes += (uint64_t)ev->result;
    }
    return 0;
}

static int apply_WRITE_AT(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (!c)
        return 0;
    uint64_t bytes = ev->result > 0 ? (uint64_t)ev->result : 0;
    c->write_syscalls++;
    c->kernel_write_bytes += bytes;
    c->by_call[call].write_syscalls++;
    c->by_call[call].kernel_write_bytes += bytes;
    return 0;
}

static int apply_WRITTEN(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c)
        c->written_bytes += ev->n;
    return 0;
}

static int apply_DELIVER(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c) {
        c->requested_bytes += ev->requested;
        c->delivered_bytes += ev->delivered;
    }
    return 0;
}

static int apply_SEEK(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (!c)
        return 0;
    if (ev->kept) {
        c->seeks_in_buffer++;
        c->resync_lseeks += ev->resync;
    } else {
        c->seeks_discarding_buffer++;
    }
    return 0;
}

static int apply_FLUSH(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct st_counts *c = cell_counts(m, ev->target);
    if (c)
        (*st_flush_counter(c, ev->cause))++;
    return 0;
}

/* The same what-if the library followed (whatif_stream.h). */
static int apply_OP(struct st_trace_model *m, const struct st_trace_event *ev, int call)
{
    struct obj *o = obj_of(m, ev->id);
    if (!o)
        return -1;
    if (!o->whatif && !(o->whatif = calloc(1, sizeof *o->whatif)))
        return -1;
    uint64_t n;
    int64_t x;
    st_trace_op_fields(ev, &n, &x);
    st_whatif_stream_op(o->whatif, o->buffer_size, ev->op, ev->op_flag, n, x);
    return 0;
}

static apply_fn *const apply[32] = {
#define ST_TRACE_EVENT(kind, value, ...) [value] = apply_##kind,
#include "seektrace/events.def"
#undef ST_TRACE_EVENT
};

int st_trace_model_apply(struct st_trace_model *m, const struct st_trace_event *ev)
{
    m->events++;
    m->by_kind[ev->kind & 31]++;
    int call = ev->call >= 0 && ev->call < ST_CALL_COUNT ? ev->call : ST_CALL_OTHER;
    apply_fn *fn = apply[ev->kind & 31];
    return fn ? fn(m, ev, call) : 0;
}

uint64_t st_trace_model_events(const struct st_trace_model *m)
{
    return m->events;
}

uint64_t st_trace_model_events_of(const struct st_trace_model *m, unsigned kind)
{
    return m->by_kind[kind & 31];
}

size_t st_trace_model_modules(const struct st_trace_model *m, const struct st_trace_module **out)
{
    *out = m->mods;
    return m->nmods;
}

const struct st_trace_module *st_trace_model_module_of(const struct st_trace_model *m,
                                                       uint64_t address)
{
    for (size_t i = 0; i < m->nmods; i++)
        if (address >= m->mods[i].start && address - m->mods[i].start < m->mods[i].length)
            return &m->mods[i];
    return NULL;
}

static const char *file_path_of(const struct st_trace_model *m, uint32_t owner, int *fd)
{
    const struct obj *o = obj_find(m, owner);
    *fd = -1;
    if (o && o->kind == O_STREAM) {
        *fd = o->fd;
        o = obj_find(m, o->file);
    }
    return o && o->kind == O_FILE ? o->path : NULL;
}

int st_trace_model_cell(const struct st_trace_model *m, uint32_t cell, const char **path, int *fd,
                        uint32_t *site, uint64_t *pc)
{
    const struct obj *o = obj_find(m, cell);
    *path = NULL;
    *fd = -1;
    *site = 0;
    *pc = 0;
    if (!o || o->kind != O_CELL)
        return 0;
    *path = file_path_of(m, o->owner, fd);
    *site = o->site;
    uint32_t si = map_get(&m->site_index, o->site);
    if (si)
        *pc = m->sites[si - 1].frames[0];
    return 1;
}

int st_trace_model_stream(const struct st_trace_model *m, uint32_t stream, const char **path,
                          int *fd)
{
    *path = file_path_of(m, stream, fd);
    return *path != NULL;
}

/* ---- building the report ------------------------------------------------ */

static void *model_alloc(struct st_trace_model *m, size_t n)
{
    void **a = grow_array(m->allocs, &m->capallocs, m->nallocs + 1, sizeof *a);
    if (!a)
        return NULL;
    m->allocs = a;
    void *p = calloc(1, n ? n : 1);
    if (p)
        m->allocs[m->nallocs++] = p;
    return p;
}

/* Per file while building: its report entry and the scratch for sites. */
struct fbuild {
    uint32_t id;
    const char *path;
    struct st_counts direct;
    size_t nstreams;
    int included;
};

struct sbuild {
    uint32_t id;
    size_t file;      /* index into the fbuild array */
    int included;
    struct st_counts total;
};

static int by_ordinal_desc(const void *a, const void *b)
{
    const struct obj *x = *(const struct obj *const *)a, *y = *(const struct obj *const *)b;
    if (x->ordinal != y->ordinal)
        return x->ordinal > y->ordinal ? -1 : 1;
    return x->id > y->id ? -1 : x->id < y->id;
}

void st_trace_model_frame(const struct st_trace_model *m, const struct st_trace_info *info,
                          uint64_t addr, st_trace_symbolizer symbolize, void *ctx,
                          struct st_report_frame *f)
{
    memset(f, 0, sizeof *f);
    const struct st_trace_module *mod = st_trace_model_module_of(m, addr);
    if (mod) {
        /* The loader (dladdr, which the library asks at exit) names the
         * main program by its argv[0]. */
        f->module = info->exe && info->argc > 0 && strcmp(mod->path, info->exe) == 0
                        ? info->argv[0] : mod->path;
        f->offset = addr - (mod->start - mod->file_offset);
    } else {
        f->offset = addr;
    }
    if (symbolize)
        symbolize(ctx, mod, addr, f);
}

/* Which streams and files a report shows (exit_report.c): a stream's counts
 * join its file's; returns how many files are shown. */
static size_t choose_shown(struct fbuild *files, size_t nf, struct sbuild *streams, size_t ns)
{
    for (size_t i = 0; i < ns; i++) {
        streams[i].included = st_counts_any(&streams[i].total);
        if (streams[i].included) {
            st_counts_add(&files[streams[i].file].direct, &streams[i].total);
            files[streams[i].file].nstreams++;
        }
    }
    size_t nshown = 0;
    for (size_t i = 0; i < nf; i++) {
        files[i].included = st_counts_any(&files[i].direct);
        nshown += files[i].included;
    }
    return nshown;
}

/* An empty report of the process the trace's header names. */
static void report_process(struct st_report *r, const struct st_trace_info *info)
{
    memset(r, 0, sizeof *r);
    r->pid = info->pid;
    r->ppid = info->ppid;
    r->argc = info->argc;
    r->argv = (const char *const *)info->argv;
    r->capture = info->capture ? info->capture : "exact";
    r->capture_reason = info->capture_reason;
    r->libc_version = info->libc_version;
}

int st_trace_model_report(struct st_trace_model *m, const struct st_trace_info *info,
                          st_trace_symbolizer symbolize, void *ctx, struct st_report *r)
{
    report_process(r, info);

    size_t no = m->nobjs ? m->nobjs : 1;
    /* Files, with one more (index 0) for owners never seen defined. */
    size_t nf = 1;
    for (size_t i = 0; i < m->nobjs; i++)
        nf += m->objs[i].kind == O_FILE;
    struct fbuild *files = calloc(nf, sizeof *files);
    struct sbuild *streams = calloc(no, sizeof *streams);
    size_t *file_of = calloc(no, sizeof *file_of);     /* obj -> files index + 1 */
    size_t *stream_of = calloc(no, sizeof *stream_of); /* obj -> streams index + 1 */
    size_t *cell_file = calloc(no, sizeof *cell_file); /* obj (cell) -> files index */
    size_t *rep_of = calloc(nf, sizeof *rep_of);       /* files index -> r->files index + 1 */
    const struct obj **sorted = calloc(no, sizeof(const struct obj *));
    int rc = -1;
    if (!files || !streams || !file_of || !stream_of || !cell_file || !rep_of || !sorted)
        goto out;
    files[0].path = "(unknown file)";
    size_t k = 1;
    for (size_t i = 0; i < m->nobjs; i++)
        if (m->objs[i].kind == O_FILE) {
            files[k].id = m->objs[i].id;
            files[k].path = m->objs[i].path ? m->objs[i].path : "";
            file_of[i] = k + 1;
            k++;
        }
    size_t ns = 0;
    for (size_t i = 0; i < m->nobjs; i++)
        if (m->objs[i].kind == O_STREAM) {
            uint32_t fi = map_get(&m->obj_index, m->objs[i].file);
            streams[ns].id = m->objs[i].id;
            streams[ns].file = fi && file_of[fi - 1] ? file_of[fi - 1] - 1 : 0;
            stream_of[i] = ++ns;
        }
    /* Cells into their owners. */
    for (size_t i = 0; i < m->nobjs; i++) {
        const struct obj *o = &m->objs[i];
        if (!o->counts)
            continue;
        uint32_t oi = o->kind == O_CELL ? map_get(&m->obj_index, o->owner) : 0;
        if (oi && stream_of[oi - 1]) {
            st_counts_add(&streams[stream_of[oi - 1] - 1].total, o->counts);
            cell_file[i] = streams[stream_of[oi - 1] - 1].file;
        } else {
            cell_file[i] = oi && file_of[oi - 1] ? file_of[oi - 1] - 1 : 0;
            st_counts_add(&files[cell_file[i]].direct, o->counts);
        }
    }
    for (size_t i = 0; i < m->nobjs; i++)
        if (stream_of[i])
            st_whatif_stream_counts(m->objs[i].whatif, &streams[stream_of[i] - 1].total);
    size_t nshown = choose_shown(files, nf, streams, ns);
    r->files = model_alloc(m, nshown * sizeof *r->files);
    if (!r->files)
        goto out;
    for (size_t i = 0; i < nf; i++) {
        if (!files[i].included)
            continue;
        struct st_report_file *rf = &r->files[r->nfiles];
        rf->path = files[i].path;
        rf->counts = files[i].direct;
        rf->streams = model_alloc(m, files[i].nstreams * sizeof *rf->streams);
        if (!rf->streams)
            goto out;
        rep_of[i] = ++r->nfiles;
    }
    /* Streams, newest first as the library lists them. */
    size_t n = 0;
    for (size_t j = 0; j < m->nobjs; j++)
        if (stream_of[j] && streams[stream_of[j] - 1].included)
            sorted[n++] = &m->objs[j];
    qsort(sorted, n, sizeof(const struct obj *), by_ordinal_desc);
    for (size_t j = 0; j < n; j++) {
        const struct obj *o = sorted[j];
        const struct sbuild *sb = &streams[stream_of[o - m->objs] - 1];
        struct st_report_file *rf = &r->files[rep_of[sb->file] - 1];
        struct st_report_stream *rs = &rf->streams[rf->nstreams++];
        rs->fd = o->fd;
        rs->buffer_size = o->buffer_size;
        rs->requested_buffer_size = o->requested_buffer_size;
        rs->mode = (enum st_buf_mode)o->buf_mode;
        rs->origin = (enum st_buf_origin)o->buf_origin;
        rs->caveat = o->caveat;
        rs->counts = sb->total;
    }
    /* Sites: every cell of a shown file that names one (exit_report.c).
     * While building, a site's frames pointer holds its site id. */
    size_t *cap = calloc(nf, sizeof *cap);
    if (!cap)
        goto out;
    for (size_t j = 0; j < m->nobjs; j++)
        if (m->objs[j].kind == O_CELL && m->objs[j].site && m->objs[j].counts)
            cap[cell_file[j]]++;
    for (size_t i = 0; i < nf; i++)
        if (rep_of[i] && cap[i] &&
            !(r->files[rep_of[i] - 1].sites = model_alloc(m, cap[i] * sizeof(struct st_report_site)))) {
            free(cap);
            goto out;
        }
    free(cap);
    for (size_t j = 0; j < m->nobjs; j++) {
        const struct obj *o = &m->objs[j];
        if (o->kind != O_CELL || !o->site || !o->counts || !rep_of[cell_file[j]])
            continue;
        struct st_report_file *rf = &r->files[rep_of[cell_file[j]] - 1];
        size_t s = 0;
        while (s < rf->nsites && (uint32_t)(uintptr_t)rf->sites[s].frames != o->site)
            s++;
        if (s == rf->nsites) {
            rf->sites[s].frames = (const struct st_report_frame *)(uintptr_t)o->site;
            rf->nsites++;
        }
        st_counts_add(&rf->sites[s].counts, o->counts);
    }
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t s = 0; s < r->files[i].nsites; s++) {
            struct st_report_site *site = &r->files[i].sites[s];
            uint32_t si = map_get(&m->site_index, (uint32_t)(uintptr_t)site->frames);
            size_t nfr = si ? m->sites[si - 1].n : 0;
            struct st_report_frame *frames = nfr ? model_alloc(m, nfr * sizeof *frames) : NULL;
            if (nfr && !frames)
                goto out;
            for (size_t f = 0; f < nfr; f++)
                st_trace_model_frame(m, info, m->sites[si - 1].frames[f], symbolize, ctx, &frames[f]);
            site->frames = frames;
            site->nframes = (int)nfr;
        }
    r->storage.processes = r->storage.processes_unmeasured = 1;
    r->storage.why_not = "the trace has no footer: the process never wrote its device figures";
    st_report_finish(r, model_alloc(m, r->nfiles * sizeof(size_t)));
    rc = 0;
out:
    free(files);
    free(streams);
    free(file_of);
    free(stream_of);
    free(cell_file);
    free(rep_of);
    free(sorted);
    return rc;
}
