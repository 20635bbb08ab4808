/* report_model.c — ordering and totals of a report. */
#include "sort.h"
#include "report_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *st_buf_mode_name(enum st_buf_mode m)
{
    switch (m) {
    case ST_BUF_FULL: return "full";
    case ST_BUF_LINE: return "line";
    case ST_BUF_NONE: return "none";
    default: return "unknown";
    }
}

const char *st_buf_origin_name(enum st_buf_origin o)
{
    switch (o) {
    case ST_BUF_USER: return "user";
    case ST_BUF_SIZE_IGNORED: return "setvbuf-size-ignored";
    default: return "default";
    }
}

void st_storage_add(struct st_report_storage *sum, const struct st_report_storage *one)
{
    uint64_t n = one->processes ? one->processes : 1;
    uint64_t unmeasured = one->processes ? one->processes_unmeasured : !one->measured;
    sum->processes += n;
    sum->processes_unmeasured += unmeasured;
    sum->device_read_bytes += one->device_read_bytes;
    sum->device_write_bytes += one->device_write_bytes;
    sum->measured = sum->processes_unmeasured == 0;
    sum->per_file |= one->per_file;
}

struct st_rank st_report_rank_file(const struct st_report_file *f)
{
    const struct st_counts *c = &f->counts;
    return (struct st_rank){.a = st_counts_cost(c),
                            .b = c->read_syscalls + c->lseek_syscalls + c->write_syscalls,
                            .name = f->path,
                            .item = f};
}

struct st_rank st_report_rank_site(const struct st_report_site *s)
{
    const struct st_counts *c = &s->counts;
    return (struct st_rank){.a = st_counts_cost(c),
                            .b = c->read_syscalls + c->lseek_syscalls + c->write_syscalls,
                            .c = UINT64_MAX - (s->nframes ? s->frames[0].offset : 0),
                            .item = s};
}

struct st_rank st_report_rank_pair(const struct st_report_file *f, const struct st_report_site *s,
                                   size_t k)
{
    struct st_rank site = st_report_rank_site(s), file = st_report_rank_file(f);
    return (struct st_rank){.a = site.a,
                            .b = file.a,
                            .c = file.b,
                            .name = f->path,
                            .id = k,
                            .item = s};
}

static int worse_file_first(const void *pa, const void *pb)
{
    return st_rank_cmp(&((const struct st_report_file *)pa)->rank,
                       &((const struct st_report_file *)pb)->rank);
}

static int worse_site_first(const void *pa, const void *pb)
{
    return st_rank_cmp(&((const struct st_report_site *)pa)->rank,
                       &((const struct st_report_site *)pb)->rank);
}

const char *st_frame_describe(const struct st_report_frame *f, char *buf, size_t size)
{
    if (!f) {
        snprintf(buf, size, "unknown site");
        return buf;
    }
    const char *module = f->module ? strrchr(f->module, '/') : NULL;
    module = module ? module + 1 : f->module ? f->module : "?";
    if (f->function && f->source && f->line) {
        const char *src = strrchr(f->source, '/');
        snprintf(buf, size, "%s (%s:%d)", f->function, src ? src + 1 : f->source, f->line);
    } else if (f->function) {
        snprintf(buf, size, "%s (%s)", f->function, module);
    } else {
        snprintf(buf, size, "%s+0x%llx", module, (unsigned long long)f->offset);
    }
    return buf;
}

void st_report_order_sites(struct st_report_file *f)
{
    for (size_t k = 0; k < f->nsites; k++)
        f->sites[k].rank = st_report_rank_site(&f->sites[k]);
    if (f->nsites > 1)
        st_sort(f->sites, f->nsites, sizeof *f->sites, worse_site_first);
}

void st_report_finish(struct st_report *r, size_t *order)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        r->files[i].rank = st_report_rank_file(&r->files[i]);
        st_report_order_sites(&r->files[i]);
    }
    if (r->nfiles > 1 && order)
        st_sort_rows(r->files, r->nfiles, sizeof *r->files, worse_file_first, order);
    else if (r->nfiles > 1)
        st_sort(r->files, r->nfiles, sizeof *r->files, worse_file_first);
    r->totals = r->other;
    for (size_t i = 0; i < r->nfiles; i++)
        st_counts_add(&r->totals, &r->files[i].counts);
}
