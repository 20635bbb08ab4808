/* streams.c — see streams.h. */
#include "streams.h"

#include <fcntl.h>
#include <string.h>

#include "arena.h"
#include "attribution.h"
#include "cells.h"
#include "fdtable.h"
#include "files.h"
#include "hash_chains.h"
#include "ledger.h"
#include "registry_lock.h"
#include "staleness.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_events.h"

/* FILE* to stream. Keys are never removed (an address that held a stream
 * will likely hold one again); fclose only unbinds the value. */
struct slot {
    FILE *key;
    struct st_stream *stream;
    void *hash_next; /* hash_chains.h */
};

static unsigned hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(x >> 32);
}

static unsigned hash_of_slot(const void *entry)
{
    return hash_ptr(((const struct slot *)entry)->key);
}

ST_CHAINS_DEFINE(slots, 1u << 16, struct slot, hash_of_slot);

static struct slot *find(FILE *fp)
{
    for (struct slot *sl = st_chains_first(&slots, hash_ptr(fp)); sl;
         sl = st_chains_next(&slots, sl))
        if (sl->key == fp)
            return sl;
    return NULL;
}

/* Under the registry lock; NULL when out of memory. */
static struct slot *find_or_add(FILE *fp)
{
    struct slot *sl = find(fp);
    if (!sl && (sl = st_alloc(sizeof *sl)) != NULL) {
        sl->key = fp;
        st_chains_add(&slots, hash_ptr(fp), sl);
    }
    return sl;
}

int st_capture_inferred;

/* How a stream came to our notice decides what we know of its fd. */
enum how { OPENED, ADOPTED, DISCOVERED };

/* Under the registry lock: s, retired, waits for f's next stream. */
static void give_back(struct st_stream *s)
{
    s->spare = 1;
    s->next_spare = s->file->spares;
    s->file->spares = s;
}

/* Held while a retired stream is folded, and while a spare is cleared:
 * a fold neither adds into a record being cleared nor shares one with
 * another fold. Taken before the registry lock (registry_lock.h). */
static struct st_lock fold_lock;

/* A retired record of f, cleared but for what ties it to f (its place in
 * f's list, and its cells: zero, and found again by the same owner), or
 * NULL. */
static struct st_stream *reuse_spare(struct st_file *f)
{
    if (!st_lock_take(&fold_lock))
        return NULL;
    struct st_stream *s = NULL;
    if (st_registry_lock()) {
        s = f->spares;
        if (s)
            f->spares = s->next_spare;
        st_registry_unlock();
    }
    if (s) {
        struct st_cell *cells = s->cells;
        struct st_stream *next = s->next_in_file;
        memset(s, 0, sizeof *s);
        s->cells = cells;
        s->next_in_file = next;
    }
    st_lock_drop(&fold_lock);
    return s;
}

/* Whether a report would show a and b alike. */
static int same_settings(const struct st_stream *a, const struct st_stream *b)
{
    return a->fd == b->fd && a->buffer_size == b->buffer_size &&
           a->requested_buffer_size == b->requested_buffer_size && a->mode == b->mode &&
           a->origin == b->origin && a->caveat == b->caveat;
}

void st_stream_retire(struct st_stream *s)
{
    struct st_file *f = s->file;
    if (st_trace_on || !f || !s->closed)
        return;
    st_self.busy++;
    if (!st_lock_take(&fold_lock)) { /* a report interrupted this thread's own fold */
        st_self.busy--;
        return;
    }
    struct st_stream *into = NULL;
    for (struct st_stream *q = __atomic_load_n(&f->streams, __ATOMIC_ACQUIRE); q && !into;
         q = q->next_in_file)
        if (q != s && q->closed && !q->spare && same_settings(q, s))
            into = q;
    int moved = into != NULL;
    if (into) {
        struct st_counts total;
        memset(&total, 0, sizeof total);
        st_cells_total(s->cells, &total);
        st_whatif_stream_counts(&s->whatif, &total);
        for (struct st_cell *c = s->cells; c && moved; c = c->next_of_owner) {
            if (!st_cell_live(c))
                continue; /* a fork child's inherited cell: zero */
            struct st_tally *to = st_cell_counts(into, &into->cells, c->site);
            /* out of memory: the rest stays where it is */
            moved = to && st_tally_move(to, &c->counts) == 0;
        }
        if (moved) {
            into->folded_whatif_predicted += total.whatif_4k_kernel_read_bytes;
            into->folded_whatif_recorded += total.whatif_4k_recorded_bytes;
        } else {
            s->whatif.on = 0; /* its prediction no longer covers its counts */
        }
    }
    st_lock_drop(&fold_lock);
    if (moved && st_registry_lock()) {
        give_back(s);
        st_registry_unlock();
    }
    st_self.busy--;
}

/* name: an OPENED stream's file, as fopen was given it (or NULL). */
static struct st_stream *bind(FILE *fp, enum how how, const char *name)
{
    int fd = fp->_fileno;
    if (fd < 0)
        return NULL;
    if (how == OPENED) {
        st_fd_opened(fd, AT_FDCWD, name, 0); /* fopen: a new description at offset 0 */
        /* "a" and "a+" open with O_APPEND; libio marks the stream so
         * (_IO_IS_APPENDING, libio.h, stable since glibc 2.0). */
        if (fp->_flags & 0x1000)
            st_fd_set_append(fd, 1);
    }
    else if (how == DISCOVERED)
        st_fd_refresh(fd);        /* opened behind our back: name it afresh */
    const struct st_fd *e = st_fd_get(fd); /* fdopen: the fd as we know it */
    struct st_stream *s = e ? reuse_spare(e->file) : NULL;
    int fresh = !s;
    if (fresh)
        s = st_alloc(sizeof *s);
    if (!e || !s)
        return NULL;
    s->owner.is_stream = 1;
    s->fp = fp;
    s->fd = fd;
    s->file = e->file;
    s->mark = fp->_IO_read_ptr;
    s->win_base = fp->_IO_read_base;
    st_stream_observe_buffer(s, fp);

    /* Refused (registry_lock.h): a spare taken stays out of use, empty. */
    if (!st_registry_lock())
        return NULL;
    struct slot *sl = find_or_add(fp);
    if (sl && fresh) {
        s->next_in_file = s->file->streams;
        __atomic_store_n(&s->file->streams, s, __ATOMIC_RELEASE);
    }
    if (sl)
        __atomic_store_n(&sl->stream, s, __ATOMIC_RELEASE);
    else if (!fresh)
        give_back(s); /* no memory for fp's slot: a spare again */
    st_registry_unlock();
    return sl ? s : NULL;
}

/* The slow halves are kept out of line so that the hits, which every hook
 * and wrapper takes, are a handful of loads without a stack frame. */
__attribute__((noinline)) static struct st_stream *stream_of_slow(FILE *fp)
{
    if (!fp)
        return NULL;
    struct slot *sl = find(fp);
    struct st_stream *s = sl ? __atomic_load_n(&sl->stream, __ATOMIC_ACQUIRE) : NULL;
    return s ? s : bind(fp, DISCOVERED, NULL);
}

struct st_stream *st_stream_of(FILE *fp)
{
    /* The current stream's cache (thread_state.h), under the stream epoch
     * alone: fp is still bound to it, whatever its fd has become. Callers
     * have mostly just asked st_stream_current about fp (st_call_begin, a
     * hook inside the call), so a miss is mostly a stream not current,
     * found in the table (not cached: the entry is st_stream_current's).
     * The empty entry holds NULL for NULL, the right answer. */
    struct st_thread *t = &st_self;
    if (t->current_fp == fp && (unsigned)t->current_staleness == st_stream_epoch_now())
        return t->current_stream;
    return stream_of_slow(fp);
}

__attribute__((noinline)) static struct st_stream *stream_current_slow(FILE *fp, uint64_t now)
{
    struct st_thread *t = &st_self;
    struct st_stream *s = st_stream_of(fp);
    if (!s)
        return NULL;
    const struct st_fd *e = st_fd_get(fp->_fileno);
    if (!e || e->file != s->file || s->fd != fp->_fileno) {
        /* Rebound: not cached until a later call finds it current. What
         * was consumed of the old file's buffer is booked to it now, and
         * what is still buffered is its too (carry). */
        if (!st_capture_inferred)
            st_ledger_sync(s, fp);
        st_stream_closed(s);
        struct st_stream *n = bind(fp, DISCOVERED, NULL);
        if (n && !st_capture_inferred && fp->_IO_read_ptr < fp->_IO_read_end) {
            /* Replaced again before the first file's bytes were used up:
             * they are still the first file's. */
            int again = s->carry && fp->_IO_read_base == s->carry_base;
            n->carry = again ? s->carry : s;
            n->carry->carried = 1;
            n->carry_base = fp->_IO_read_base;
            n->mark_site = s->mark_site;
        }
        return n;
    }
    t->current_fp = fp;
    t->current_stream = s;
    t->current_staleness = now;
    return s;
}

struct st_stream *st_stream_current(FILE *fp)
{
    /* Every hook asks, several times per stdio call: the answer is kept
     * while nothing it depends on has changed (a stream unbound, an fd
     * opened, closed or dup'ed anywhere, the FILE's fd itself). */
    struct st_thread *t = &st_self;
    uint64_t now = st_staleness_now();
    struct st_stream *s = t->current_stream;
    if (t->current_fp == fp && s && t->current_staleness == now && s->fd == fp->_fileno)
        return s;
    return stream_current_slow(fp, now);
}

struct st_stream *st_stream_opened(FILE *fp, const char *name)
{
    struct slot *sl = find(fp);
    if (sl && __atomic_load_n(&sl->stream, __ATOMIC_ACQUIRE))
        st_stream_closed(__atomic_load_n(&sl->stream, __ATOMIC_ACQUIRE));
    return bind(fp, name ? OPENED : ADOPTED, name);
}

void st_stream_closed(struct st_stream *s)
{
    struct slot *sl = find(s->fp);
    s->closed = 1;
    if (sl) {
        struct st_stream *expected = s;
        __atomic_compare_exchange_n(&sl->stream, &expected, NULL, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
    }
    st_staleness_streams_changed();
}

/* glibc's list of every FILE it has open (libio's _IO_list_all). */
extern FILE *_IO_list_all;

void st_streams_each_open(void (*fn)(struct st_stream *s))
{
    for (FILE *fp = _IO_list_all; fp; fp = fp->_chain) {
        struct slot *sl = find(fp);
        struct st_stream *s = sl ? __atomic_load_n(&sl->stream, __ATOMIC_ACQUIRE) : NULL;
        if (s && !s->closed)
            fn(s);
    }
}

void st_streams_fork_prepare(void)
{
    st_lock_hold_for_fork(&fold_lock);
}

void st_streams_fork_parent(void)
{
    st_lock_release_after_fork(&fold_lock);
}

void st_streams_fork_child(void)
{
    st_lock_reset_in_child(&fold_lock);
}

void st_stream_observe_buffer_slow(struct st_stream *s, FILE *fp)
{
    s->seen_buf_base = fp->_IO_buf_base;
    s->seen_buf_end = fp->_IO_buf_end;
    s->seen_flags = fp->_flags;
    s->seen_flags2 = fp->_flags2;
    s->seen_mode = fp->_mode;
    if (fp->_IO_buf_base)
        s->buffer_size = (uint64_t)(fp->_IO_buf_end - fp->_IO_buf_base);
    int flags = fp->_flags;
    s->mode = (flags & 0x0002) ? ST_BUF_NONE      /* _IO_UNBUFFERED */
            : (flags & 0x0200) ? ST_BUF_LINE      /* _IO_LINE_BUF */
                               : ST_BUF_FULL;
    if (s->origin != ST_BUF_SIZE_IGNORED && s->mode != ST_BUF_NONE && fp->_IO_buf_base)
        s->origin = (flags & 0x0001) ? ST_BUF_USER : ST_BUF_DEFAULT; /* _IO_USER_BUF */
    /* glibc's "m" mode maps the file and calls lseek itself; wide streams
     * convert through a buffer of their own. */
    if (fp->_flags2 & ST_IO_FLAGS2_MMAP)
        s->caveat = "mmap mode: glibc's own lseeks are not seen";
    else if (fp->_mode > 0)
        s->caveat = "wide-character stream: bytes delivered are not counted";
}

void st_stream_note_map_at_slow(FILE *fp)
{
    st_self.busy++;
    struct st_stream *s = st_stream_of(fp);
    if (s)
        s->map_at = fp->_offset < 0 ? 0 : fp->_offset; /* glibc maps unknown as 0 */
    st_self.busy--;
}

/* Written only where the mark is behind: a page written here is a page
 * the kernel copies for the child. */
static void catch_up(struct st_stream *s)
{
    if (s->mark && !st_ledger_at_mark(s, s->fp))
        st_ledger_mark_at(s, s->fp, 0, s->mark_site);
}

void st_streams_settle_marks(void)
{
    st_streams_each_open(catch_up);
}
