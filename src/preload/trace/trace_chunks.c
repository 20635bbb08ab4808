/* trace_chunks.c — the trace file as the writer holds it: reopened by name
 * when needed (no descriptor kept), grown ahead of the writing, mapped a
 * window at a time; and the chunks each thread writes into, handed out
 * from those windows and retired when the thread moves on. Also where a
 * thread's state starts afresh (its first event, or the first after a
 * fork). See trace_writer_internal.h for the shape of the whole. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_fds.h"
#include "trace_clock.h"
#include "trace_writer_internal.h"

/* ---- the file and its windows ------------------------------------------ */

long st_tw_open(const char *path, int flags, int mode)
{
    return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

void st_tw_close(long fd)
{
    syscall(SYS_close, (int)fd);
}

/* Extends fd to `to` bytes with real blocks, so that writing through the
 * mapping can never hit a full disk (SIGBUS); ftruncate where the file
 * system cannot allocate ahead. */
static int allocate(long fd, uint64_t from, uint64_t to)
{
    if (syscall(SYS_fallocate, (int)fd, 0, (off_t)from, (off_t)(to - from)) == 0)
        return 0;
    if (errno == EOPNOTSUPP || errno == ENOSYS)
        return syscall(SYS_ftruncate, (int)fd, (off_t)to) == 0 ? 0 : -1;
    return -1;
}

/* Extends fd from `from` to `to` bytes; 0 or -1, errno. Past RLIMIT_FSIZE
 * both raise SIGXFSZ, whose default action kills the program: blocked
 * meanwhile, and discarded when ours (own_fds.h); the growth fails with
 * EFBIG instead. */
static int extend(long fd, uint64_t from, uint64_t to)
{
    if (to <= from)
        return 0;
    struct st_sigblock blocked;
    st_lifecycle_block_signals(&blocked);
    int r = allocate(fd, from, to);
    int e = errno;
    st_lifecycle_unblock_signals(&blocked);
    errno = e;
    return r;
}

uint32_t st_tw_stop_reason(int e)
{
    switch (e) {
    case ENOSPC:
    case EDQUOT:
        return ST_TRACE_STOP_NO_SPACE;
    case EFBIG:
        return ST_TRACE_STOP_FILE_SIZE_LIMIT;
    case ENOMEM:
        return ST_TRACE_STOP_NO_MEMORY;
    case ENOENT:
    case ESTALE: /* st_tw_reopen(): another file under the name */
        return ST_TRACE_STOP_FILE_GONE;
    default:
        return ST_TRACE_STOP_IO_ERROR;
    }
}

/* The trace file, reopened by name (we keep no descriptor the program
 * could close or dup2 over); -1 with errno ESTALE when the name now holds
 * another file. */
long st_tw_reopen(void)
{
    long fd = st_tw_open(st_tw_paths.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 && (syscall(SYS_fstat, (int)fd, &st) != 0 || st.st_dev != st_tw.dev ||
                    st.st_ino != st_tw.ino)) {
        st_tw_close(fd);
        errno = ESTALE;
        return -1;
    }
    return fd;
}

uint64_t st_tw_chunk_offset(uint64_t idx)
{
    return st_tw.header_size + idx * CHUNK_SIZE;
}

uint64_t st_tw_window_len(uint64_t w)
{
    uint64_t left = st_tw.cap_chunks - w * st_tw.window_chunks;
    return (left < st_tw.window_chunks ? left : st_tw.window_chunks) * CHUNK_SIZE;
}

/* Bounded: a fatal-signal handler finishing the trace may have interrupted
 * the very thread that holds the lock. */
int st_tw_lock_file(void)
{
    for (int spins = 0; !st_spin_trylock(&st_tw.grow_lock); spins++) {
        if (spins > (1 << 24))
            return -1;
        st_cpu_relax();
    }
    return 0;
}

uint32_t st_tw_file_at(long fd, uint64_t need, uint64_t ahead, uint64_t map_off,
                       uint64_t map_len, void **map)
{
    uint32_t reason = ST_TRACE_STOP_NONE;
    uint64_t size = st_tw.file_size;
    if (need > size) {
        if (ahead < need)
            ahead = need;
        if (extend(fd, size, ahead) == 0)
            size = ahead;
        else if (ahead > need && extend(fd, size, need) == 0)
            size = need;
        else
            reason = st_tw_stop_reason(errno);
        __atomic_store_n(&st_tw.file_size, size, __ATOMIC_RELEASE);
    }
    if (!reason && map_len) {
        void *m = (void *)syscall(SYS_mmap, NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                                  (int)fd, (off_t)map_off);
        if (m == MAP_FAILED)
            reason = st_tw_stop_reason(errno);
        else
            *map = m;
    }
    return reason;
}

/* st_tw_file_at on the file reopened by name, under the lock. */
static uint32_t file_locked(uint64_t need, uint64_t ahead, uint64_t map_off, uint64_t map_len,
                            void **map)
{
    long fd = st_tw_reopen();
    if (fd < 0)
        return st_tw_stop_reason(errno);
    uint32_t reason = st_tw_file_at(fd, need, ahead, map_off, map_len, map);
    st_tw_close(fd);
    return reason;
}

/* Chunk idx, its window mapped and the file grown to hold it; NULL when
 * that failed (stop_reason says why). */
static uint8_t *reach_chunk(uint64_t idx)
{
    uint64_t w = idx / st_tw.window_chunks, end = st_tw_chunk_offset(idx) + CHUNK_SIZE;
    struct window *win = &st_tw_windows[w];
    uint8_t *base = __atomic_load_n(&win->base, __ATOMIC_ACQUIRE);
    if (!base || end > __atomic_load_n(&st_tw.file_size, __ATOMIC_ACQUIRE)) {
        if (st_tw_lock_file() != 0) {
            st_tw_stop_recording(ST_TRACE_STOP_IO_ERROR);
            return NULL;
        }
        int saved = errno;
        uint64_t start = st_tw_chunk_offset(w * st_tw.window_chunks), len = st_tw_window_len(w);
        void *map = NULL;
        base = win->base;
        uint32_t reason = file_locked(end, start + len, start, base ? 0 : len, &map);
        if (!reason && !base)
            __atomic_store_n(&win->base, base = map, __ATOMIC_RELEASE);
        errno = saved;
        st_spin_unlock(&st_tw.grow_lock);
        if (reason) {
            st_tw_stop_recording(reason);
            return NULL;
        }
    }
    return base + (idx % st_tw.window_chunks) * CHUNK_SIZE;
}

/* The thread has left chunk idx for another. Once every chunk of a window
 * has been left, nobody writes there again: the window is unmapped. */
static void retire(uint64_t idx)
{
    uint64_t w = idx / st_tw.window_chunks;
    struct window *win = &st_tw_windows[w];
    if (__atomic_add_fetch(&win->retired, 1, __ATOMIC_ACQ_REL) * CHUNK_SIZE != st_tw_window_len(w))
        return;
    uint8_t *base = __atomic_exchange_n(&win->base, NULL, __ATOMIC_ACQ_REL);
    if (base)
        syscall(SYS_munmap, base, st_tw_window_len(w));
}

/* Every mapping of the trace; the windows' table emptied with them. */
void st_tw_unmap_all(void)
{
    for (uint64_t w = 0; w < st_tw.nwindows; w++)
        if (st_tw_windows[w].base)
            syscall(SYS_munmap, st_tw_windows[w].base, st_tw_window_len(w));
    if (st_tw.hdr)
        syscall(SYS_munmap, st_tw.hdr, st_tw.header_size);
    memset(st_tw_windows, 0, st_tw.nwindows * sizeof *st_tw_windows);
    st_tw.hdr = NULL;
    st_tw.nwindows = 0;
}

/* ---- chunks ---------------------------------------------------------- */

static void reset_chunk_state(struct st_tw_thread *t, uint64_t base_ns)
{
    t->last_ns = base_ns;
    t->target = 0;
    t->call = NO_CALL;
    t->expected = -1;
    t->last_size = 0;
    t->last_read = NULL;
}

int st_tw_new_chunk(struct st_tw_thread *t, uint32_t flags)
{
    if (t->lost_mode)
        return -1;
    uint64_t idx = __atomic_fetch_add(&st_tw.next_chunk, 1, __ATOMIC_ACQ_REL);
    if (idx >= __atomic_load_n(&st_tw.max_chunks, __ATOMIC_ACQUIRE)) {
        /* The cap, or the trace was finished (max_chunks is then 0). */
        t->lost_mode = 1;
        if (!__atomic_load_n(&st_tw.finished, __ATOMIC_ACQUIRE)) {
            st_tw_stop_recording(ST_TRACE_STOP_CAP);
            st_tw_mark_live(ST_TRACE_LIVE_TRUNCATED);
        }
        return -1;
    }
    uint8_t *c = reach_chunk(idx);
    if (!c) {
        /* The disk is full, the file is gone...: stop like at the cap. */
        t->lost_mode = 1;
        st_tw_mark_live(ST_TRACE_LIVE_TRUNCATED);
        return -1;
    }
    if (t->chunk)
        retire(t->chunk_index);
    struct st_trace_chunk *ch = (struct st_trace_chunk *)c;
    /* The clock itself, re-anchoring the TSC; never before the thread's
     * last event (its TSC time may have run a little ahead). */
    uint64_t base = st_trace_clock_anchor();
    if (base < t->last_ns)
        base = t->last_ns;
    ch->tid = (uint32_t)syscall(SYS_gettid);
    ch->index = (uint32_t)idx;
    ch->thread_seq = t->thread_seq++;
    ch->used = 0;
    ch->flags = flags;
    ch->base_ns = base;
    __atomic_store_n(&ch->magic, ST_TRACE_CHUNK_MAGIC, __ATOMIC_RELEASE);
    uint64_t cur = __atomic_load_n(&st_tw.hdr->chunks, __ATOMIC_RELAXED);
    while (cur < idx + 1 &&
           !__atomic_compare_exchange_n(&st_tw.hdr->chunks, &cur, idx + 1, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    t->chunk = c;
    t->chunk_index = idx;
    t->pos = c + ST_TRACE_CHUNK_HEADER;
    t->end = c + CHUNK_SIZE;
    reset_chunk_state(t, base);
    return 0;
}

/* st_tw_reserve's rare half, once per CHUNK_SIZE of events. */
uint8_t *st_tw_reserve_in_new_chunk(struct st_tw_thread *t)
{
    return st_tw_new_chunk(t, 0) == 0 ? t->pos : NULL;
}

/* A thread's first event of an epoch (the first ever, or the first in a
 * fork child): its chunk state is stale, and the trace may not exist yet.
 * t->epoch is set only once the trace is ready, so that after it the
 * fast path needs no other check (the state leaves READY only through
 * st_trace_restart, which bumps the epoch). */
int st_tw_enter_epoch(struct st_tw_thread *t, unsigned epoch)
{
    t->chunk = t->pos = t->end = NULL;
    t->lost_mode = 0;
    t->span = 0;
    t->call_ended = 0;
    t->thread_seq = 0;
    t->sys_t0 = 0;
    t->last_read = NULL;
    t->op_stream = NULL;
    memset(t->cell_ids, 0, sizeof t->cell_ids);
    if (!st_tw_ensure_ready())
        return 0;
    t->epoch = epoch;
    return 1;
}
