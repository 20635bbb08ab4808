/* trace_ids.c — the small ids events name files, streams and cells by:
 * one lock-free open-addressing table keyed by the object's address (with
 * a tag), shared by every thread; the thread that inserts an id writes its
 * definition (FILE_DEF, STREAM_DEF, CELL_DEF) before any event of its own
 * uses it. Each thread also keeps the ids of the cells it last aimed at
 * (st_tw_cell_id_cached). Sites have their own table (trace_sites.c). */
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

/* The entry for key, inserted if new (*fresh set: the caller defines it).
 * NULL when the table is full. */
static struct target *target_entry(uintptr_t key, int *fresh)
{
    *fresh = 0;
    if (!st_tw.targets)
        return NULL;
    unsigned i = st_tw_hash(key, TARGETS - 1);
    for (unsigned n = 0; n < TARGETS; n++, i = (i + 1) & (TARGETS - 1)) {
        struct target *e = &st_tw.targets[i];
        uintptr_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == 0) {
            uintptr_t zero = 0;
            if (__atomic_compare_exchange_n(&e->key, &zero, key, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&e->id, __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED),
                                 __ATOMIC_RELEASE);
                *fresh = 1;
                return e;
            }
            k = zero;
        }
        if (k == key) {
            while (__atomic_load_n(&e->id, __ATOMIC_ACQUIRE) == 0)
                st_cpu_relax();
            return e;
        }
    }
    return NULL;
}

/* The entry for key if it has one; never inserts. */
struct target *st_tw_target_find(uintptr_t key)
{
    if (!st_tw.targets)
        return NULL;
    unsigned i = st_tw_hash(key, TARGETS - 1);
    for (unsigned n = 0; n < TARGETS; n++, i = (i + 1) & (TARGETS - 1)) {
        struct target *e = &st_tw.targets[i];
        uintptr_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == 0)
            return NULL;
        if (k == key)
            return __atomic_load_n(&e->id, __ATOMIC_ACQUIRE) ? e : NULL;
    }
    return NULL;
}

static uint32_t file_id(struct st_tw_thread *t, const struct st_file *f)
{
    if (!f)
        return 0;
    int fresh;
    struct target *e = target_entry((uintptr_t)f | TAG_FILE, &fresh);
    if (!e)
        return 0;
    if (fresh) {
        size_t len = st_tw_bounded_len(f->path, MAX_PATH);
        uint8_t *p = st_tw_reserve(t, len + 3 * ST_VARINT_MAX);
        if (!p) {
            st_tw_lost();
            return e->id;
        }
        st_tw_commit(t, put_FILE_DEF(p, e->id, f->path, len));
    }
    return e->id;
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

void st_tw_note_buffer(struct target *e, const struct st_stream *s)
{
    e->buf_size = s->buffer_size;
    e->buf_requested = s->requested_buffer_size;
    e->buf_mode = st_tw_buf_byte(s);
    e->caveat = s->caveat;
}

uint32_t st_tw_stream_id(struct st_tw_thread *t, const struct st_stream *s)
{
    int fresh;
    struct target *e = target_entry((uintptr_t)s | TAG_STREAM, &fresh);
    if (!e)
        return 0;
    if (fresh) {
        uint32_t fid = file_id(t, s->file);
        st_tw_note_buffer(e, s);
        uint8_t *p = st_tw_reserve(t, 2 + 8 * ST_VARINT_MAX + st_tw_caveat_len(e));
        if (!p) {
            st_tw_lost();
            return e->id;
        }
        st_tw_commit(t, put_STREAM_DEF(p, e, fid, s->fd, ordinal(s)));
    }
    return e->id;
}

/* A cell's owner is a file (the program's POSIX calls) or a stream. A
 * file is recognised by being one of the registered files; this walk runs
 * once per new owner. */
static uint32_t owner_id(struct st_tw_thread *t, const void *owner,
                         const struct st_file *hint_file)
{
    struct target *e = st_tw_target_find((uintptr_t)owner | TAG_FILE);
    if (e)
        return e->id;
    if ((e = st_tw_target_find((uintptr_t)owner | TAG_STREAM)) != NULL)
        return e->id;
    if (owner == hint_file)
        return file_id(t, hint_file);
    for (const struct st_file *f = st_files_first(); f; f = f->next_all)
        if ((const void *)f == owner)
            return file_id(t, f);
    return st_tw_stream_id(t, owner);
}

/* The id of the cell holding counts c, defining it (and its owner and
 * site) on first use. hint_file: a file the owner may be. */
static uint32_t cell_id(struct st_tw_thread *t, struct st_tally *c,
                        const struct st_file *hint_file)
{
    const struct st_cell *cell =
        (const struct st_cell *)((const char *)c - offsetof(struct st_cell, counts));
    int fresh;
    struct target *e = target_entry((uintptr_t)cell | TAG_CELL, &fresh);
    if (!e)
        return 0;
    if (fresh) {
        uint32_t owner = owner_id(t, cell->owner, hint_file);
        uint32_t site = st_tw_site_id(t, cell->site);
        uint8_t *p = st_tw_reserve(t, 1 + 3 * ST_VARINT_MAX);
        if (!p) {
            st_tw_lost();
            return e->id;
        }
        st_tw_commit(t, put_CELL_DEF(t, p, e->id, owner, site));
    }
    return e->id;
}

/* cell_id, remembered in the first way of the thread's set `set` (the
 * entry there moves to the second: two cells a loop alternates between can
 * share a set). Out of line: it may define the cell, its owner and its
 * site, and reach_cell (trace_events.c), which every event passes, should not pay for its
 * registers. */
uint32_t st_tw_cell_id_cached(struct st_tw_thread *t, struct st_tally *c,
                              const struct st_file *hint, unsigned set)
{
    uint32_t id = cell_id(t, c, hint);
    t->cell_ids[set + 1] = t->cell_ids[set];
    t->cell_ids[set].cell = id ? c : NULL;
    t->cell_ids[set].id = id;
    return id;
}
