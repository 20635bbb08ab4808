/* output.c — see output.h. Raw syscalls: the opening runs at exit,
 * possibly in a fatal-signal handler, and must not go through our own
 * wrappers. */
#define _GNU_SOURCE 1
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "config.h"
#include "env.h"
#include "own_fds.h"
#include "warn.h"

/* The descriptor a name spells, or -1. Recognised by spelling, never by
 * following the link: /dev/stdout is a symlink to /proc/self/fd/1. */
static int descriptor_named(const char *path)
{
    static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
    for (int i = 0; i < 3; i++)
        if (strcmp(path, std[i]) == 0)
            return i;
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(path, dirs[i], n) != 0 || path[n] < '0' || path[n] > '9')
            continue;
        char *end;
        long fd = strtol(path + n, &end, 10);
        return *end || fd > (1 << 20) ? -1 : (int)fd;
    }
    return -1;
}

void st_output_config_load(void)
{
    const char *v = ST_ENV(SEEKTRACE_OUTPUT);
    int fd = v && *v ? descriptor_named(v) : -1;
    st_config.output = NULL;
    st_config.output_fd = -1;
    if (!v || !*v || fd == 2)
        return; /* stderr: where the report goes anyway */
    if (fd >= 0 && syscall(SYS_fcntl, fd, F_GETFD) < 0) {
        st_warn("SEEKTRACE_OUTPUT=%s: descriptor %d is not open; the report goes to stderr", v, fd);
        return;
    }
    st_config.output_fd = fd;
    /* Copied: the program may change its environment before we report. */
    st_config.output = st_strdup(v);
}

/* SEEKTRACE_OUTPUT with %p replaced by the pid and %% by %. A second name
 * for the same pid (n > 0) is "<pid>.<n>" in place of %p, or ".<n>" at the
 * end of a pattern without %p. */
static void expand_path(const char *pattern, char *out, size_t size, long pid, int n)
{
    size_t o = 0;
    int has_pid = 0;
    for (const char *p = pattern; *p && o + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(out + o, size - o, n ? "%ld.%d" : "%ld", pid, n);
            has_pid = 1;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[o++] = '%';
            p++;
        } else {
            out[o++] = *p;
        }
    }
    if (n && !has_pid && o + 1 < size)
        o += (size_t)snprintf(out + o, size - o, ".%d", n);
    out[o < size ? o : size - 1] = '\0';
}

/* When the program used every descriptor its soft limit allows, the limit
 * is raised by one for this open (if the hard limit allows) and put back:
 * the program never sees it. */
static int open_raised(const char *path, int flags)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0600);
    struct rlimit old, more;
    if (fd < 0 && errno == EMFILE && syscall(SYS_getrlimit, RLIMIT_NOFILE, &old) == 0 &&
        old.rlim_cur < old.rlim_max) {
        more = old;
        more.rlim_cur++;
        if (syscall(SYS_setrlimit, RLIMIT_NOFILE, &more) == 0) {
            fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0600);
            int e = errno;
            syscall(SYS_setrlimit, RLIMIT_NOFILE, &old);
            errno = e;
        }
    }
    return fd;
}

/* Only root can make a device node, so none can be planted in a shared
 * directory; anyone can make a FIFO, so only the user's own is written. */
static int writable_in_place(const struct stat *st)
{
    return S_ISCHR(st->st_mode) ||
           (S_ISFIFO(st->st_mode) && st->st_uid == (uid_t)syscall(SYS_geteuid));
}

/* The name the user gave is such a device: written to, not created.
 * O_NONBLOCK makes a FIFO nobody reads fail (ENXIO) instead of hanging the
 * exit; it is cleared before writing. O_NOCTTY: a terminal never becomes
 * the process's controlling one. Anything else there is EEXIST. */
static int open_device(const char *path)
{
    struct stat before, after;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &before, AT_SYMLINK_NOFOLLOW) != 0 ||
        !writable_in_place(&before)) {
        errno = EEXIST;
        return -1;
    }
    int fd = open_raised(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long flags = syscall(SYS_fcntl, fd, F_GETFL);
    if (syscall(SYS_fstat, fd, &after) != 0 || !writable_in_place(&after) ||
        after.st_dev != before.st_dev || after.st_ino != before.st_ino || flags < 0 ||
        syscall(SYS_fcntl, fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        syscall(SYS_close, fd); /* replaced between the two looks */
        errno = EEXIST;
        return -1;
    }
    return fd;
}

/* A new file is created afresh, never through a symlink someone planted,
 * readable by the owner only. Nothing else already at the name is replaced
 * or followed: an earlier image of this process (before it exec'd) or a
 * stale report of a reused pid keeps its file, and so does anything planted
 * there; the report takes the next free name instead (expand_path). */
int st_output_open(struct st_output *o, long pid)
{
    o->created = 0;
    if (st_config.output_fd >= 0) {
        snprintf(o->path, sizeof o->path, "%s", st_config.output);
        o->fd = st_lifecycle_output_fd();
        if (o->fd < 0)
            errno = EBADF; /* closed or replaced where we could not see */
        return o->fd;
    }
    o->fd = -1;
    errno = EEXIST;
    for (int n = 0; o->fd < 0 && errno == EEXIST && n < 1000; n++) {
        expand_path(st_config.output, o->path, sizeof o->path, pid, n);
        o->fd = open_raised(o->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
        o->created = o->fd >= 0;
        if (o->fd < 0 && errno == EEXIST && n == 0)
            o->fd = open_device(o->path);
    }
    /* Other threads run on while the report is written: one that closes
     * every descriptor must not close this one (own_fds.h). */
    if (o->fd >= 0)
        st_lifecycle_hold_fd(o->fd);
    return o->fd;
}

void st_output_close(struct st_output *o)
{
    if (st_config.output_fd >= 0)
        return; /* the program's descriptor, or our duplicate of it */
    st_lifecycle_hold_fd(-1);
    syscall(SYS_close, o->fd);
}

/* Emptied first: if the name cannot be removed, no partial report stays
 * there. Removed only while the name is still the file we created (in a
 * shared directory nobody else can rename it; elsewhere the check narrows
 * the window to the unlink itself). */
int st_output_abandon(struct st_output *o)
{
    struct stat ours, named;
    int gone = o->created && syscall(SYS_ftruncate, o->fd, 0) == 0 &&
               syscall(SYS_fstat, o->fd, &ours) == 0 &&
               syscall(SYS_newfstatat, AT_FDCWD, o->path, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
               ours.st_dev == named.st_dev && ours.st_ino == named.st_ino &&
               syscall(SYS_unlinkat, AT_FDCWD, o->path, 0) == 0;
    st_output_close(o);
    return gone;
}
