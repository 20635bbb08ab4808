/* trace_create.c — creating the trace file, once per process on its first
 * event: its name (<name>.<pid>.sktrace, exclusive), its header and info
 * records (the call table, argv, the executable, capture, host, the parent's
 * trace), and the first chunk's room. Also what the header says of the
 * process (st_trace_set_argv, st_trace_set_capture). See
 * trace_writer_internal.h for the shape of the whole. */
#define _GNU_SOURCE 1
#include "trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bulk.h"
#include "config.h"
#include "trace_clock.h"
#include "trace_codec.h"
#include "trace_writer_internal.h"
#include "warn.h"

#define INFO_MAX (60u << 10)

/* What the header says of the process (the caller keeps the strings). */
static struct {
    int argc;
    const char *const *argv;
    const char *inferred;
    const char *libc_version;
} proc;

void st_trace_set_argv(int argc, const char *const *argv)
{
    proc.argv = argv;
    proc.argc = argc;
}

void st_trace_set_capture(const char *reason_if_inferred, const char *libc_version)
{
    proc.inferred = reason_if_inferred;
    proc.libc_version = libc_version;
}

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
    if (proc.argv) {
        for (int i = 0; i < proc.argc; i++) {
            size_t len = st_tw_bounded_len(proc.argv[i], size);
            if (n + len + 1 > size)
                break;
            memcpy(out + n, proc.argv[i], len);
            n += len;
            out[n++] = '\0';
        }
        return n;
    }
    long fd = st_tw_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    long r;
    while (n < size && (r = syscall(SYS_read, (int)fd, out + n, size - n)) > 0)
        n += (size_t)r;
    st_tw_close(fd);
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
    const char *exe = st_tw_exe();
    if (exe[0])
        p = info_record(p, ST_TRACE_INFO_EXE, exe, strlen(exe));
    const char *capture = proc.inferred ? "inferred" : "exact";
    p = info_record(p, ST_TRACE_INFO_CAPTURE, capture, strlen(capture));
    if (proc.inferred)
        p = info_record(p, ST_TRACE_INFO_CAPTURE_REASON, proc.inferred,
                        st_tw_bounded_len(proc.inferred, 512));
    if (proc.libc_version)
        p = info_record(p, ST_TRACE_INFO_LIBC_VERSION, proc.libc_version,
                        st_tw_bounded_len(proc.libc_version, 64));
    struct utsname u;
    if (syscall(SYS_uname, &u) == 0)
        p = info_record(p, ST_TRACE_INFO_HOST, u.nodename,
                        st_tw_bounded_len(u.nodename, sizeof u.nodename));
    if (st_config.labels_len)
        p = info_record(p, ST_TRACE_INFO_LABELS, st_config.labels, st_config.labels_len);
    if (st_tw_paths.parent_path[0])
        p = info_record(p, ST_TRACE_INFO_PARENT_TRACE, st_tw_paths.parent_path,
                        strlen(st_tw_paths.parent_path));
    return (size_t)(p - info_buf);
}

/* <name>: argv[0]'s basename, only [A-Za-z0-9._-], at most 40 bytes. */
static void process_name(char *out, size_t size)
{
    const char *a0 = proc.argv && proc.argc > 0 ? proc.argv[0] : NULL;
    char cmd[256];
    if (!a0) {
        long fd = st_tw_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
        long r = fd >= 0 ? syscall(SYS_read, (int)fd, cmd, sizeof cmd - 1) : -1;
        if (fd >= 0)
            st_tw_close(fd);
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
            snprintf(scratch_path, sizeof scratch_path, "%s/%s.%ld%s", st_tw_paths.dir, name,
                     pid, ST_TRACE_SUFFIX);
        else
            snprintf(scratch_path, sizeof scratch_path, "%s/%s.%ld.%d%s", st_tw_paths.dir, name,
                     pid, k, ST_TRACE_SUFFIX);
        long fd =
            st_tw_open(scratch_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        if (errno == ENOENT && !made_dir) {
            made_dir = 1;
            syscall(SYS_mkdirat, AT_FDCWD, st_tw_paths.dir, 0700);
            k--;
            continue;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

static int create_file(void)
{
    long pid = syscall(SYS_getpid);
    long fd = create_exclusive(pid);
    if (fd < 0) {
        st_warn("cannot create a trace file in %s (%s); not recording", st_tw_paths.dir,
                strerror(errno));
        return -1;
    }
    st_tw_copy_str(st_tw_paths.path, sizeof st_tw_paths.path, scratch_path);
    size_t info = build_info();
    uint32_t header_size = (uint32_t)((ST_TRACE_FIXED_HEADER + info + 4095) & ~(size_t)4095);
    uint64_t cap = st_tw.cap - st_tw.cap % CHUNK_SIZE;
    if (cap < 4 * CHUNK_SIZE)
        cap = 4 * CHUNK_SIZE;
    st_tw.cap_chunks = cap / CHUNK_SIZE;
    st_tw.window_chunks = (st_tw.cap_chunks + MAX_WINDOWS - 1) / MAX_WINDOWS;
    if (st_tw.window_chunks < WINDOW_MIN / CHUNK_SIZE)
        st_tw.window_chunks = WINDOW_MIN / CHUNK_SIZE;
    st_tw.nwindows = (st_tw.cap_chunks + st_tw.window_chunks - 1) / st_tw.window_chunks;
    st_tw.header_size = header_size;
    st_tw.file_size = 0;
    /* The header, mapped for the trace's life, and the first window on the
     * same descriptor: the event creating the trace is about to take its
     * first chunk (later windows reopen the file: no descriptor is kept).
     * Space for the header and that one chunk only, at once where the disk
     * and RLIMIT_FSIZE allow: most processes write no more, and then the
     * footer follows it with nothing allocated ahead to give back (an
     * ftruncate freeing blocks cost 50-60 us on this VM's ext4). The next
     * chunk grows the file to the window's end. */
    uint64_t first_end = st_tw_chunk_offset(1);
    void *map = NULL, *first = NULL;
    struct stat st;
    uint32_t failed = syscall(SYS_fstat, (int)fd, &st) != 0
                          ? ST_TRACE_STOP_IO_ERROR
                          : st_tw_file_at(fd, header_size, first_end, 0, header_size, &map);
    if (failed) {
        int e = errno;
        st_tw_close(fd);
        syscall(SYS_unlinkat, AT_FDCWD, st_tw_paths.path, 0);
        st_warn("cannot set up the trace file %s (%s); not recording", st_tw_paths.path,
                strerror(e));
        return -1;
    }
    /* Refused (no room for a chunk, no address space), the first chunk's
     * own attempt says why. */
    if (st_tw_file_at(fd, first_end, first_end, st_tw_chunk_offset(0), st_tw_window_len(0),
                      &first) == ST_TRACE_STOP_NONE)
        st_tw_windows[0].base = first;
    st_tw_close(fd);
    st_tw.dev = st.st_dev;
    st_tw.ino = st.st_ino;
    st_tw.max_chunks = st_tw.cap_chunks;
    st_tw.next_chunk = 0;

    struct st_trace_header *h = map;
    memcpy(h->magic, ST_TRACE_MAGIC, ST_TRACE_MAGIC_LEN);
    h->endian = ST_TRACE_ENDIAN;
    h->version_major = ST_TRACE_VERSION_MAJOR;
    h->version_minor = ST_TRACE_VERSION_MINOR;
    h->header_size = header_size;
    h->chunk_size = CHUNK_SIZE;
    h->info_size = (uint32_t)info;
    h->clock = ST_TRACE_CLOCK_MONOTONIC;
    h->flags = proc.inferred ? ST_TRACE_FLAG_INFERRED : 0;
    h->pid = pid;
    h->ppid = syscall(SYS_getppid);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    h->start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    h->start_ns = st_trace_clock_anchor();
    h->cap_bytes = cap;
    h->state = ST_TRACE_STATE_RECORDING;
    memcpy((uint8_t *)map + ST_TRACE_FIXED_HEADER, info_buf, info);
    st_tw.hdr = h;
    return 0;
}

/* st_tw_ensure_ready's out-of-line half: the first event of the process
 * (or of a fork child) creates the file, and every other thread waits for
 * it. */
int st_tw_ensure_ready_slow(void)
{
    int s = __atomic_load_n(&st_tw.state, __ATOMIC_ACQUIRE);
    if (s == IDLE && __atomic_compare_exchange_n(&st_tw.state, &s, CREATING, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE)) {
        int saved = errno;
        int ok = create_file() == 0;
        errno = saved;
        __atomic_store_n(&st_tw.state, ok ? READY : FAILED, __ATOMIC_RELEASE);
        if (!ok)
            st_tw_set_on(0);
        return ok;
    }
    while ((s = __atomic_load_n(&st_tw.state, __ATOMIC_ACQUIRE)) == CREATING)
        st_cpu_relax();
    return s == READY;
}
