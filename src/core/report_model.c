/* report_model.c — ordering and totals of a report. */
#include "report_model.h"

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

static int worse_first(const void *pa, const void *pb)
{
    const struct st_counts *a = &((const struct st_report_file *)pa)->counts;
    const struct st_counts *b = &((const struct st_report_file *)pb)->counts;
    uint64_t wa = st_counts_wasted_bytes(a), wb = st_counts_wasted_bytes(b);
    if (wa != wb)
        return wa > wb ? -1 : 1;
    uint64_t sa = a->read_syscalls + a->lseek_syscalls;
    uint64_t sb = b->read_syscalls + b->lseek_syscalls;
    if (sa != sb)
        return sa > sb ? -1 : 1;
    return strcmp(((const struct st_report_file *)pa)->path,
                  ((const struct st_report_file *)pb)->path);
}

void st_report_finish(struct st_report *r)
{
    if (r->nfiles > 1)
        qsort(r->files, r->nfiles, sizeof *r->files, worse_first);
    memset(&r->totals, 0, sizeof r->totals);
    for (size_t i = 0; i < r->nfiles; i++)
        st_counts_add(&r->totals, &r->files[i].counts);
}
