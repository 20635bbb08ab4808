/* file_row.c — see file_row.h. */
#include "file_row.h"

#include <string.h>

#include "cells.h"
#include "record.h"
#include "stream.h"

size_t st_file_row_streams(const struct st_file *f)
{
    size_t n = 0;
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        n++;
    return n;
}

void st_file_row_fill(struct st_report_file *rf, const struct st_file *f,
                      struct st_report_stream *room)
{
    memset(rf, 0, sizeof *rf);
    rf->path = f->path;
    rf->device_read_bytes = __atomic_load_n(&f->device_read_bytes, __ATOMIC_RELAXED);
    st_cells_total(f->direct_cells, &rf->counts);
    st_record_handler_totals(f, &rf->counts);
    rf->streams = room;
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file) {
        struct st_report_stream rs = {0};
        st_cells_total(s->cells, &rs.counts);
        if (!st_counts_any(&rs.counts))
            continue;
        rs.fd = s->fd;
        rs.buffer_size = s->buffer_size;
        rs.requested_buffer_size = s->requested_buffer_size;
        rs.mode = s->mode;
        rs.origin = s->origin;
        rs.caveat = s->caveat;
        st_whatif_stream_counts(&s->whatif, &rs.counts);
        rs.counts.whatif_4k_kernel_read_bytes += s->folded_whatif_predicted;
        rs.counts.whatif_4k_recorded_bytes += s->folded_whatif_recorded;
        st_counts_add(&rf->counts, &rs.counts);
        if (room)
            rf->streams[rf->nstreams++] = rs;
    }
}
