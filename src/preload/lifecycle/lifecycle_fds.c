/* lifecycle_fds.c — descriptors closed where the close wrapper cannot see:
 * close_range, closefrom and closedir (their wrappers: wrap/wrap_fds.c).
 *
 * Daemons and sandboxes close every descriptor above 2 in one call. The fd
 * table (fdtable.h) must forget the ones that were open, or a pipe or
 * socket that later reuses the number would be charged to the old file.
 * The open descriptors in the range are listed first (from /proc's fd,
 * or by probing each number when no descriptor is left to read it with),
 * the real call is made, and those that are gone are forgotten. When the
 * range covers a descriptor a report goes to, it is kept first
 * (st_lifecycle_range_closing), and the library's own descriptors (those
 * duplicates) are left out of the range: the real call is made on the runs
 * of numbers between them. None of this runs for CLOSE_RANGE_CLOEXEC,
 * which closes nothing now. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdtable.h"
#include "glibc_compat.h"
#include "lifecycle.h"
#include "proc_self.h"

/* A set of descriptor numbers, from mmap (this may run in a forked child
 * of a threaded program, where malloc is off limits). */
struct fdset {
    uint64_t *bits;
    size_t nbits;
};

static int fdset_init(struct fdset *s, size_t nbits)
{
    size_t bytes = (nbits + 63) / 64 * sizeof(uint64_t);
    s->nbits = nbits;
    s->bits = mmap(NULL, bytes ? bytes : 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return s->bits == MAP_FAILED ? -1 : 0;
}

static void fdset_free(struct fdset *s)
{
    size_t bytes = (s->nbits + 63) / 64 * sizeof(uint64_t);
    munmap(s->bits, bytes ? bytes : 8);
}

static void fdset_add(struct fdset *s, size_t fd)
{
    if (fd < s->nbits)
        s->bits[fd / 64] |= 1ULL << (fd % 64);
}

static int fdset_has(const struct fdset *s, size_t fd)
{
    return fd < s->nbits && (s->bits[fd / 64] >> (fd % 64) & 1);
}

/* Upper bound (exclusive) of descriptor numbers that can be open. */
static size_t fd_bound(void)
{
    struct rlimit rl;
    size_t bound = 1 << 20; /* the kernel's default nr_open */
    if (syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
        rl.rlim_max < bound)
        bound = rl.rlim_max;
    return bound;
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Open descriptors in [lo, hi]; -1 if they could not be listed. */
static int list_open(unsigned lo, unsigned hi, struct fdset *out)
{
    size_t bound = fd_bound();
    size_t top = (size_t)hi + 1 < bound ? (size_t)hi + 1 : bound;
    if (lo >= top || fdset_init(out, top) != 0)
        return -1;
    int dir = st_proc_open("fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        char buf[4096];
        long n;
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
                off += d->d_reclen;
                if (d->d_name[0] < '0' || d->d_name[0] > '9')
                    continue;
                size_t fd = 0;
                for (const char *p = d->d_name; *p >= '0' && *p <= '9'; p++)
                    fd = fd * 10 + (size_t)(*p - '0');
                if (fd >= lo && fd != (size_t)dir)
                    fdset_add(out, fd);
            }
        }
        syscall(SYS_close, dir);
        if (n == 0)
            return 0;
    }
    /* No descriptor to spare (or no /proc): probe each number. */
    for (size_t fd = lo; fd < top; fd++)
        if (syscall(SYS_fcntl, (int)fd, F_GETFD) >= 0)
            fdset_add(out, fd);
    return 0;
}

static void forget_closed(unsigned lo, const struct fdset *was_open)
{
    for (size_t fd = lo; fd < was_open->nbits; fd++)
        if (fdset_has(was_open, fd) && syscall(SYS_fcntl, (int)fd, F_GETFD) < 0)
            st_fd_closed((int)fd);
}

/* closefrom's share below one of the library's descriptors: close_range
 * where the kernel has it (5.9), one close per number where it does not. */
static void close_span(unsigned lo, unsigned hi)
{
    if (syscall(SYS_close_range, lo, hi, 0) == 0 || errno != ENOSYS)
        return;
    for (unsigned fd = lo; fd <= hi; fd++)
        syscall(SYS_close, (int)fd);
}

/* The real call on [lo, hi] less the library's own descriptors
 * (lifecycle.h): once for each run of numbers between them, closefrom's
 * last run by closefrom itself. With CLOSE_RANGE_UNSHARE the first run
 * unshares the table, whole since the run stops below the table's end.
 * close_range returns the first failure (each run has the same flags: a
 * refusal of those is the first run's). */
static int close_around_own(unsigned lo, unsigned hi, int flags, st_close_range_fn real_range,
                            st_closefrom_fn real_from)
{
    int own[ST_OWN_FDS_MAX];
    int n = st_lifecycle_own_fds(own);
    int r = 0, e = errno;
    unsigned from = lo;
    for (int i = 0; i < n; i++) {
        unsigned fd = (unsigned)own[i];
        if (fd < from || fd > hi)
            continue;
        if (fd > from && !real_range) {
            close_span(from, fd - 1);
        } else if (fd > from && real_range(from, fd - 1, flags) != 0 && r == 0) {
            r = -1;
            e = errno;
        }
        from = fd + 1;
    }
    if (real_from)
        real_from((int)from);
    else if (real_range && (from == lo || from <= hi) && real_range(from, hi, flags) != 0 &&
             r == 0) {
        r = -1;
        e = errno;
    }
    errno = e;
    return r;
}

int st_lifecycle_close_range(unsigned lo, unsigned hi, int flags, st_close_range_fn real_range,
                             st_closefrom_fn real_from)
{
    /* CLOSE_RANGE_CLOEXEC closes nothing now; the library's descriptors
     * are close-on-exec already. */
    if (flags & CLOSE_RANGE_CLOEXEC)
        return real_range(lo, hi, flags);
    int entry_errno = errno;
    st_lifecycle_range_closing(lo, hi);
    struct fdset open_before = {0};
    int listed = list_open(lo, hi, &open_before) == 0;
    errno = entry_errno;
    int r = close_around_own(lo, hi, flags, real_range, real_from);
    if (listed) {
        int e = errno;
        forget_closed(lo, &open_before);
        fdset_free(&open_before);
        errno = e;
    }
    return r;
}

/* glibc closes a directory's descriptor whatever closedir returns. One
 * opendir opened is not in the table (unless a rewinddir looked it up):
 * nothing to forget, and the fast paths, which any change to the table
 * resets, keep on. */
void st_lifecycle_dir_closed(int fd)
{
    if (fd >= 0 && st_fd_peek(fd)) {
        int e = errno;
        st_fd_closed(fd);
        errno = e;
    }
}
