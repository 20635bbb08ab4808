/* wrap_posix.c — the interposed POSIX file calls, generated from
 * wrap_posix.def and wrap_open*.def; close, the directory seeks, fcntl, mmap
 * and the _exit pair by hand.
 *
 * Each makes exactly one syscall, so counting calls counts what strace
 * shows. ST_REAL (boot/real.h) reaches the real function even before
 * start-up: a library's constructor may read a file before ours has run. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "attribution.h"
#include "exit_report.h"
#include "export.h"
#include "fdtable.h"
#include "lifecycle.h"
#include "files.h"
#include "fold.h"
#include "real.h"
#include "record.h"
#include "sync.h"
#include "storage.h"
#include "thread_state.h"
#include "trace_writer.h"
#include "wrappers.h"


static uint64_t iov_bytes(const struct iovec *v, int n)
{
    uint64_t sum = 0;
    for (int i = 0; v && i < n; i++)
        sum += v[i].iov_len;
    return sum;
}

/* offset < 0: the read used (and advanced) the fd's own offset. */
static void note_read(int fd, enum st_call call, uint64_t requested, int64_t offset, ssize_t r,
                      uint64_t mark)
{
    const struct st_fd *e = st_fd_get(fd);
    if (e)
        st_storage_charge(e->file, mark);
    struct st_tally *c = e ? st_file_direct(e->file) : NULL;
    if (!c)
        return;
    int64_t at = offset >= 0 ? offset : st_desc_offset(e->desc);
    struct st_call_cost *cc = st_tally_count_call(c, call);
    if (r >= 0)
        st_add2(&c->requested_bytes, requested, &c->delivered_bytes, (uint64_t)r);
    st_trace_posix_read(c, call, requested, r);
    st_record_read_at(e->file, c, cc, call, at, r);
    if (offset < 0 && r > 0)
        st_desc_advance(e->desc, r);
}

/* offset < 0: the write used (and advanced) the fd's own offset. appends:
 * the call wrote at the end of the file (RWF_APPEND), as every write on an
 * O_APPEND description does: where is not known. handed: what the program
 * asked to write, booked when the call did not fail, as a read's request
 * is. */
static void note_write(int fd, enum st_call call, uint64_t handed, int64_t offset, int appends,
                       ssize_t r)
{
    const struct st_fd *e = st_fd_get(fd);
    struct st_tally *c = e ? st_file_direct(e->file) : NULL;
    if (!c)
        return;
    struct st_desc *d = e->desc;
    appends |= st_desc_append(d);
    int64_t at = appends ? -1 : offset >= 0 ? offset : st_desc_offset(d);
    struct st_call_cost *cc = st_tally_count_call(c, call);
    if (r >= 0)
        st_add(&c->written_bytes, handed);
    st_trace_posix_write(c, call, handed, r);
    st_record_write_at(e->file, c, cc, call, at, r);
    if (offset < 0 && r > 0 && appends)
        st_desc_set(d, -1); /* at the end of the file: unknown */
    else if (offset < 0)
        st_desc_advance(d, r);
}

static void note_lseek(int fd, off64_t r)
{
    const struct st_fd *e = st_fd_get(fd);
    struct st_tally *c = e ? st_file_direct(e->file) : NULL;
    if (!c)
        return;
    st_record_lseek_at(c, st_tally_count_call(c, ST_CALL_LSEEK));
    st_trace_posix_lseek(c, r);
    if (r >= 0)
        st_desc_set(e->desc, r);
}

/* The bookkeeping after a real call: skipped when seektrace itself made
 * the call (busy), charged to the wrapper's caller, never allowed to change
 * errno. busy_stmt runs when it is skipped: there a read or an lseek counts
 * what a signal handler makes while this thread is inside that bookkeeping
 * (st_record_in_handler), a test that a call which did its bookkeeping
 * need not make. */
#define AFTER_ELSE(stmt, busy_stmt)                                                  \
    do {                                                                             \
        if (!st_self.busy) {                                                         \
            int saved_errno = errno;                                                 \
            st_self.busy++;                                                          \
            st_site_begin_frame(ST_FRAME_HERE);                                      \
            stmt;                                                                    \
            st_site_end();                                                           \
            st_self.busy--;                                                          \
            errno = saved_errno;                                                     \
        } else {                                                                     \
            busy_stmt;                                                               \
        }                                                                            \
    } while (0)
#define AFTER(stmt) AFTER_ELSE(stmt, (void)0)

#define POSIX_READ(call, name, params, args, fd, req, off)                           \
    ST_EXPORT(ssize_t, name, params)                                                 \
    {                                                                                \
        st_ensure_init();                                                            \
        st_trace_sys_begin();                                                        \
        uint64_t mark = st_storage_mark();                                           \
        ssize_t r = ST_REAL(name) args;                                             \
        AFTER_ELSE(note_read(fd, ST_CALL_##call, req, off, r, mark),                 \
                   if (st_record_in_handler()) st_record_handler_read(fd, r));       \
        return r;                                                                    \
    }
#define POSIX_WRITE(call, name, params, args, fd, handed, off, app)                  \
    ST_EXPORT(ssize_t, name, params)                                                 \
    {                                                                                \
        st_ensure_init();                                                            \
        st_trace_sys_begin();                                                        \
        ssize_t r = ST_REAL(name) args;                                             \
        AFTER_ELSE(note_write(fd, ST_CALL_##call, handed, off, app, r),              \
                   if (st_record_in_handler()) st_record_handler_write(fd, r));      \
        return r;                                                                    \
    }
#define POSIX_SEEK(name, ret, params, args, fd)                                      \
    ST_EXPORT(ret, name, params)                                                     \
    {                                                                                \
        st_ensure_init();                                                            \
        st_trace_sys_begin();                                                        \
        ret r = ST_REAL(name) args;                                                 \
        AFTER_ELSE(note_lseek(fd, r),                                                \
                   if (st_record_in_handler()) st_record_handler_lseek(fd));         \
        return r;                                                                    \
    }
/* dup2 and dup3 close whatever was at nfd (fd 2: lifecycle.h). */
#define DUP_REPLACES_dup
#define DUP_REPLACES_dup2 st_lifecycle_fd_closing(nfd);
#define DUP_REPLACES_dup3 st_lifecycle_fd_closing(nfd);
#define POSIX_DUP(name, params, args, fd, nfd)                                       \
    ST_EXPORT(int, name, params)                                                     \
    {                                                                                \
        st_ensure_init();                                                            \
        DUP_REPLACES_##name                                                          \
        int r = ST_REAL(name) args;                                                 \
        if (r >= 0)                                                                  \
            AFTER(st_fd_dup(fd, nfd));                                               \
        return r;                                                                    \
    }
#include "wrap_posix.def"
#undef POSIX_READ
#undef POSIX_WRITE
#undef POSIX_SEEK
#undef POSIX_DUP

/* dir, path and flags: the open's (fdtable.h names the file from them). */
static void note_open(int fd, int dir, const char *path, int flags)
{
    st_fd_opened(fd, dir, path, flags);
    if (flags & O_APPEND)
        st_fd_set_append(fd, 1);
    const struct st_fd *e = st_fd_get(fd);
    struct st_tally *c = e ? st_file_direct(e->file) : NULL;
    if (c)
        st_tally_count_call(c, ST_CALL_OPEN);
    st_trace_count(c, ST_CALL_OPEN);
}

#define STRIP(...) __VA_ARGS__

/* The mode argument exists only when the flags create a file. */
#define OPEN(name, type, params, args, dir, path, flags)                             \
    ST_EXPORT(int, name, (STRIP params, ...))                                        \
    {                                                                                \
        st_ensure_init();                                                            \
        mode_t mode = 0;                                                             \
        if ((flags) & (O_CREAT | __O_TMPFILE)) {                                     \
            va_list ap;                                                              \
            va_start(ap, flags);                                                     \
            mode = va_arg(ap, mode_t);                                               \
            va_end(ap);                                                              \
        }                                                                            \
        int r = ST_REAL(name)(STRIP args, mode);                                    \
        if (r >= 0)                                                                  \
            AFTER(note_open(r, dir, path, flags));                                   \
        return r;                                                                    \
    }
#include "wrap_open.def"
#undef OPEN

#define OPEN2(name, params, args, dir, path, flags)                                  \
    ST_EXPORT(int, name, params)                                                     \
    {                                                                                \
        st_ensure_init();                                                            \
        int r = ST_REAL(name) args;                                                 \
        if (r >= 0)                                                                  \
            AFTER(note_open(r, dir, path, flags));                                   \
        return r;                                                                    \
    }
#include "wrap_open2.def"
#undef OPEN2

ST_EXPORT(int, close, (int fd))
{
    st_ensure_init();
    /* One of the library's own descriptors, closed by a loop over every
     * number: left open, and the close reported done (lifecycle.h). */
    if (st_lifecycle_is_own_fd(fd))
        return 0;
    st_lifecycle_fd_closing(fd);
    /* Forgotten before the kernel frees the number: after, another thread's
     * open could take it first, and this would forget that thread's file.
     * Linux releases the descriptor even when close reports an error. */
    AFTER(st_fd_closed(fd); st_fold_offer_closed());
    return ST_REAL(close)(fd);
}

/* rewinddir and seekdir each make one lseek on the directory's descriptor
 * inside glibc (Python's os.listdir(fd) rewinds its duplicate), where the
 * lseek wrapper does not see it. */
static void note_dir_lseek(DIR *dir, long pos)
{
    const struct st_fd *e = st_fd_get(dirfd(dir));
    struct st_tally *c = e ? st_file_direct(e->file) : NULL;
    if (!c)
        return;
    st_record_lseek(c, ST_CALL_OTHER);
    st_trace_lseek(c, ST_CALL_OTHER, pos);
    st_desc_set(e->desc, pos);
}

#define DIR_SEEK(name, params, args, pos)                                            \
    ST_EXPORT(void, name, params)                                                    \
    {                                                                                \
        st_ensure_init();                                                            \
        __typeof__(st_real.name) real = ST_REAL(name);                              \
        if (!real)                                                                   \
            return;                                                                  \
        real args;                                                                   \
        if (dir)                                                                     \
            AFTER(note_dir_lseek(dir, pos));                                         \
    }
DIR_SEEK(rewinddir, (DIR *dir), (dir), 0)
DIR_SEEK(seekdir, (DIR *dir, long pos), (dir, pos), pos)
#undef DIR_SEEK

/* fcntl's third argument is an int or a pointer depending on cmd; like
 * glibc's own fcntl, pass it on as a pointer-sized value. F_SETFL may set
 * or clear O_APPEND, which decides where writes land. */
#define FCNTL(name)                                                                  \
    ST_EXPORT(int, name, (int fd, int cmd, ...))                                     \
    {                                                                                \
        st_ensure_init();                                                            \
        va_list ap;                                                                  \
        va_start(ap, cmd);                                                           \
        void *arg = va_arg(ap, void *);                                              \
        va_end(ap);                                                                  \
        int r = ST_REAL(name)(fd, cmd, arg);                                        \
        if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))                    \
            AFTER(st_fd_dup(fd, r));                                                 \
        else if (r >= 0 && cmd == F_SETFL)                                           \
            AFTER(st_fd_set_append(fd, ((int)(intptr_t)arg & O_APPEND) != 0));       \
        return r;                                                                    \
    }
FCNTL(fcntl)
FCNTL(fcntl64)
#undef FCNTL

/* A file mapped into memory is read by page faults, which no syscall
 * shows (git reads its packs so): each mapping of a file is counted on it,
 * so that the report can say what it cannot see (core/hints.c). The
 * loader's own mappings of libraries never come here (ld.so calls its own
 * mmap), nor do this library's (made while busy, or anonymous). A shared
 * writable mapping is memory shared through a file (the JVM's hsperfdata,
 * SQLite's -shm), not a way of reading it: not counted. */
static void note_mmap(int fd)
{
    const struct st_fd *e = st_fd_get(fd);
    struct st_tally *c = e ? st_file_direct(e->file) : NULL;
    if (c)
        st_tally_count_call(c, ST_CALL_MMAP);
    st_trace_count(c, ST_CALL_MMAP);
}

#define MMAP(name, off_type)                                                         \
    ST_EXPORT(void *, name, (void *addr, size_t len, int prot, int flags, int fd,    \
                             off_type off))                                          \
    {                                                                                \
        st_ensure_init();                                                            \
        void *r = ST_REAL(name)(addr, len, prot, flags, fd, off);                    \
        if (r != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) &&                \
            !((flags & MAP_SHARED) && (prot & PROT_WRITE)))                          \
            AFTER(note_mmap(fd));                                                    \
        return r;                                                                    \
    }
MMAP(mmap, off_t)
MMAP(mmap64, off64_t)
#undef MMAP

/* _exit skips atexit handlers and destructors: report first. */
ST_EXPORT(void, _exit, (int status))
{
    st_ensure_init();
    st_report_at_exit();
    ST_REAL(_exit)(status);
    __builtin_unreachable();
}

ST_EXPORT(void, _Exit, (int status))
{
    st_ensure_init();
    st_report_at_exit();
    ST_REAL(_Exit)(status);
    __builtin_unreachable();
}
