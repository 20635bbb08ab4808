/* trace_writer_internal.h — what the pieces of the trace writer share; no
 * promise to anything outside src/preload/trace/ (trace_writer.h and
 * accounts/trace_events.h are the writer's interface).
 *
 * The pieces, one job each:
 *   trace_writer.c   settings, start, restart after fork or a failed exec;
 *                    the state below
 *   trace_create.c   creating the file: name, header, info records
 *   trace_chunks.c   the file reopened, grown and mapped a window at a
 *                    time; the chunks threads write into
 *   trace_ids.c      ids of files, streams and cells, defined on first use
 *   trace_sites.c    ids of call sites, and the modules their addresses lie in
 *   trace_encode.h   one encoder per event kind (events.def)
 *   trace_events.c   the events of accounts/trace_events.h; marks and flush
 *   trace_rows.c     the rows of files folded away while the trace is
 *                    written, in rows chunks
 *   trace_footer.c   the footer at exit
 *
 * Shape of the writer:
 *   - shared, writable mappings of the file: its header for the trace's
 *     life, and its chunks a window (WINDOW_MIN or more) at a time, mapped
 *     when the window's first chunk is handed out and unmapped once every
 *     chunk in it has been left for another: what the process holds
 *     mapped is what it is writing, never the cap (`ulimit -v` counts
 *     every mapped byte). The file grows with the windows (fallocate, so a
 *     full disk is an error here rather than a SIGBUS in the program
 *     later), and why it could not is kept in the header (stop_reason);
 *   - each thread owns a chunk at a time and appends events to it, then
 *     stores the chunk's `used` count: that store is the commit;
 *   - targets (files, streams, cells) and sites get small ids, kept in
 *     their own records (a word each: no table to fill, no look-up); the
 *     thread that gives an id writes its definition;
 *   - all syscalls here are raw (syscall(2)): the program's own wrappers of
 *     open/close/mmap never see them, and nor do ours.
 *
 * Shared between the pieces: the trace's state (st_tw), each thread's
 * (st_tw_self) and, inline here, the steps every event takes (enter,
 * reserve, commit, leave), so that recording an event calls nothing
 * outside trace_events.c on the usual path. What one piece alone needs
 * stays static in it. */
#ifndef SEEKTRACE_TRACE_WRITER_INTERNAL_H
#define SEEKTRACE_TRACE_WRITER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "seektrace/trace_format.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_events.h"

struct st_report_file;

/* Data shared between the pieces: hidden, so that it is reached as a static
 * would be (no GOT). */
#define ST_TW_SHARED __attribute__((visibility("hidden")))

#define CHUNK_SIZE (16u << 10)
#define CHUNK_DATA (CHUNK_SIZE - ST_TRACE_CHUNK_HEADER)
/* A window is at least WINDOW_MIN, and no more than MAX_WINDOWS cover the
 * cap: a few syscalls per window (map, grow the file, unmap) cost well
 * under a nanosecond an event. */
#define WINDOW_MIN (256u << 10)
#define MAX_WINDOWS 1024u
#define MAX_PATH 4096
#define MAX_LABEL 1024
#define NO_CALL 0xffu
/* Room reserved for an event of fixed size (strings add their length). */
#define EVENT_MAX 64

enum { IDLE, CREATING, READY, FAILED };

/* Chunks [k * window_chunks, (k + 1) * window_chunks) of the file. */
struct window {
    uint8_t *base;     /* NULL until mapped, and again once all are retired */
    uint64_t retired;  /* its chunks whose thread has moved on */
};

struct st_tw_state {
    int state;
    uint64_t cap;
    struct st_trace_header *hdr; /* the header's own mapping */
    uint32_t header_size;
    dev_t dev;
    ino_t ino;
    uint64_t file_size;
    uint64_t next_chunk;
    uint64_t max_chunks;         /* chunks to hand out: the cap's, 0 once finished */
    uint64_t cap_chunks;         /* the cap's */
    uint64_t window_chunks;
    uint64_t nwindows;           /* of st_tw_windows */
    st_spin grow_lock;           /* growing the file, mapping windows */
    int finished;
};
extern struct st_tw_state st_tw ST_TW_SHARED;
/* The windows the cap is cut into (nwindows of them). */
extern struct window st_tw_windows[MAX_WINDOWS] ST_TW_SHARED;
/* trace_events.h's, declared hidden here too: every event reads it. */
extern int st_trace_on ST_TW_SHARED;

/* Where the trace goes (large, and untouched unless tracing: bulk.h). */
struct st_tw_paths {
    char dir[MAX_PATH];
    char path[MAX_PATH + 128];
    char parent_path[MAX_PATH + 128];
    char exe[MAX_PATH]; /* st_tw_exe's */
};
extern struct st_tw_paths st_tw_paths ST_TW_SHARED;

/* Bumped in a fork child: threads' chunks are stale (trace_writer.c). */
extern unsigned st_tw_epoch ST_TW_SHARED;

/* Each thread's writing state; the chunk-local part mirrors the decoder's
 * state (trace_format.h) and starts afresh with every chunk. */
struct st_tw_thread {
    unsigned epoch;
    int lost_mode;     /* no more chunks for anyone: count, don't write */
    uint8_t *chunk;
    uint8_t *pos, *end;
    uint32_t thread_seq;
    int span;          /* calls open (CALL written, END not yet) */
    int call_ended;    /* an OP recorded the end of the wrapped call that is
                        * ending: its st_trace_call_end_ writes nothing */
    int writing;       /* inside the writer (enter .. leave) */
    uint64_t chunk_index; /* the chunk's in the file */
    uint64_t sys_t0;   /* start of the syscall in progress */
    uint8_t *last_read, *last_read_end; /* the READ a reread may amend */
    int64_t last_read_result;
    /* The stream the last OP event named and its id: a stream's calls come
     * in runs, and its id never changes within a trace. */
    const struct st_stream *op_stream;
    uint32_t op_stream_id;
    /* The same for the cells events were last aimed at (by address; eight
     * sets of two ways, the last used first): a loop's calls go to a few
     * cells, so most events never look up the shared table. */
    struct {
        const struct st_tally *cell;
        uint32_t id;
    } cell_ids[16];
    /* decoder mirror */
    uint64_t last_ns;
    uint32_t target;
    uint8_t call;
    int64_t expected;
    int64_t last_size;
};
extern __thread struct st_tw_thread st_tw_self
    __attribute__((tls_model("initial-exec"))) ST_TW_SHARED;

/* ---- trace_writer.c ---------------------------------------------------- */

size_t st_tw_bounded_len(const char *s, size_t max);
void st_tw_copy_str(char *dst, size_t size, const char *src);
/* Tracing starts or stops (the wrappers' fast entries go stale). */
void st_tw_set_on(int on);
/* The header's live flag `flag` set. */
void st_tw_mark_live(uint32_t flag);
/* Recording stops, or the footer finds no room, for `reason`
 * (ST_TRACE_STOP_*): the first reason is the one kept. */
void st_tw_stop_recording(uint32_t reason);
/* An event could not be recorded: counted in the header. */
void st_tw_lost(void);
/* The process's executable (/proc/self/exe), asked once (the header's
 * EXE record and the module of its sites); "" when unknown. */
const char *st_tw_exe(void);

/* ---- trace_create.c ---------------------------------------------------- */

/* The trace exists, creating it on first use. False when recording is off
 * for good (then st_trace_on is cleared too). */
int st_tw_ensure_ready_slow(void);

/* ---- trace_chunks.c ---------------------------------------------------- */

/* Raw open and close (never seen by the program's wrappers, nor ours). */
long st_tw_open(const char *path, int flags, int mode);
void st_tw_close(long fd);
/* The trace file, reopened by name; -1 with errno (ESTALE: the name now
 * holds another file). */
long st_tw_reopen(void);
/* Why the file could not take more, from errno of the call that failed:
 * ST_TRACE_STOP_*. */
uint32_t st_tw_stop_reason(int e);
/* Where chunk idx starts in the file. */
uint64_t st_tw_chunk_offset(uint64_t idx);
/* Window w's bytes: the last one ends with the cap. */
uint64_t st_tw_window_len(uint64_t w);
/* The file's lock (growing it, mapping windows); -1 when it stays taken
 * (a fatal-signal handler interrupted its holder). */
int st_tw_lock_file(void);
/* Under the lock (or while the trace is created), on the file open as fd:
 * it holds at least `need` bytes (`ahead` where the disk allows), and with
 * map_len, *map maps map_len bytes of it from map_off. 0, or the reason
 * (ST_TRACE_STOP_*) it could not. */
uint32_t st_tw_file_at(long fd, uint64_t need, uint64_t ahead, uint64_t map_off,
                       uint64_t map_len, void **map);
/* Every mapping of the trace; the windows' table emptied with them. */
void st_tw_unmap_all(void);
/* The thread's first event of an epoch: its state reset, the trace ready
 * (1) or not to be (0). */
int st_tw_enter_epoch(struct st_tw_thread *t, unsigned epoch);
/* A new chunk for t, its header's flags `flags` (ST_TRACE_CHUNK_*), the
 * one t held left: 0, or -1 (the cap, or no room: t counts as lost from
 * then on). */
int st_tw_new_chunk(struct st_tw_thread *t, uint32_t flags);
/* A new chunk of events for t: its position, or NULL (the event is lost). */
uint8_t *st_tw_reserve_in_new_chunk(struct st_tw_thread *t);

/* ---- trace_ids.c ------------------------------------------------------- */

/* A stream's id, defining it (and its file) on first use. */
uint32_t st_tw_stream_id(struct st_tw_thread *t, struct st_stream *s);
/* The buffer byte (mode | origin << 4) of s. */
uint8_t st_tw_buf_byte(const struct st_stream *s);
/* s's buffer noted as last recorded (s->traced, as put_buffer encodes it). */
void st_tw_note_buffer(struct st_stream *s);
/* cell_id of c, kept in the thread's cache set `set`. */
uint32_t st_tw_cell_id_cached(struct st_tw_thread *t, struct st_tally *c, unsigned set);
/* Ids start again from 1 (a fork child's trace). */
void st_tw_ids_restart(void);

/* ---- trace_rows.c ------------------------------------------------------ */

/* A rows chunk (trace_format.h): where, and its used bytes' CRC-32. */
struct st_tw_rows_chunk {
    uint64_t index;
    uint32_t used, crc;
};
/* The rows chunks written so far, for the footer's ROWS record. */
size_t st_tw_rows_chunks(const struct st_tw_rows_chunk **list);
/* None yet (a fork child's trace, or after a failed exec). */
void st_tw_rows_restart(void);

/* ---- trace_footer.c ---------------------------------------------------- */

/* f as the footer's FILE record (tag, length, body) at p, or only measured
 * when p is NULL: its bytes either way. */
size_t st_tw_file_record(uint8_t *p, const struct st_report_file *f);

/* ---- trace_sites.c ----------------------------------------------------- */

/* A site's id, defining it (and the modules of its addresses) on first
 * use; 0: none. */
uint32_t st_tw_site_id(struct st_tw_thread *t, struct st_site *site);
void st_tw_sites_restart(void);

/* ---- the path every event takes (inline) ------------------------------- */

/* An object's id word (its trace_id): the epoch of the trace it names it
 * in, above the id (0 while the thread giving it has not yet published
 * it). A word of an earlier epoch is a parent's, before a fork: this trace
 * has not named the object. */
static inline uint32_t st_tw_id_of(const uint64_t *word)
{
    uint64_t w = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    return w >> 32 == __atomic_load_n(&st_tw_epoch, __ATOMIC_ACQUIRE) ? (uint32_t)w : 0;
}

/* The id in *word, given now (the next of *last) if this trace has none
 * for it yet: then *fresh is set, and the caller writes its definition.
 * Another thread giving it meanwhile is waited for. */
static inline uint32_t st_tw_claim_id(uint64_t *word, uint32_t *last, int *fresh)
{
    uint64_t mine = (uint64_t)__atomic_load_n(&st_tw_epoch, __ATOMIC_ACQUIRE) << 32;
    uint64_t w = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    *fresh = 0;
    for (;;) {
        if ((w & ~0xffffffffull) != mine) {
            if (!__atomic_compare_exchange_n(word, &w, mine, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE))
                continue;
            uint32_t id = __atomic_add_fetch(last, 1, __ATOMIC_RELAXED);
            __atomic_store_n(word, mine | id, __ATOMIC_RELEASE);
            *fresh = 1;
            return id;
        }
        if ((uint32_t)w)
            return (uint32_t)w;
        st_cpu_relax();
        w = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    }
}

/* The trace exists: the check inline, the rest (once per process) out of
 * line. */
static inline int st_tw_ensure_ready(void)
{
    return __atomic_load_n(&st_tw.state, __ATOMIC_ACQUIRE) == READY || st_tw_ensure_ready_slow();
}

/* Room for `need` bytes in the thread's chunk, or NULL (event lost). A
 * new chunk, once per CHUNK_SIZE of events, out of line. */
static inline uint8_t *st_tw_reserve(struct st_tw_thread *t, size_t need)
{
    if (__builtin_expect((size_t)(t->end - t->pos) >= need, 1)) /* no chunk: pos == end */
        return t->pos;
    return st_tw_reserve_in_new_chunk(t);
}

/* The event up to p is the chunk's: the store of `used` publishes it. */
static inline void st_tw_commit(struct st_tw_thread *t, uint8_t *p)
{
    t->pos = p;
    struct st_trace_chunk *ch = (struct st_trace_chunk *)t->chunk;
    __atomic_store_n(&ch->used, (uint32_t)(p - t->chunk - ST_TRACE_CHUNK_HEADER), __ATOMIC_RELEASE);
}

/* Entering the writer: the thread is busy (nothing a signal handler does
 * meanwhile is counted or recorded), the trace exists. t->epoch is set
 * only once the trace is ready, so that after it the fast path needs no
 * other check (the state leaves READY only through st_trace_restart,
 * which bumps the epoch). */
static inline __attribute__((always_inline)) struct st_tw_thread *st_tw_enter(void)
{
    if (!__atomic_load_n(&st_trace_on, __ATOMIC_ACQUIRE))
        return NULL;
    struct st_tw_thread *t = &st_tw_self;
    st_self.busy++;
    unsigned epoch = __atomic_load_n(&st_tw_epoch, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t->epoch != epoch, 0) && !st_tw_enter_epoch(t, epoch)) {
        st_self.busy--;
        return NULL;
    }
    t->writing++;
    return t;
}

static inline void st_tw_leave(void)
{
    st_tw_self.writing--;
    st_self.busy--;
}

/* The dt of an event at `when`: never before the thread's last event. */
static inline uint64_t st_tw_delta(struct st_tw_thread *t, uint64_t when)
{
    if (when < t->last_ns)
        when = t->last_ns;
    uint64_t d = when - t->last_ns;
    t->last_ns = when;
    return d;
}

/* The thread's cache of cell ids (st_tw_cell_id_cached): the id of c if
 * set `set` holds it, else 0. */
static inline uint32_t st_tw_cached_cell_id(const struct st_tw_thread *t, const struct st_tally *c,
                                            unsigned set)
{
    return c == t->cell_ids[set].cell       ? t->cell_ids[set].id
           : c == t->cell_ids[set + 1].cell ? t->cell_ids[set + 1].id
                                            : 0;
}

#endif
