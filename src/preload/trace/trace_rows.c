/* trace_rows.c — the rows of files folded away while the trace is written
 * (accounts/fold.h): each folded file's FILE record, exactly as the
 * footer would have held it, goes into a rows chunk (trace_format.h) as
 * the file folds, so that the footer still lists every file while the
 * process keeps a bounded number of them. Written only while the process
 * has one thread (folding waits for that), so one writer owns the rows
 * chunks, a chunk at a time as a thread owns its event chunks; the
 * footer's ROWS record lists them (trace_footer.c).
 *
 * A file's row is staged into the rows chunk, and committed (the chunk's
 * `used` stored) only once the file has folded: a file the accounts could
 * not fold keeps its row for the footer, never written twice. Its sites'
 * frames are left as addresses, whatever SEEKTRACE_SYMBOLIZE says:
 * naming them here would open module files in the middle of the program's
 * close(); readers name them from the trace's modules, as they do
 * SEEKTRACE_SYMBOLIZE=later's. */
#define _GNU_SOURCE 1
#include <string.h>

#include "arena.h"
#include "cells.h"
#include "file_row.h"
#include "files.h"
#include "report_model.h"
#include "sites.h"
#include "stream.h"
#include "trace_codec.h"
#include "trace_writer_internal.h"

/* The rows chunks' writer: a chunk at a time, as a thread's. */
static struct st_tw_thread rows;
static struct st_tw_rows_chunk *list;
static size_t nlist, list_room;
static size_t staged; /* bytes of the row at rows.pos, not yet committed */

/* Memory for one row's sites, grown when a file needs more, reused for
 * the next. */
static struct {
    struct st_report_site *sites;
    size_t nsites;
    struct st_report_frame *frames;
    size_t nframes;
    const struct st_site **of; /* each site's st_site, by the row's index */
    size_t nof;
} room;

size_t st_tw_rows_chunks(const struct st_tw_rows_chunk **out)
{
    *out = list;
    return nlist;
}

void st_tw_rows_restart(void)
{
    memset(&rows, 0, sizeof rows);
    nlist = 0;
    staged = 0;
}

/* *have holds at least want items of size bytes, its first *cap kept: 0,
 * or -1. */
static int grow(void **have, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    size_t n = *cap ? 2 * *cap : 8;
    while (n < want)
        n *= 2;
    void *p = st_alloc(n * size);
    if (!p)
        return -1;
    if (*cap)
        memcpy(p, *have, *cap * size);
    *have = p;
    *cap = n;
    return 0;
}

/* Adds a cell's counts to the row's entry for its site, as the exit
 * report's rows do (lifecycle/exit_report.c), its frames as addresses. */
static void add_to_site(struct st_report_file *rf, const struct st_cell *c)
{
    const struct st_site **of = room.of;
    const struct st_tally *live = st_cell_live(c);
    if (!c->site || !live || !st_tally_any(live))
        return;
    size_t i = 0;
    while (i < rf->nsites && of[i] != c->site)
        i++;
    if (i == rf->nsites) {
        struct st_report_frame *fr = room.frames + i * ST_MAX_FRAMES;
        memset(fr, 0, ST_MAX_FRAMES * sizeof *fr);
        for (int k = 0; k < c->site->nframes; k++)
            fr[k].offset = c->site->frames[k];
        of[i] = c->site;
        rf->sites[i].frames = fr;
        rf->sites[i].nframes = c->site->nframes;
        rf->nsites++;
    }
    st_tally_total(live, &rf->sites[i].counts);
}

/* row with sites: rf's counts and streams, f's sites in `room`, in the
 * report's order. */
static int fill(struct st_report_file *row, const struct st_file *f,
                const struct st_report_file *rf)
{
    size_t cells = st_file_row_cells(f);
    if (grow((void **)&room.sites, &room.nsites, cells, sizeof *room.sites) != 0 ||
        grow((void **)&room.frames, &room.nframes, cells * ST_MAX_FRAMES,
             sizeof *room.frames) != 0 ||
        grow((void **)&room.of, &room.nof, cells, sizeof(void *)) != 0)
        return -1;
    *row = *rf;
    row->sites = room.sites;
    row->nsites = 0;
    memset(room.sites, 0, cells * sizeof *room.sites);
    for (const struct st_cell *c = f->direct_cells; c; c = c->next_of_owner)
        add_to_site(row, c);
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        for (const struct st_cell *c = s->cells; c; c = c->next_of_owner)
            add_to_site(row, c);
    st_report_order_sites(row);
    return 0;
}

/* Room in the current rows chunk for n bytes, taking a new one if need be. */
static int room_for(size_t n)
{
    if (rows.chunk && (size_t)(rows.end - rows.pos) >= n)
        return 0;
    if (grow((void **)&list, &list_room, nlist + 1, sizeof *list) != 0 ||
        st_tw_new_chunk(&rows, ST_TRACE_CHUNK_ROWS) != 0)
        return -1;
    list[nlist++] = (struct st_tw_rows_chunk){rows.chunk_index, 0, 0};
    return 0;
}

int st_trace_fold_row(struct st_file *f, const struct st_report_file *rf)
{
    staged = 0;
    if (!st_tw_ensure_ready())
        return -1;
    /* The last word on its recorded streams, as the footer gives the
     * streams it lists (trace_footer.c): all are closed. */
    for (struct st_stream *s = f->streams; s; s = s->next_in_file)
        if (st_tw_id_of(&s->owner.trace_id))
            st_trace_buffer_(s);
    if (!st_counts_any(&rf->counts))
        return 0; /* no row: the footer would list none either */
    struct st_report_file row;
    if (fill(&row, f, rf) != 0)
        return -1;
    size_t n = st_tw_file_record(NULL, &row);
    if (n > CHUNK_DATA || room_for(n) != 0)
        return -1;
    st_tw_file_record(rows.pos, &row);
    staged = n;
    return 0;
}

void st_trace_fold_done(int folded)
{
    /* The thread's caches name records by address: a folded file's
     * records are another file's from now on. */
    st_tw_self.op_stream = NULL;
    memset(st_tw_self.cell_ids, 0, sizeof st_tw_self.cell_ids);
    if (!folded || !staged)
        return;
    struct st_tw_rows_chunk *c = &list[nlist - 1];
    c->crc = st_crc32(c->crc, rows.pos, staged);
    c->used += (uint32_t)staged;
    rows.pos += staged;
    staged = 0;
    __atomic_store_n(&((struct st_trace_chunk *)rows.chunk)->used, c->used, __ATOMIC_RELEASE);
}
