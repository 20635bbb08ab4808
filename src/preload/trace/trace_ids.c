/* trace_ids.c — the small ids events name files, streams and cells by,
 * kept in each object's own record (its trace_id word: cells.h), so that
 * naming an object is one load however many the process made; the thread
 * that gives an id writes its definition (FILE_DEF, STREAM_DEF, CELL_DEF)
 * before any event of its own uses it. Each thread also keeps the ids of
 * the cells it last aimed at (st_tw_cell_id_cached). Sites' ids are
 * trace_sites.c's. */
#define _GNU_SOURCE 1
#include <stddef.h>

#include "cells.h"
#include "files.h"
#include "streams.h"
#include "trace_encode.h"
#include "trace_writer_internal.h"

/* The last id handed out; files, streams and cells share the space. */
static uint32_t next_id;

void st_tw_ids_restart(void)
{
    next_id = 0;
}

static uint32_t file_id(struct st_tw_thread *t, struct st_file *f)
{
    if (!f)
        return 0;
    int fresh;
    uint32_t id = st_tw_claim_id(&f->owner.trace_id, &next_id, &fresh);
    if (fresh) {
        size_t len = st_tw_bounded_len(f->path, MAX_PATH);
        uint8_t *p = st_tw_reserve(t, len + 3 * ST_VARINT_MAX);
        if (!p) {
            st_tw_lost();
            return id;
        }
        st_tw_commit(t, put_FILE_DEF(p, id, f->path, len));
    }
    return id;
}

uint8_t st_tw_buf_byte(const struct st_stream *s)
{
    return (uint8_t)(((unsigned)s->mode & 15) | ((unsigned)s->origin & 15) << 4);
}

/* How many streams were bound on the file before s (its list is newest
 * first and only ever grows at the head). */
static uint64_t ordinal(const struct st_stream *s)
{
    uint64_t after = 0;
    int seen = 0;
    for (const struct st_stream *q = s->file ? s->file->streams : NULL; q; q = q->next_in_file) {
        if (seen)
            after++;
        if (q == s)
            seen = 1;
    }
    return after;
}

void st_tw_note_buffer(struct st_stream *s)
{
    s->traced = (struct st_traced_buffer){.size = s->buffer_size,
                                          .requested = s->requested_buffer_size,
                                          .mode = st_tw_buf_byte(s),
                                          .caveat = s->caveat};
}

uint32_t st_tw_stream_id(struct st_tw_thread *t, struct st_stream *s)
{
    int fresh;
    uint32_t id = st_tw_claim_id(&s->owner.trace_id, &next_id, &fresh);
    if (fresh) {
        uint32_t fid = file_id(t, s->file);
        st_tw_note_buffer(s);
        uint8_t *p = st_tw_reserve(t, 2 + 8 * ST_VARINT_MAX + st_tw_caveat_len(&s->traced));
        if (!p) {
            st_tw_lost();
            return id;
        }
        st_tw_commit(t, put_STREAM_DEF(p, id, &s->traced, fid, s->fd, ordinal(s)));
    }
    return id;
}

/* A cell's owner: a file (the program's POSIX calls) or a stream, as its
 * record's head says. */
static uint32_t owner_id(struct st_tw_thread *t, const void *owner)
{
    const struct st_cell_owner *o = owner;
    uint32_t id = st_tw_id_of(&o->trace_id);
    if (id)
        return id;
    return o->is_stream ? st_tw_stream_id(t, (struct st_stream *)owner)
                        : file_id(t, (struct st_file *)owner);
}

/* The id of the cell holding counts c, defining it (and its owner and
 * site) on first use. */
static uint32_t cell_id(struct st_tw_thread *t, struct st_tally *c)
{
    struct st_cell *cell = (struct st_cell *)((char *)c - offsetof(struct st_cell, counts));
    int fresh;
    uint32_t id = st_tw_claim_id(&cell->trace_id, &next_id, &fresh);
    if (fresh) {
        uint32_t owner = owner_id(t, cell->owner);
        uint32_t site = st_tw_site_id(t, cell->site);
        uint8_t *p = st_tw_reserve(t, 1 + 3 * ST_VARINT_MAX);
        if (!p) {
            st_tw_lost();
            return id;
        }
        st_tw_commit(t, put_CELL_DEF(t, p, id, owner, site));
    }
    return id;
}

/* cell_id, remembered in the first way of the thread's set `set` (the
 * entry there moves to the second: two cells a loop alternates between can
 * share a set). Out of line: it may define the cell, its owner and its
 * site, and reach_cell (trace_events.c), which every event passes, should not pay for its
 * registers. */
uint32_t st_tw_cell_id_cached(struct st_tw_thread *t, struct st_tally *c, unsigned set)
{
    uint32_t id = cell_id(t, c);
    t->cell_ids[set + 1] = t->cell_ids[set];
    t->cell_ids[set].cell = id ? c : NULL;
    t->cell_ids[set].id = id;
    return id;
}
