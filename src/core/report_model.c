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

static int compare_cost(const struct st_counts *a, const struct st_counts *b)
{
    uint64_t wa = st_counts_wasted_bytes(a), wb = st_counts_wasted_bytes(b);
    if (wa != wb)
        return wa > wb ? -1 : 1;
    uint64_t sa = a->read_syscalls + a->lseek_syscalls;
    uint64_t sb = b->read_syscalls + b->lseek_syscalls;
    if (sa != sb)
        return sa > sb ? -1 : 1;
    return 0;
}

static int worse_file_first(const void *pa, const void *pb)
{
    const struct st_report_file *a = pa, *b = pb;
    int c = compare_cost(&a->counts, &b->counts);
    return c ? c : strcmp(a->path, b->path);
}

static int worse_site_first(const void *pa, const void *pb)
{
    const struct st_report_site *a = pa, *b = pb;
    int c = compare_cost(&a->counts, &b->counts);
    if (c)
        return c;
    uint64_t ka = a->nframes ? a->frames[0].offset : 0, kb = b->nframes ? b->frames[0].offset : 0;
    return ka == kb ? 0 : ka < kb ? -1 : 1;
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

void st_report_finish(struct st_report *r)
{
    if (r->nfiles > 1)
        st_sort(r->files, r->nfiles, sizeof *r->files, worse_file_first);
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].nsites > 1)
            st_sort(r->files[i].sites, r->files[i].nsites, sizeof *r->files[i].sites,
                  worse_site_first);
    memset(&r->totals, 0, sizeof r->totals);
    for (size_t i = 0; i < r->nfiles; i++)
        st_counts_add(&r->totals, &r->files[i].counts);
}
