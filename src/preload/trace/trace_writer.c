/* trace_writer.c — see trace_writer.h; the format is in
 * include/seektrace/trace_format.h.
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
 *   - targets (streams, files) and sites get small ids from lock-free
 *     open-addressing tables; the thread that inserts an id writes its
 *     definition;
 *   - all syscalls here are raw (syscall(2)): the program's own wrappers of
 *     open/close/mmap never see them, and nor do ours. */
#define _GNU_SOURCE 1
#include "trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "bulk.h"
#include "config.h"
#include "files.h"
#include "own_fds.h"
#include "proc_self.h"
#include "cells.h"
#include "report_model.h"
#include "sites.h"
#include "staleness.h"
#include "seektrace/trace_format.h"
#include "streams.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_clock.h"
#include "trace_codec.h"
#include "units.h"
#include "warn.h"

_Static_assert(sizeof(struct st_trace_header) == ST_TRACE_FIXED_HEADER, "header layout");
_Static_assert(sizeof(struct st_trace_chunk) == ST_TRACE_CHUNK_HEADER, "chunk header layout");
_Static_assert(ST_CALL_COUNT < 255, "call kinds fit a byte");
_Static_assert(offsetof(struct st_trace_header, stop_reason) == 36, "stop_reason at byte 36");

#define CHUNK_SIZE (16u << 10)
#define CHUNK_DATA (CHUNK_SIZE - ST_TRACE_CHUNK_HEADER)
/* A window is at least WINDOW_MIN, and no more than MAX_WINDOWS cover the
 * cap: a few syscalls per window (map, grow the file, unmap) cost well
 * under a nanosecond an event. */
#define WINDOW_MIN (256u << 10)
#define MAX_WINDOWS 1024u
#define INFO_MAX (60u << 10)
#define TARGETS (1u << 15)
#define SITES (1u << 14)
#define MAX_MODULES 1024
#define MAX_PATH 4096
#define MAX_LABEL 1024
#define NO_CALL 0xffu

enum { IDLE, CREATING, READY, FAILED };

int st_trace_on;

struct target {
    uintptr_t key;      /* object pointer | TAG_*; 0 free */
    uint32_t id;        /* 0 until published */
    uint32_t buf_mode;  /* mode | origin << 4 as last recorded */
    uint64_t buf_size, buf_requested;
    const char *caveat;
};

struct site {
    uintptr_t addr; /* the struct st_site */
    uint32_t id;
};

/* Chunks [k * window_chunks, (k + 1) * window_chunks) of the file. */
struct window {
    uint8_t *base;     /* NULL until mapped, and again once all are retired */
    uint64_t retired;  /* its chunks whose thread has moved on */
};

/* Large, and untouched unless tracing (bulk.h). */
static struct {
    char dir[MAX_PATH];
    char path[MAX_PATH + 128];
    char parent_path[MAX_PATH + 128];
    struct { uintptr_t start, end; } modules[MAX_MODULES];
} big ST_BULK;

static struct {
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
    uint64_t nwindows;
    struct window *windows;
    void *tables;                /* one mapping: targets, sites, windows */
    size_t tables_len;
    st_spin grow_lock;           /* growing the file, mapping windows */
    struct target *targets;
    struct site *sites;
    uint32_t next_id;
    uint32_t next_site;
    st_spin module_lock;
    unsigned nmodules;
    int argc;
    const char *const *argv;
    const char *inferred;
    const char *libc_version;
    int finished;
} g;

/* Bumped in a fork child: threads' chunks are stale. Apart from g, whose
 * 29 KB then stay in .bss (no initialised data to map and fault in); 1, so
 * that a thread's zeroed state starts stale too. */
static unsigned trace_epoch = 1;

/* Each thread's writing state; the chunk-local part mirrors the decoder's
 * state (trace_format.h) and starts afresh with every chunk. */
struct tw {
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

static __thread struct tw tw __attribute__((tls_model("initial-exec")));

/* ---- small helpers --------------------------------------------------- */

static long sys_open(const char *path, int flags, int mode)
{
    return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static void sys_close(long fd)
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

/* Past RLIMIT_FSIZE both raise SIGXFSZ, whose default action kills the
 * program: blocked meanwhile, and discarded when ours (own_fds.h); the
 * growth fails with EFBIG instead. */
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

static size_t bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    size_t n = bounded_len(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void mark_live(uint32_t flag)
{
    if (g.hdr)
        __atomic_fetch_or(&g.hdr->live_flags, flag, __ATOMIC_RELEASE);
}

/* Why the file could not take more: errno of the call that failed. */
static uint32_t stop_reason_of(int e)
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
    case ESTALE: /* reopen(): another file under the name */
        return ST_TRACE_STOP_FILE_GONE;
    default:
        return ST_TRACE_STOP_IO_ERROR;
    }
}

/* Recording stops, or the footer finds no room, for `reason`: the first
 * reason is the one kept. */
static void stop_recording(uint32_t reason)
{
    uint32_t none = ST_TRACE_STOP_NONE;
    if (g.hdr)
        __atomic_compare_exchange_n(&g.hdr->stop_reason, &none, reason, 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED);
}

static void lost(void)
{
    /* After the footer nothing counts: the accounts were written whole. */
    if (g.hdr && !__atomic_load_n(&g.finished, __ATOMIC_ACQUIRE)) {
        __atomic_fetch_add(&g.hdr->events_lost, 1, __ATOMIC_RELAXED);
        mark_live(ST_TRACE_LIVE_LOST);
    }
}

/* ---- the file and its windows ------------------------------------------ */

/* The trace file, reopened by name (we keep no descriptor the program
 * could close or dup2 over); -1 with errno ESTALE when the name now holds
 * another file. */
static long reopen(void)
{
    long fd = sys_open(big.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 &&
        (syscall(SYS_fstat, (int)fd, &st) != 0 || st.st_dev != g.dev || st.st_ino != g.ino)) {
        sys_close(fd);
        errno = ESTALE;
        return -1;
    }
    return fd;
}

static uint64_t chunk_offset(uint64_t idx)
{
    return g.header_size + idx * CHUNK_SIZE;
}

/* Window w's bytes: the last one ends with the cap. */
static uint64_t window_len(uint64_t w)
{
    uint64_t left = g.cap_chunks - w * g.window_chunks;
    return (left < g.window_chunks ? left : g.window_chunks) * CHUNK_SIZE;
}

/* Bounded: a fatal-signal handler finishing the trace may have interrupted
 * the very thread that holds the lock. */
static int lock_file(void)
{
    for (int spins = 0; !st_spin_trylock(&g.grow_lock); spins++) {
        if (spins > (1 << 24))
            return -1;
        st_cpu_relax();
    }
    return 0;
}

/* Under the lock: the file holds at least `need` bytes (`ahead` where the
 * disk allows: fewer calls), and with map_len, *map maps map_len bytes of
 * it from map_off. 0, or the reason (ST_TRACE_STOP_*) it could not. */
static uint32_t file_locked(uint64_t need, uint64_t ahead, uint64_t map_off, uint64_t map_len,
                            void **map)
{
    long fd = reopen();
    if (fd < 0)
        return stop_reason_of(errno);
    uint32_t reason = ST_TRACE_STOP_NONE;
    uint64_t size = g.file_size;
    if (need > size) {
        if (ahead < need)
            ahead = need;
        if (extend(fd, size, ahead) == 0)
            size = ahead;
        else if (ahead > need && extend(fd, size, need) == 0)
            size = need;
        else
            reason = stop_reason_of(errno);
        __atomic_store_n(&g.file_size, size, __ATOMIC_RELEASE);
    }
    if (!reason && map_len) {
        void *m = (void *)syscall(SYS_mmap, NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                                  (int)fd, (off_t)map_off);
        if (m == MAP_FAILED)
            reason = stop_reason_of(errno);
        else
            *map = m;
    }
    sys_close(fd);
    return reason;
}

/* Chunk idx, its window mapped and the file grown to hold it; NULL when
 * that failed (stop_reason says why). */
static uint8_t *reach_chunk(uint64_t idx)
{
    uint64_t w = idx / g.window_chunks, end = chunk_offset(idx) + CHUNK_SIZE;
    struct window *win = &g.windows[w];
    uint8_t *base = __atomic_load_n(&win->base, __ATOMIC_ACQUIRE);
    if (!base || end > __atomic_load_n(&g.file_size, __ATOMIC_ACQUIRE)) {
        if (lock_file() != 0) {
            stop_recording(ST_TRACE_STOP_IO_ERROR);
            return NULL;
        }
        int saved = errno;
        uint64_t start = chunk_offset(w * g.window_chunks), len = window_len(w);
        void *map = NULL;
        base = win->base;
        uint32_t reason = file_locked(end, start + len, start, base ? 0 : len, &map);
        if (!reason && !base)
            __atomic_store_n(&win->base, base = map, __ATOMIC_RELEASE);
        errno = saved;
        st_spin_unlock(&g.grow_lock);
        if (reason) {
            stop_recording(reason);
            return NULL;
        }
    }
    return base + (idx % g.window_chunks) * CHUNK_SIZE;
}

/* The thread has left chunk idx for another. Once every chunk of a window
 * has been left, nobody writes there again: the window is unmapped. */
static void retire(uint64_t idx)
{
    uint64_t w = idx / g.window_chunks;
    struct window *win = &g.windows[w];
    if (__atomic_add_fetch(&win->retired, 1, __ATOMIC_ACQ_REL) * CHUNK_SIZE != window_len(w))
        return;
    uint8_t *base = __atomic_exchange_n(&win->base, NULL, __ATOMIC_ACQ_REL);
    if (base)
        syscall(SYS_munmap, base, window_len(w));
}

/* Every mapping of the trace; the tables with them. */
static void unmap_all(void)
{
    for (uint64_t w = 0; g.windows && w < g.nwindows; w++)
        if (g.windows[w].base)
            syscall(SYS_munmap, g.windows[w].base, window_len(w));
    if (g.hdr)
        syscall(SYS_munmap, g.hdr, g.header_size);
    if (g.tables)
        syscall(SYS_munmap, g.tables, g.tables_len);
    g.hdr = NULL;
    g.tables = NULL;
    g.windows = NULL;
    g.targets = NULL;
    g.sites = NULL;
}

/* ---- settings and life cycle ----------------------------------------- */

#define DEFAULT_CAP (256ull << 20)
#define MIN_CAP (64ull << 10)

void st_trace_config_load(void)
{
    st_config.trace_dir = NULL;
    st_config.trace_max = DEFAULT_CAP;
    const char *v = getenv("SEEKTRACE_TRACE_MAX");
    uint64_t size;
    if (v && *v) {
        if (st_parse_size(v, &size) != 0 || size < MIN_CAP)
            st_warn("SEEKTRACE_TRACE_MAX=%s is not a size of at least 64k; using 256M", v);
        else
            st_config.trace_max = size;
    }
    st_config.trace_tsc = 1;
    v = getenv("SEEKTRACE_TRACE_CLOCK");
    if (v && *v) {
        if (strcmp(v, "monotonic") == 0)
            st_config.trace_tsc = 0;
        else if (strcmp(v, "auto") != 0)
            st_warn("SEEKTRACE_TRACE_CLOCK=%s is not 'auto' or 'monotonic'; using auto", v);
    }
    v = getenv("SEEKTRACE_TRACE");
    if (!v || !*v)
        return;
    char dir[MAX_PATH];
    size_t n = 0;
    if (v[0] != '/') {
        /* Programs chdir; the directory is fixed now. */
        if (syscall(SYS_getcwd, dir, sizeof dir) <= 0) {
            st_warn("SEEKTRACE_TRACE=%s is relative and the working directory is unknown; "
                    "not recording", v);
            return;
        }
        n = strlen(dir);
        if (n > 1)
            dir[n++] = '/';
        else
            n = 1;
    }
    size_t len = strlen(v);
    if (n + len >= sizeof dir - 128) {
        st_warn("SEEKTRACE_TRACE is too long a path; not recording");
        return;
    }
    memcpy(dir + n, v, len + 1);
    st_config.trace_dir = st_strdup(dir);
}

/* Tracing starts or stops: the wrappers' fast entries, which know whether
 * their stream's calls are traced (wrap_stdio.c), go stale. */
static void set_trace_on(int on)
{
    __atomic_store_n(&st_trace_on, on, __ATOMIC_RELEASE);
    st_staleness_streams_changed();
}

void st_trace_init(void)
{
    if (!st_config.trace_dir)
        return;
    copy_str(big.dir, sizeof big.dir, st_config.trace_dir);
    g.cap = st_config.trace_max;
    st_trace_clock_init(st_config.trace_tsc);
    set_trace_on(1);
}

void st_trace_set_argv(int argc, const char *const *argv)
{
    g.argv = argv;
    g.argc = argc;
}

void st_trace_set_capture(const char *reason_if_inferred, const char *libc_version)
{
    g.inferred = reason_if_inferred;
    g.libc_version = libc_version;
}

void st_trace_restart(void)
{
    /* After fork the mappings are shared with the parent: never write to
     * them again. After a failed exec the old trace is finished. Either way
     * the next event starts a trace of its own. */
    if (g.state == READY)
        copy_str(big.parent_path, sizeof big.parent_path, big.path);
    unmap_all();
    g.next_id = 0;
    g.next_site = 0;
    g.nmodules = 0;
    g.next_chunk = 0;
    g.file_size = 0;
    g.grow_lock.locked = 0;
    g.module_lock.locked = 0;
    g.finished = 0;
    __atomic_add_fetch(&trace_epoch, 1, __ATOMIC_ACQ_REL);
    if (g.state != FAILED && st_config.trace_dir) {
        g.state = IDLE;
        set_trace_on(1);
    }
}

/* ---- creating the file ----------------------------------------------- */

static uint8_t info_buf[INFO_MAX] ST_BULK;
static char scratch_path[MAX_PATH + 128] ST_BULK;

static uint8_t *info_record(uint8_t *p, unsigned tag, const void *data, size_t len)
{
    if ((size_t)(p - info_buf) + len + 2 * ST_VARINT_MAX > sizeof info_buf)
        return p; /* does not fit: left out rather than cut */
    p = st_put_u(p, tag);
    p = st_put_u(p, len);
    memcpy(p, data, len);
    return p + len;
}

/* argv as NUL-terminated strings; /proc/self/cmdline when our constructor
 * has not run yet (another library's constructor made the first call). */
static size_t argv_bytes(char *out, size_t size)
{
    size_t n = 0;
    if (g.argv) {
        for (int i = 0; i < g.argc; i++) {
            size_t len = bounded_len(g.argv[i], size);
            if (n + len + 1 > size)
                break;
            memcpy(out + n, g.argv[i], len);
            n += len;
            out[n++] = '\0';
        }
        return n;
    }
    long fd = sys_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    long r;
    while (n < size && (r = syscall(SYS_read, (int)fd, out + n, size - n)) > 0)
        n += (size_t)r;
    sys_close(fd);
    if (n == size) /* cut: end on a whole argument */
        while (n > 0 && out[n - 1] != '\0')
            n--;
    return n;
}

static size_t build_info(void)
{
    static char tmp[32768] ST_BULK;
    uint8_t *p = info_buf;
    size_t n = 0;
    for (int k = 0; k < ST_CALL_COUNT; k++) {
        const char *name = st_call_name((enum st_call)k);
        size_t len = strlen(name) + 1;
        memcpy(tmp + n, name, len);
        n += len;
    }
    p = info_record(p, ST_TRACE_INFO_CALLS, tmp, n);
    n = argv_bytes(tmp, sizeof tmp);
    p = info_record(p, ST_TRACE_INFO_ARGV, tmp, n);
    long len = st_proc_readlink("exe", tmp, MAX_PATH - 1);
    if (len > 0)
        p = info_record(p, ST_TRACE_INFO_EXE, tmp, (size_t)len);
    const char *capture = g.inferred ? "inferred" : "exact";
    p = info_record(p, ST_TRACE_INFO_CAPTURE, capture, strlen(capture));
    if (g.inferred)
        p = info_record(p, ST_TRACE_INFO_CAPTURE_REASON, g.inferred, bounded_len(g.inferred, 512));
    if (g.libc_version)
        p = info_record(p, ST_TRACE_INFO_LIBC_VERSION, g.libc_version,
                        bounded_len(g.libc_version, 64));
    struct utsname u;
    if (syscall(SYS_uname, &u) == 0)
        p = info_record(p, ST_TRACE_INFO_HOST, u.nodename, bounded_len(u.nodename, sizeof u.nodename));
    if (big.parent_path[0])
        p = info_record(p, ST_TRACE_INFO_PARENT_TRACE, big.parent_path, strlen(big.parent_path));
    return (size_t)(p - info_buf);
}

/* <name>: argv[0]'s basename, only [A-Za-z0-9._-], at most 40 bytes. */
static void process_name(char *out, size_t size)
{
    const char *a0 = g.argv && g.argc > 0 ? g.argv[0] : NULL;
    char cmd[256];
    if (!a0) {
        long fd = sys_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
        long r = fd >= 0 ? syscall(SYS_read, (int)fd, cmd, sizeof cmd - 1) : -1;
        if (fd >= 0)
            sys_close(fd);
        cmd[r > 0 ? r : 0] = '\0';
        a0 = cmd;
    }
    const char *base = a0;
    for (const char *q = a0; *q; q++)
        if (*q == '/' && q[1])
            base = q + 1;
    size_t n = 0;
    for (const char *q = base; *q && *q != '/' && n + 1 < size && n < 40; q++) {
        char c = *q;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        if (!ok)
            c = '_';
        out[n++] = c;
    }
    if (n == 0 || out[0] == '.')
        n = (size_t)snprintf(out, size, "process");
    out[n] = '\0';
}

static long create_exclusive(long pid)
{
    char name[48];
    process_name(name, sizeof name);
    int made_dir = 0;
    for (int k = 0; k < 100; k++) {
        if (k == 0)
            snprintf(scratch_path, sizeof scratch_path, "%s/%s.%ld%s", big.dir, name, pid,
                     ST_TRACE_SUFFIX);
        else
            snprintf(scratch_path, sizeof scratch_path, "%s/%s.%ld.%d%s", big.dir, name, pid, k,
                     ST_TRACE_SUFFIX);
        long fd = sys_open(scratch_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        if (errno == ENOENT && !made_dir) {
            made_dir = 1;
            syscall(SYS_mkdirat, AT_FDCWD, big.dir, 0700);
            k--;
            continue;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* The id tables and the windows' table, in one mapping of their own so
 * that a fork child's trace gives its parent's back (st_trace_restart). */
static int map_tables(void)
{
    size_t targets = TARGETS * sizeof *g.targets, sites = SITES * sizeof *g.sites;
    size_t len = targets + sites + g.nwindows * sizeof *g.windows;
    len = (len + 4095) & ~(size_t)4095;
    void *p = (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    g.tables = p;
    g.tables_len = len;
    g.targets = p;
    g.sites = (struct site *)((char *)p + targets);
    g.windows = (struct window *)((char *)p + targets + sites);
    return 0;
}

static int create_file(void)
{
    long pid = syscall(SYS_getpid);
    long fd = create_exclusive(pid);
    if (fd < 0) {
        st_warn("cannot create a trace file in %s (%s); not recording", big.dir, strerror(errno));
        return -1;
    }
    copy_str(big.path, sizeof big.path, scratch_path);
    size_t info = build_info();
    uint32_t header_size = (uint32_t)((ST_TRACE_FIXED_HEADER + info + 4095) & ~(size_t)4095);
    uint64_t cap = g.cap - g.cap % CHUNK_SIZE;
    if (cap < 4 * CHUNK_SIZE)
        cap = 4 * CHUNK_SIZE;
    g.cap_chunks = cap / CHUNK_SIZE;
    g.window_chunks = (g.cap_chunks + MAX_WINDOWS - 1) / MAX_WINDOWS;
    if (g.window_chunks < WINDOW_MIN / CHUNK_SIZE)
        g.window_chunks = WINDOW_MIN / CHUNK_SIZE;
    g.nwindows = (g.cap_chunks + g.window_chunks - 1) / g.window_chunks;
    /* Only the header now: chunks are mapped a window at a time. */
    void *map = MAP_FAILED;
    struct stat st;
    if (extend(fd, 0, header_size) == 0 && syscall(SYS_fstat, (int)fd, &st) == 0)
        map = (void *)syscall(SYS_mmap, NULL, header_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                              (int)fd, 0);
    if (map == MAP_FAILED) {
        int e = errno;
        sys_close(fd);
        syscall(SYS_unlinkat, AT_FDCWD, big.path, 0);
        st_warn("cannot set up the trace file %s (%s); not recording", big.path, strerror(e));
        return -1;
    }
    sys_close(fd);
    if (map_tables() != 0) {
        syscall(SYS_munmap, map, header_size);
        syscall(SYS_unlinkat, AT_FDCWD, big.path, 0);
        st_warn("out of memory for the trace tables; not recording");
        return -1;
    }
    g.dev = st.st_dev;
    g.ino = st.st_ino;
    g.file_size = header_size;
    g.header_size = header_size;
    g.max_chunks = g.cap_chunks;
    g.next_chunk = 0;

    struct st_trace_header *h = map;
    memcpy(h->magic, ST_TRACE_MAGIC, ST_TRACE_MAGIC_LEN);
    h->endian = ST_TRACE_ENDIAN;
    h->version_major = ST_TRACE_VERSION_MAJOR;
    h->version_minor = ST_TRACE_VERSION_MINOR;
    h->header_size = header_size;
    h->chunk_size = CHUNK_SIZE;
    h->info_size = (uint32_t)info;
    h->clock = ST_TRACE_CLOCK_MONOTONIC;
    h->flags = g.inferred ? ST_TRACE_FLAG_INFERRED : 0;
    h->pid = pid;
    h->ppid = syscall(SYS_getppid);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    h->start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    h->start_ns = st_trace_clock_anchor();
    h->cap_bytes = cap;
    h->state = ST_TRACE_STATE_RECORDING;
    memcpy((uint8_t *)map + ST_TRACE_FIXED_HEADER, info_buf, info);
    g.hdr = h;
    return 0;
}

/* The trace exists, creating it on first use. False when recording is off
 * for good (then st_trace_on is cleared too). The check inline, the rest
 * (once per process) out of line. */
__attribute__((noinline)) static int ensure_ready_slow(void)
{
    int s = __atomic_load_n(&g.state, __ATOMIC_ACQUIRE);
    if (s == IDLE && __atomic_compare_exchange_n(&g.state, &s, CREATING, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE)) {
        int saved = errno;
        int ok = create_file() == 0;
        errno = saved;
        __atomic_store_n(&g.state, ok ? READY : FAILED, __ATOMIC_RELEASE);
        if (!ok)
            set_trace_on(0);
        return ok;
    }
    while ((s = __atomic_load_n(&g.state, __ATOMIC_ACQUIRE)) == CREATING)
        st_cpu_relax();
    return s == READY;
}

static inline int ensure_ready(void)
{
    return __atomic_load_n(&g.state, __ATOMIC_ACQUIRE) == READY || ensure_ready_slow();
}

/* ---- chunks ---------------------------------------------------------- */

static void reset_chunk_state(struct tw *t, uint64_t base_ns)
{
    t->last_ns = base_ns;
    t->target = 0;
    t->call = NO_CALL;
    t->expected = -1;
    t->last_size = 0;
    t->last_read = NULL;
}

static int new_chunk(struct tw *t)
{
    if (t->lost_mode)
        return -1;
    uint64_t idx = __atomic_fetch_add(&g.next_chunk, 1, __ATOMIC_ACQ_REL);
    if (idx >= __atomic_load_n(&g.max_chunks, __ATOMIC_ACQUIRE)) {
        /* The cap, or the trace was finished (max_chunks is then 0). */
        t->lost_mode = 1;
        if (!__atomic_load_n(&g.finished, __ATOMIC_ACQUIRE)) {
            stop_recording(ST_TRACE_STOP_CAP);
            mark_live(ST_TRACE_LIVE_TRUNCATED);
        }
        return -1;
    }
    uint8_t *c = reach_chunk(idx);
    if (!c) {
        /* The disk is full, the file is gone...: stop like at the cap. */
        t->lost_mode = 1;
        mark_live(ST_TRACE_LIVE_TRUNCATED);
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
    ch->flags = 0;
    ch->base_ns = base;
    __atomic_store_n(&ch->magic, ST_TRACE_CHUNK_MAGIC, __ATOMIC_RELEASE);
    uint64_t cur = __atomic_load_n(&g.hdr->chunks, __ATOMIC_RELAXED);
    while (cur < idx + 1 &&
           !__atomic_compare_exchange_n(&g.hdr->chunks, &cur, idx + 1, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    t->chunk = c;
    t->chunk_index = idx;
    t->pos = c + ST_TRACE_CHUNK_HEADER;
    t->end = c + CHUNK_SIZE;
    reset_chunk_state(t, base);
    return 0;
}

/* Room for `need` bytes in the thread's chunk, or NULL (event lost). A
 * new chunk, once per CHUNK_SIZE of events, out of line. */
__attribute__((noinline)) static uint8_t *reserve_in_new_chunk(struct tw *t)
{
    return new_chunk(t) == 0 ? t->pos : NULL;
}

static inline uint8_t *reserve(struct tw *t, size_t need)
{
    if (__builtin_expect((size_t)(t->end - t->pos) >= need, 1)) /* no chunk: pos == end */
        return t->pos;
    return reserve_in_new_chunk(t);
}

static void commit(struct tw *t, uint8_t *p)
{
    t->pos = p;
    struct st_trace_chunk *ch = (struct st_trace_chunk *)t->chunk;
    __atomic_store_n(&ch->used, (uint32_t)(p - t->chunk - ST_TRACE_CHUNK_HEADER), __ATOMIC_RELEASE);
}

/* A thread's first event of an epoch (the first ever, or the first in a
 * fork child): its chunk state is stale, and the trace may not exist yet.
 * t->epoch is set only once the trace is ready, so that after it the
 * fast path needs no other check (the state leaves READY only through
 * st_trace_restart, which bumps the epoch). */
__attribute__((noinline)) static int enter_epoch(struct tw *t, unsigned epoch)
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
    if (!ensure_ready())
        return 0;
    t->epoch = epoch;
    return 1;
}

/* Entering the writer: the thread is busy (nothing a signal handler does
 * meanwhile is counted or recorded), the trace exists. */
static inline __attribute__((always_inline)) struct tw *enter(void)
{
    if (!__atomic_load_n(&st_trace_on, __ATOMIC_ACQUIRE))
        return NULL;
    struct tw *t = &tw;
    st_self.busy++;
    unsigned epoch = __atomic_load_n(&trace_epoch, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t->epoch != epoch, 0) && !enter_epoch(t, epoch)) {
        st_self.busy--;
        return NULL;
    }
    t->writing++;
    return t;
}

static void leave(void)
{
    tw.writing--;
    st_self.busy--;
}

static uint64_t delta(struct tw *t, uint64_t when)
{
    if (when < t->last_ns)
        when = t->last_ns;
    uint64_t d = when - t->last_ns;
    t->last_ns = when;
    return d;
}

static uint8_t *put_target(struct tw *t, uint8_t *p, uint32_t id)
{
    if (t->target != id) {
        *p++ = ST_EV_TARGET;
        p = st_put_u(p, id);
        t->target = id;
    }
    return p;
}

/* ---- ids --------------------------------------------------------------- */

static unsigned hash_key(uintptr_t k, unsigned mask)
{
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return (unsigned)(x >> 40) & mask;
}

/* Keys: object pointers (16-byte aligned, from the arena) with a tag in
 * the low bits. */
enum { TAG_STREAM = 1, TAG_FILE = 2, TAG_CELL = 3 };

/* The entry for key, inserted if new (*fresh set: the caller defines it).
 * NULL when the table is full. */
static struct target *target_entry(uintptr_t key, int *fresh)
{
    *fresh = 0;
    if (!g.targets)
        return NULL;
    unsigned i = hash_key(key, TARGETS - 1);
    for (unsigned n = 0; n < TARGETS; n++, i = (i + 1) & (TARGETS - 1)) {
        struct target *e = &g.targets[i];
        uintptr_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == 0) {
            uintptr_t zero = 0;
            if (__atomic_compare_exchange_n(&e->key, &zero, key, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&e->id, __atomic_add_fetch(&g.next_id, 1, __ATOMIC_RELAXED),
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
static struct target *target_find(uintptr_t key)
{
    if (!g.targets)
        return NULL;
    unsigned i = hash_key(key, TARGETS - 1);
    for (unsigned n = 0; n < TARGETS; n++, i = (i + 1) & (TARGETS - 1)) {
        struct target *e = &g.targets[i];
        uintptr_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == 0)
            return NULL;
        if (k == key)
            return __atomic_load_n(&e->id, __ATOMIC_ACQUIRE) ? e : NULL;
    }
    return NULL;
}

static uint32_t file_id(struct tw *t, const struct st_file *f)
{
    if (!f)
        return 0;
    int fresh;
    struct target *e = target_entry((uintptr_t)f | TAG_FILE, &fresh);
    if (!e)
        return 0;
    if (fresh) {
        size_t len = bounded_len(f->path, MAX_PATH);
        uint8_t *p = reserve(t, len + 3 * ST_VARINT_MAX);
        if (!p) {
            lost();
            return e->id;
        }
        *p++ = ST_EV_FILE_DEF;
        p = st_put_u(p, e->id);
        p = st_put_u(p, len);
        memcpy(p, f->path, len);
        commit(t, p + len);
    }
    return e->id;
}

static uint8_t buf_byte(const struct st_stream *s)
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

/* A stream's buffer as last recorded, and as STREAM_DEF and BUF encode it:
 * u size, u requested size, b mode|origin<<4, u len, bytes caveat. */
static void note_buffer(struct target *e, const struct st_stream *s)
{
    e->buf_size = s->buffer_size;
    e->buf_requested = s->requested_buffer_size;
    e->buf_mode = buf_byte(s);
    e->caveat = s->caveat;
}

static size_t caveat_len(const struct target *e)
{
    return e->caveat ? bounded_len(e->caveat, MAX_LABEL) : 0;
}

static uint8_t *put_buffer(uint8_t *p, const struct target *e)
{
    size_t clen = caveat_len(e);
    p = st_put_u(p, e->buf_size);
    p = st_put_u(p, e->buf_requested);
    *p++ = (uint8_t)e->buf_mode;
    p = st_put_u(p, clen);
    if (clen)
        memcpy(p, e->caveat, clen);
    return p + clen;
}

static uint32_t stream_id(struct tw *t, const struct st_stream *s)
{
    int fresh;
    struct target *e = target_entry((uintptr_t)s | TAG_STREAM, &fresh);
    if (!e)
        return 0;
    if (fresh) {
        uint32_t fid = file_id(t, s->file);
        note_buffer(e, s);
        uint8_t *p = reserve(t, 2 + 8 * ST_VARINT_MAX + caveat_len(e));
        if (!p) {
            lost();
            return e->id;
        }
        *p++ = ST_EV_STREAM_DEF;
        p = st_put_u(p, e->id);
        p = st_put_u(p, fid);
        p = st_put_s(p, s->fd);
        p = st_put_u(p, ordinal(s));
        commit(t, put_buffer(p, e));
    }
    return e->id;
}

/* A cell's owner is a file (the program's POSIX calls) or a stream. A
 * file is recognised by being one of the registered files; this walk runs
 * once per new owner. */
static uint32_t owner_id(struct tw *t, const void *owner, const struct st_file *hint_file)
{
    struct target *e = target_find((uintptr_t)owner | TAG_FILE);
    if (e)
        return e->id;
    if ((e = target_find((uintptr_t)owner | TAG_STREAM)) != NULL)
        return e->id;
    if (owner == hint_file)
        return file_id(t, hint_file);
    for (const struct st_file *f = st_files_first(); f; f = f->next_all)
        if ((const void *)f == owner)
            return file_id(t, f);
    return stream_id(t, owner);
}

/* ---- sites and modules ----------------------------------------------- */

static int module_known(uintptr_t addr)
{
    unsigned n = __atomic_load_n(&g.nmodules, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (addr >= big.modules[i].start && addr < big.modules[i].end)
            return 1;
    return 0;
}

static void emit_module(struct tw *t, uintptr_t start, uintptr_t end, uint64_t off, const char *path,
                        size_t len)
{
    uint8_t *p = reserve(t, len + 6 * ST_VARINT_MAX);
    if (!p) {
        lost();
        return;
    }
    *p++ = ST_EV_MODULE;
    p = st_put_u(p, start);
    p = st_put_u(p, end - start);
    p = st_put_u(p, off);
    p = st_put_u(p, len);
    memcpy(p, path, len);
    commit(t, p + len);
}

/* Each executable segment of a loaded object not yet known is recorded.
 * From the loader's own list: reading /proc/self/maps would show in
 * strace as the program's reads, of a file it may read itself. */
static int module_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct tw *t = arg;
    static char exe[MAX_PATH] ST_BULK; /* the process's file does not change: asked once */
    const char *path = info->dlpi_name;
    if (path[0] == '\0') {
        if (!exe[0]) {
            long n = st_proc_readlink("exe", exe, sizeof exe - 1);
            if (n <= 0)
                return 0;
            exe[n] = '\0';
        }
        path = exe;
    }
    if (path[0] != '/') /* the vdso: no file */
        return 0;
    uintptr_t page = (uintptr_t)getpagesize();
    for (int i = 0; i < info->dlpi_phnum && g.nmodules < MAX_MODULES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t at = info->dlpi_addr + ph->p_vaddr;
        uintptr_t start = at & ~(page - 1), end = (at + ph->p_memsz + page - 1) & ~(page - 1);
        if (module_known(start))
            continue;
        big.modules[g.nmodules].start = start;
        big.modules[g.nmodules].end = end;
        __atomic_store_n(&g.nmodules, g.nmodules + 1, __ATOMIC_RELEASE);
        emit_module(t, start, end, ph->p_offset & ~(uint64_t)(page - 1), path,
                    bounded_len(path, MAX_PATH));
    }
    return 0;
}

static void scan_modules(struct tw *t)
{
    dl_iterate_phdr(module_segments, t);
}

static uint32_t site_id(struct tw *t, const struct st_site *site)
{
    if (!site || !g.sites)
        return 0;
    uintptr_t key = (uintptr_t)site;
    unsigned i = hash_key(key, SITES - 1);
    for (unsigned n = 0; n < SITES; n++, i = (i + 1) & (SITES - 1)) {
        struct site *e = &g.sites[i];
        uintptr_t k = __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE);
        if (k == 0) {
            uintptr_t zero = 0;
            if (!__atomic_compare_exchange_n(&e->addr, &zero, key, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE)) {
                k = zero;
                goto existing;
            }
            uint32_t id = __atomic_add_fetch(&g.next_site, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&e->id, id, __ATOMIC_RELEASE);
            int nframes = site->nframes > 0 ? site->nframes : 1;
            if (nframes > ST_MAX_FRAMES)
                nframes = ST_MAX_FRAMES;
            const uintptr_t *frames = site->nframes > 0 ? site->frames : &site->pc;
            int unknown = 0;
            for (int f = 0; f < nframes; f++)
                unknown |= !module_known(frames[f]);
            if (unknown && st_spin_trylock(&g.module_lock)) {
                int saved = errno;
                scan_modules(t);
                errno = saved;
                st_spin_unlock(&g.module_lock);
            }
            uint8_t *p = reserve(t, 2 + (2 + (size_t)nframes) * ST_VARINT_MAX);
            if (!p) {
                lost();
                return id;
            }
            *p++ = ST_EV_SITE_DEF;
            p = st_put_u(p, id);
            p = st_put_u(p, (uint64_t)nframes);
            for (int f = 0; f < nframes; f++)
                p = st_put_u(p, frames[f]);
            commit(t, p);
            return id;
        }
    existing:
        if (k == key) {
            uint32_t id;
            while ((id = __atomic_load_n(&e->id, __ATOMIC_ACQUIRE)) == 0)
                st_cpu_relax();
            return id;
        }
    }
    return 0;
}

/* The id of the cell holding counts c, defining it (and its owner and
 * site) on first use. hint_file: a file the owner may be. */
static uint32_t cell_id(struct tw *t, struct st_tally *c, const struct st_file *hint_file)
{
    const struct st_cell *cell =
        (const struct st_cell *)((const char *)c - offsetof(struct st_cell, counts));
    int fresh;
    struct target *e = target_entry((uintptr_t)cell | TAG_CELL, &fresh);
    if (!e)
        return 0;
    if (fresh) {
        uint32_t owner = owner_id(t, cell->owner, hint_file);
        uint32_t site = site_id(t, cell->site);
        uint8_t *p = reserve(t, 1 + 3 * ST_VARINT_MAX);
        if (!p) {
            lost();
            return e->id;
        }
        *p++ = ST_EV_CELL_DEF;
        p = st_put_u(p, e->id);
        p = st_put_u(p, owner);
        p = st_put_u(p, site);
        t->target = e->id;
        commit(t, p);
    }
    return e->id;
}

/* cell_id, remembered in the first way of the thread's set `set` (the
 * entry there moves to the second: two cells a loop alternates between can
 * share a set). Out of line: it may define the cell, its owner and its
 * site, and begin_event, which every event passes, should not pay for its
 * registers. */
__attribute__((noinline)) static uint32_t cell_id_cached(struct tw *t, struct st_tally *c,
                                                         const struct st_file *hint, unsigned set)
{
    uint32_t id = cell_id(t, c, hint);
    t->cell_ids[set + 1] = t->cell_ids[set];
    t->cell_ids[set].cell = id ? c : NULL;
    t->cell_ids[set].id = id;
    return id;
}

/* The id of c if the thread's cache holds it in set `set`, else 0. */
static inline uint32_t cached_cell_id(const struct tw *t, const struct st_tally *c, unsigned set)
{
    return c == t->cell_ids[set].cell       ? t->cell_ids[set].id
           : c == t->cell_ids[set + 1].cell ? t->cell_ids[set + 1].id
                                            : 0;
}

/* ---- events ------------------------------------------------------------ */

#define EVENT_MAX 64

/* reach_cell's rare half: the cell is not in the thread's cache (it may
 * need defining), or the chunk is full. NULL: the event is lost and the
 * writer left. */
__attribute__((noinline)) static uint8_t *reach_cell_slow(struct tw *t, struct st_tally *c,
                                                          const struct st_file *hint, unsigned set,
                                                          uint32_t *id)
{
    *id = cached_cell_id(t, c, set);
    if (!*id)
        *id = cell_id_cached(t, c, hint, set);
    uint8_t *p = *id ? reserve(t, EVENT_MAX) : NULL;
    if (!p) {
        lost();
        leave();
    }
    return p;
}

/* Enters the writer with room for one event aimed at the cell c, whose id
 * is set in *id; NULL if nothing can be recorded (then the event is
 * counted as lost if it had to be). Inline: every counting event passes
 * here, and the usual case (a cached cell, room in the chunk) is a few
 * loads and compares. */
static inline __attribute__((always_inline)) uint8_t *reach_cell(struct tw **tp,
                                                                 struct st_tally *c,
                                                                 const struct st_file *hint,
                                                                 uint32_t *id)
{
    struct tw *t = enter();
    *tp = t;
    if (!t)
        return NULL;
    unsigned set = (unsigned)(((uintptr_t)c * 0x9E3779B97F4A7C15ull) >> 61) * 2;
    if (__builtin_expect(t->end - t->pos >= EVENT_MAX, 1) && (*id = cached_cell_id(t, c, set)) != 0)
        return t->pos;
    uint8_t *p = reach_cell_slow(t, c, hint, set, id);
    if (!p)
        *tp = NULL;
    return p;
}

/* reach_cell, and the TARGET switch to the cell written: the position
 * returned is past it. */
static inline __attribute__((always_inline)) uint8_t *begin_event(struct tw **tp,
                                                                  struct st_tally *c,
                                                                  const struct st_file *hint)
{
    uint32_t id;
    uint8_t *p = reach_cell(tp, c, hint, &id);
    return p ? put_target(*tp, p, id) : NULL;
}

/* CALL names its cell itself (F2) when the target changes: a loop that
 * alternates between two calls would otherwise need a TARGET per call. */
void st_trace_call_begin_(struct st_tally *c, enum st_call call)
{
    struct tw *t;
    uint32_t id;
    uint8_t *p = c ? reach_cell(&t, c, NULL, &id) : NULL;
    if (!p)
        return;
    uint8_t *h = p++;
    *h = (uint8_t)(ST_EV_CALL | ST_EV_F1);
    if (t->target != id) {
        *h |= ST_EV_F2;
        p = st_put_u(p, id);
        t->target = id;
    }
    p = st_put_u(p, delta(t, st_trace_clock_ns()));
    *p++ = (uint8_t)call;
    t->call = (uint8_t)call;
    commit(t, p);
    t->span++;
    leave();
}

void st_trace_slot_begin_(enum st_call call)
{
    struct tw *t = enter();
    if (!t)
        return;
    uint8_t *p = reserve(t, EVENT_MAX);
    if (p) {
        *p++ = ST_EV_CALL;
        p = st_put_u(p, delta(t, st_trace_clock_ns()));
        *p++ = (uint8_t)call;
        t->call = (uint8_t)call;
        commit(t, p);
        t->span++;
    } else {
        lost();
    }
    leave();
}

void st_trace_call_end_(void)
{
    if (tw.call_ended) { /* the call's OP recorded its end */
        tw.call_ended = 0;
        return;
    }
    struct tw *t = enter();
    if (!t)
        return;
    if (t->span > 0) {
        t->span--;
        uint8_t *p = reserve(t, 1 + ST_VARINT_MAX);
        if (p) {
            *p++ = ST_EV_END;
            p = st_put_u(p, delta(t, st_trace_clock_ns()));
            commit(t, p);
        } else {
            lost();
        }
    }
    leave();
}

void st_trace_count_(struct st_tally *c, enum st_call call)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, NULL) : NULL;
    if (!p)
        return;
    *p++ = ST_EV_COUNT;
    *p++ = (uint8_t)call;
    t->call = (uint8_t)call;
    commit(t, p);
    leave();
}

void st_trace_buffer_(struct st_stream *s)
{
    if (!s)
        return;
    struct tw *t = enter();
    if (!t)
        return;
    struct target *e = target_find((uintptr_t)s | TAG_STREAM);
    if (!e) {
        /* Not seen before: its definition carries the buffer. */
        stream_id(t, s);
    } else if (e->buf_size != s->buffer_size || e->buf_requested != s->requested_buffer_size ||
               e->buf_mode != buf_byte(s) || e->caveat != s->caveat) {
        note_buffer(e, s);
        uint8_t *p = reserve(t, EVENT_MAX + caveat_len(e));
        if (p) {
            *p++ = ST_EV_BUF;
            p = st_put_u(p, e->id);
            commit(t, put_buffer(p, e));
        } else {
            lost();
        }
    }
    leave();
}

void st_trace_close_(struct st_stream *s)
{
    if (!s)
        return;
    struct tw *t = enter();
    if (!t)
        return;
    struct target *e = target_find((uintptr_t)s | TAG_STREAM);
    uint8_t *p = e ? reserve(t, EVENT_MAX) : NULL;
    if (p) {
        *p++ = ST_EV_CLOSE;
        p = st_put_u(p, e->id);
        p = st_put_u(p, delta(t, st_trace_clock_ns()));
        commit(t, p);
    } else if (e) {
        lost();
    }
    leave();
}

void st_trace_deliver_(struct st_tally *c, uint64_t requested, uint64_t delivered)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, NULL) : NULL;
    if (!p)
        return;
    uint8_t hdr = ST_EV_DELIVER | (requested == delivered ? ST_EV_F1 : 0);
    *p++ = hdr;
    p = st_put_u(p, requested);
    if (!(hdr & ST_EV_F1))
        p = st_put_u(p, delivered);
    commit(t, p);
    leave();
}

void st_trace_seek_(struct st_tally *c, int kept, uint64_t resync)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, NULL) : NULL;
    if (!p)
        return;
    *p++ = (uint8_t)(ST_EV_SEEK | (kept ? ST_EV_F1 : 0));
    if (kept)
        p = st_put_u(p, resync);
    commit(t, p);
    leave();
}

void st_trace_op_(struct st_stream *s, unsigned op, int flag, uint64_t n, int64_t x, int ends_call)
{
    if (!s)
        return;
    struct tw *t = enter();
    if (!t)
        return;
    if (t->op_stream != s) {
        t->op_stream_id = stream_id(t, s);
        t->op_stream = t->op_stream_id ? s : NULL;
    }
    uint32_t id = t->op_stream_id;
    uint8_t *p = id ? reserve(t, EVENT_MAX) : NULL;
    if (p) {
        /* The END st_trace_call_end_ would write next, here instead: one
         * record, one entry fewer per call. */
        int ends = ends_call && t->span > 0;
        *p++ = (uint8_t)(ST_EV_OP | (flag ? ST_EV_F1 : 0) | (ends ? ST_EV_F2 : 0));
        p = st_put_u(p, id);
        *p++ = (uint8_t)op;
        switch (op) {
        case ST_OP_OPEN:
            p = st_put_s(p, x);
            break;
        case ST_OP_FSEEK:
            *p++ = (uint8_t)n;
            p = st_put_s(p, x);
            break;
        case ST_OP_OTHER:
            *p++ = (uint8_t)n;
            break;
        case ST_OP_SIZE: case ST_OP_FREAD: case ST_OP_GETC_RUN: case ST_OP_GETDELIM:
            p = st_put_u(p, n);
            break;
        }
        if (ends) {
            p = st_put_u(p, delta(t, st_trace_clock_ns()));
            t->span--;
            t->call_ended = 1;
        }
        commit(t, p);
    } else if (id) {
        lost();
    }
    leave();
}

void st_trace_sys_begin_(void)
{
    tw.sys_t0 = st_trace_clock_ns();
}

/* The start and duration of the syscall that just returned. */
static uint8_t *put_sys_time(struct tw *t, uint8_t *p)
{
    uint64_t end = st_trace_clock_ns(), start = t->sys_t0;
    t->sys_t0 = 0;
    if (!start || start > end)
        start = end;
    if (start < t->last_ns)
        start = t->last_ns;
    if (end < start)
        end = start;
    p = st_put_u(p, delta(t, start));
    return st_put_u(p, end - start);
}

void st_trace_read_(struct st_file *f, struct st_tally *c, enum st_call call, int64_t offset,
                    ssize_t result)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, f) : NULL;
    if (!p) {
        tw.last_read = NULL;
        return;
    }
    if (offset < 0)
        offset = -1;
    uint8_t *h = p;
    uint8_t hdr = ST_EV_READ;
    if (t->call == (uint8_t)call)
        hdr |= ST_EV_F1;
    if (offset == t->expected)
        hdr |= ST_EV_F2;
    if ((int64_t)result == t->last_size)
        hdr |= ST_EV_F3;
    *p++ = hdr;
    if (!(hdr & ST_EV_F1))
        *p++ = (uint8_t)call;
    p = put_sys_time(t, p);
    if (!(hdr & ST_EV_F2))
        p = st_put_s(p, offset);
    if (!(hdr & ST_EV_F3))
        p = st_put_s(p, result);
    t->call = (uint8_t)call;
    t->last_size = result;
    if (offset >= 0)
        t->expected = offset + (result > 0 ? result : 0);
    commit(t, p);
    t->last_read = h;
    t->last_read_end = p;
    t->last_read_result = result;
    leave();
}

void st_trace_reread_(uint64_t again)
{
    if (!again) {
        tw.last_read = NULL;
        return;
    }
    /* A read that re-read all its bytes (the common case) turns the READ
     * just written into READ_REREAD: one byte store, and either value is a
     * whole event, so a crash in between leaves a readable trace. That
     * store needs no entering: a signal handler's events land after the
     * READ and leave it whole (the epoch check: a fork child's READ is in
     * its parent's mapping). */
    uint8_t *h = tw.last_read;
    if (h && tw.pos == tw.last_read_end && (int64_t)again == tw.last_read_result &&
        tw.epoch == __atomic_load_n(&trace_epoch, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(h, (uint8_t)(ST_EV_READ_REREAD | (*h & 0xe0)), __ATOMIC_RELEASE);
        tw.last_read = NULL;
        return;
    }
    struct tw *t = enter();
    if (!t)
        return;
    /* A partial re-read is an event of its own (begin_event left room for
     * it). */
    if (t->last_read && t->pos == t->last_read_end) {
        if (t->end - t->pos >= 1 + ST_VARINT_MAX) {
            uint8_t *p = t->pos;
            *p++ = ST_EV_REREAD;
            commit(t, st_put_u(p, again));
        } else {
            lost();
        }
    } else {
        lost();
    }
    t->last_read = NULL;
    leave();
}

void st_trace_lseek_(struct st_tally *c, enum st_call call, int64_t result)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, NULL) : NULL;
    if (!p)
        return;
    uint8_t hdr = ST_EV_LSEEK;
    if (t->call == (uint8_t)call)
        hdr |= ST_EV_F1;
    if (result < 0)
        hdr |= ST_EV_F3;
    else if (result == t->expected)
        hdr |= ST_EV_F2;
    *p++ = hdr;
    if (!(hdr & ST_EV_F1))
        *p++ = (uint8_t)call;
    p = put_sys_time(t, p);
    if (!(hdr & (ST_EV_F2 | ST_EV_F3)))
        p = st_put_s(p, result - (t->expected > 0 ? t->expected : 0));
    t->call = (uint8_t)call;
    if (result >= 0)
        t->expected = result;
    commit(t, p);
    leave();
}

void st_trace_fstat_(struct st_tally *c, enum st_call call)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, NULL) : NULL;
    if (!p)
        return;
    uint8_t hdr = (uint8_t)(ST_EV_FSTAT | (t->call == (uint8_t)call ? ST_EV_F1 : 0));
    *p++ = hdr;
    if (!(hdr & ST_EV_F1))
        *p++ = (uint8_t)call;
    p = put_sys_time(t, p);
    t->call = (uint8_t)call;
    commit(t, p);
    leave();
}

void st_trace_write_(struct st_tally *c, ssize_t result)
{
    struct tw *t;
    uint8_t *p = c ? begin_event(&t, c, NULL) : NULL;
    if (!p)
        return;
    *p++ = ST_EV_WRITE;
    p = put_sys_time(t, p);
    p = st_put_s(p, result);
    if (result > 0 && t->expected >= 0)
        t->expected += result;
    commit(t, p);
    leave();
}

void st_trace_posix_read_(struct st_tally *c, enum st_call call, uint64_t requested,
                          ssize_t result)
{
    st_trace_count_(c, call);
    uint64_t req = result >= 0 ? requested : 0, del = result > 0 ? (uint64_t)result : 0;
    if (req || del)
        st_trace_deliver_(c, req, del);
}

void st_trace_posix_lseek_(struct st_tally *c, int64_t result)
{
    st_trace_count_(c, ST_CALL_LSEEK);
    st_trace_lseek_(c, ST_CALL_LSEEK, result);
}

/* ---- the optional API's marks and flush (wrap/api.c exports them) ----- */

void st_trace_mark(const char *label)
{
    struct tw *t = enter();
    if (!t)
        return;
    size_t len = label ? bounded_len(label, MAX_LABEL) : 0;
    uint8_t *p = reserve(t, len + 3 * ST_VARINT_MAX);
    if (p) {
        *p++ = ST_EV_MARK;
        p = st_put_u(p, delta(t, st_trace_clock_ns()));
        p = st_put_u(p, len);
        if (len)
            memcpy(p, label, len);
        commit(t, p + len);
    } else {
        lost();
    }
    leave();
}

int st_trace_flush(void)
{
    struct tw *t = enter();
    if (!t)
        return 0;
    /* Every window's pages, mapped still or not, are the file's. */
    int saved = errno;
    long fd = reopen();
    int r = fd >= 0 ? (int)syscall(SYS_fdatasync, (int)fd) : -1;
    if (fd >= 0)
        sys_close(fd);
    errno = saved;
    leave();
    return r == 0 ? 0 : -1;
}

/* ---- the footer ---------------------------------------------------------- */

static uint8_t counts_scratch[16384] ST_BULK;

/* Appends to *p (NULL: only counts) and returns the bytes it would take. */
struct sink {
    uint8_t *p;
    size_t n;
};

static void sink_bytes(struct sink *k, const void *data, size_t len)
{
    if (!len)
        return;
    if (k->p) {
        memcpy(k->p, data, len);
        k->p += len;
    }
    k->n += len;
}

static void sink_u(struct sink *k, uint64_t v)
{
    uint8_t tmp[ST_VARINT_MAX];
    sink_bytes(k, tmp, (size_t)(st_put_u(tmp, v) - tmp));
}

static void sink_s(struct sink *k, int64_t v)
{
    sink_u(k, st_zigzag(v));
}

static void sink_str(struct sink *k, const char *s)
{
    size_t len = s ? bounded_len(s, MAX_PATH) : 0;
    sink_u(k, len);
    sink_bytes(k, s, len);
}

static void sink_counts(struct sink *k, const struct st_counts *c)
{
    sink_bytes(k, counts_scratch, (size_t)(st_counts_encode(counts_scratch, c) - counts_scratch));
}

static void enc_process(struct sink *k, const struct st_report *r)
{
    sink_u(k, (uint64_t)r->pid);
    sink_u(k, (uint64_t)r->ppid);
    sink_u(k, (uint64_t)(r->argc > 0 ? r->argc : 0));
    for (int i = 0; i < r->argc; i++)
        sink_str(k, r->argv[i]);
    sink_str(k, r->capture);
    sink_str(k, r->capture_reason);
}

static void enc_file(struct sink *k, const struct st_report_file *f)
{
    sink_str(k, f->path);
    sink_counts(k, &f->counts);
    sink_u(k, f->nstreams);
    for (size_t i = 0; i < f->nstreams; i++) {
        const struct st_report_stream *s = &f->streams[i];
        sink_s(k, s->fd);
        sink_u(k, s->buffer_size);
        sink_u(k, s->requested_buffer_size);
        uint8_t b = (uint8_t)((unsigned)s->mode | (unsigned)s->origin << 4);
        sink_bytes(k, &b, 1);
        sink_str(k, s->caveat);
        sink_counts(k, &s->counts);
    }
    sink_u(k, f->nsites);
    for (size_t i = 0; i < f->nsites; i++) {
        const struct st_report_site *site = &f->sites[i];
        int n = site->frames ? site->nframes : 0;
        sink_u(k, (uint64_t)n);
        for (int j = 0; j < n; j++) {
            const struct st_report_frame *fr = &site->frames[j];
            sink_str(k, fr->function);
            sink_str(k, fr->source);
            sink_u(k, (uint64_t)(fr->line > 0 ? fr->line : 0));
            sink_str(k, fr->module);
            sink_u(k, fr->offset);
        }
        sink_counts(k, &site->counts);
    }
}

static void enc_stats(struct sink *k, uint64_t end_ns)
{
    sink_u(k, end_ns);
    sink_u(k, __atomic_load_n(&g.hdr->events_lost, __ATOMIC_RELAXED));
}

/* Each record: tag, length, body — the body encoded twice, to measure it
 * and then to write it. */
#define RECORD(k, tag, enc, ...)                                                     \
    do {                                                                             \
        struct sink m_ = {NULL, 0};                                                  \
        enc(&m_, __VA_ARGS__);                                                       \
        sink_u(k, tag);                                                              \
        sink_u(k, m_.n);                                                             \
        enc(k, __VA_ARGS__);                                                         \
    } while (0)

static void enc_footer(struct sink *k, const struct st_report *r, uint64_t end_ns)
{
    RECORD(k, ST_FOOT_PROCESS, enc_process, r);
    for (size_t i = 0; i < r->nfiles; i++)
        RECORD(k, ST_FOOT_FILE, enc_file, &r->files[i]);
    RECORD(k, ST_FOOT_STATS, enc_stats, end_ns);
}

/* Streams whose buffer changed where no event said so (e.g. set by a path
 * we do not hook): record the final state so rebuilt reports match. */
/* The last word on each recorded stream: its buffer as it ended, and for
 * one still open, that the process ended with it so (glibc's exit cleanup
 * has run by now; its syscalls are recorded). */
static void sync_buffers(void)
{
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        for (struct st_stream *s = f->streams; s; s = s->next_in_file)
            if (target_find((uintptr_t)s | TAG_STREAM)) { /* never recorded: leave it so */
                st_trace_buffer_(s);
                if (!s->closed)
                    st_trace_op_(s, ST_OP_EXIT, 0, 0, 0, 0);
            }
}

void st_trace_finish(const struct st_report *r)
{
    if (!__atomic_load_n(&st_trace_on, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != READY || g.finished)
        return;
    __atomic_store_n(&g.finished, 1, __ATOMIC_RELEASE);
    st_self.busy++;
    int saved = errno;
    /* Called from a fatal-signal handler that interrupted this thread's
     * own writing, nothing more may go into its chunk. */
    if (!tw.writing)
        sync_buffers();
    /* From here on nothing is recorded: the footer is the final word. No
     * chunk is handed out after the footer's (the file is cut behind it):
     * max_chunks is stored before the footer takes its chunks. */
    set_trace_on(0);
    __atomic_store_n(&g.max_chunks, 0, __ATOMIC_RELEASE);
    uint64_t end_ns = st_trace_clock_anchor();
    struct sink measure = {NULL, 0};
    enc_footer(&measure, r, end_ns);
    size_t total = ST_TRACE_FOOTER_FRAME + measure.n;
    uint64_t nchunks = (total + CHUNK_SIZE - 1) / CHUNK_SIZE;
    uint64_t idx = __atomic_fetch_add(&g.next_chunk, nchunks, __ATOMIC_ACQ_REL);
    uint64_t off = chunk_offset(idx), len = nchunks * CHUNK_SIZE;
    void *map = NULL;
    uint32_t reason = lock_file() == 0 ? ST_TRACE_STOP_NONE : ST_TRACE_STOP_IO_ERROR;
    if (!reason) {
        reason = file_locked(off + len, off + len, off, len, &map);
        st_spin_unlock(&g.grow_lock);
    }
    if (reason) {
        stop_recording(reason);
        st_warn("no room for the footer of %s: %s; the trace stays partial", big.path,
                st_trace_stop_text(reason));
        goto out;
    }
    uint8_t *frame = map;
    struct sink w = {frame + ST_TRACE_FOOTER_FRAME, 0};
    enc_footer(&w, r, end_ns);
    uint32_t length = (uint32_t)w.n, crc = st_crc32(0, frame + ST_TRACE_FOOTER_FRAME, w.n);
    static const uint8_t footer_magic[8] = {'S', 'K', 'F', 'O', 'O', 'T', 'E', 'R'};
    memcpy(frame, footer_magic, sizeof footer_magic);
    memcpy(frame + 8, &length, 4);
    memcpy(frame + 12, &crc, 4);
    memset(frame + 16, 0, 8);
    syscall(SYS_munmap, map, len);
    struct st_trace_header *h = g.hdr;
    uint64_t chunks = idx + nchunks, cur = __atomic_load_n(&h->chunks, __ATOMIC_RELAXED);
    if (cur < chunks)
        __atomic_store_n(&h->chunks, chunks, __ATOMIC_RELEASE);
    h->footer_offset = off;
    h->footer_size = total;
    h->end_ns = end_ns;
    __atomic_store_n(&h->state, ST_TRACE_STATE_FINISHED, __ATOMIC_RELEASE);
    /* Give back the space allocated ahead: the file ends with the footer
     * (every event chunk lies before it; none is handed out after it). */
    long fd = reopen();
    if (fd >= 0) {
        syscall(SYS_ftruncate, (int)fd, (off_t)(off + total));
        sys_close(fd);
    }
out:
    errno = saved;
    st_self.busy--;
}
