/* own_fds.c — which process owns the accounts, and the descriptors a
 * report may use. See own_fds.h. Everything here runs on cold paths (start-up,
 * fork, exit, closing a report's descriptor) and uses raw syscalls: the
 * program may wrap the libc names, and ours must not be counted or recurse
 * into our own wrappers. */
#define _GNU_SOURCE 1
#include "own_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "glibc_compat.h"

static int owner_pid;

/* A descriptor a report may go to, known by its identity at start-up, and
 * a close-on-exec duplicate made when the program closes or replaces it:
 * stderr, and the descriptor SEEKTRACE_OUTPUT names (output.h). */
struct start_fd {
    int fd; /* its number; -1: none */
    int known;
    dev_t dev;
    ino_t ino;
    int saved; /* the duplicate, or -1 */
};
/* All zero until st_lifecycle_init fills them in: not known, so never
 * written to or duplicated before. Zero, they live in .bss: initialised,
 * they would put a page of the library's .data to copy at start-up. */
static struct start_fd err_fd, out_fd;

static int raw_getpid(void)
{
    return (int)syscall(SYS_getpid);
}

static void remember(struct start_fd *d)
{
    struct stat st;
    if (d->fd >= 0 && syscall(SYS_fstat, d->fd, &st) == 0) {
        d->dev = st.st_dev;
        d->ino = st.st_ino;
        d->known = 1;
    }
}

static int is_original(const struct start_fd *d, int fd)
{
    struct stat st;
    return d->known && syscall(SYS_fstat, fd, &st) == 0 && st.st_dev == d->dev &&
           st.st_ino == d->ino;
}

/* The duplicate if one was made, else the descriptor itself if it is still
 * the file it was; -1 when writing to it could land in a file the program
 * opened there itself. */
static int usable(const struct start_fd *d)
{
    int saved = __atomic_load_n(&d->saved, __ATOMIC_ACQUIRE);
    if (saved >= 0 && is_original(d, saved))
        return saved;
    return is_original(d, d->fd) ? d->fd : -1;
}

void st_own_fds_init(int output_fd)
{
    __atomic_store_n(&owner_pid, raw_getpid(), __ATOMIC_RELEASE);
    err_fd = (struct start_fd){.fd = 2, .saved = -1};
    remember(&err_fd);
    out_fd = (struct start_fd){.fd = output_fd, .saved = -1};
    remember(&out_fd);
}

void st_own_fds_child(void)
{
    __atomic_store_n(&owner_pid, raw_getpid(), __ATOMIC_RELEASE);
}

int st_lifecycle_is_owner(void)
{
    return raw_getpid() == __atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE);
}

int st_lifecycle_report_fd(void)
{
    /* Before st_lifecycle_init (the settings are being read, and their
     * warnings written) fd 2 is still the one the process started with. */
    if (!__atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE))
        return 2;
    return usable(&err_fd);
}

int st_lifecycle_output_fd(void)
{
    return usable(&out_fd);
}

/* High enough that the program's own opens (always the lowest free number)
 * do not meet it, below the soft limit F_DUPFD must respect. */
static int high_fd_base(void)
{
    struct rlimit rl;
    rlim_t lim = 1024;
    if (syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        lim = rl.rlim_cur;
    if (lim > 1024)
        lim = 1024;
    return (int)(lim - lim / 8);
}

/* Only the process whose memory this is: a vfork child shares it but has a
 * descriptor table of its own, and a duplicate made (or moved) there would
 * leave its number in the parent's memory, naming nothing in the parent. */
static void keep(struct start_fd *d)
{
    if (__atomic_load_n(&d->saved, __ATOMIC_ACQUIRE) >= 0 || !st_lifecycle_is_owner())
        return;
    int e = errno;
    int dup = is_original(d, d->fd) ? (int)syscall(SYS_fcntl, d->fd, F_DUPFD_CLOEXEC,
                                                   high_fd_base()) : -1;
    int expected = -1;
    if (dup >= 0 && !__atomic_compare_exchange_n(&d->saved, &expected, dup, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE))
        syscall(SYS_close, dup); /* another thread saved it first */
    errno = e;
}

/* The program is about to put a file of its own on the number of d's
 * duplicate (dup2 onto it, or an fclose of an fdopen of it): the duplicate
 * moves to another number first, and the old one is closed, free for the
 * program as it would be without the library. */
static void move_away(struct start_fd *d, int fd)
{
    if (!st_lifecycle_is_owner())
        return;
    int e = errno;
    int moved = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high_fd_base());
    int expected = fd;
    if (moved >= 0 && __atomic_compare_exchange_n(&d->saved, &expected, moved, 0,
                                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        syscall(SYS_close, fd);
    else if (moved >= 0)
        syscall(SYS_close, moved); /* another thread moved it first */
    errno = e;
}

/* d's duplicate, or -1 (before st_lifecycle_init too, where saved is 0). */
static int saved_fd(const struct start_fd *d)
{
    return d->known ? __atomic_load_n(&d->saved, __ATOMIC_ACQUIRE) : -1;
}

int st_lifecycle_report_fd_kept(void)
{
    /* Only another thread could close fd 2 under the report (its signals
     * are blocked): a process that never had one spares the duplicate's
     * getpid, getrlimit, fcntl and fstat. */
    if (!__libc_single_threaded)
        keep(&err_fd);
    return st_lifecycle_report_fd();
}

/* The report file's descriptor while the report is written into it, plus
 * one: zero (none) lives in .bss, like err_fd and out_fd. */
static int held_fd_plus1;

void st_lifecycle_hold_fd(int fd)
{
    __atomic_store_n(&held_fd_plus1, fd + 1, __ATOMIC_RELEASE);
}

static int held_fd(void)
{
    return __atomic_load_n(&held_fd_plus1, __ATOMIC_ACQUIRE) - 1;
}

int st_lifecycle_is_own_fd(int fd)
{
    return fd >= 0 && (fd == saved_fd(&err_fd) || fd == saved_fd(&out_fd) || fd == held_fd());
}

int st_lifecycle_own_fds(int out[ST_OWN_FDS_MAX])
{
    if (!st_lifecycle_is_owner())
        return 0;
    const int all[ST_OWN_FDS_MAX] = {saved_fd(&err_fd), saved_fd(&out_fd), held_fd()};
    int n = 0;
    for (int i = 0; i < ST_OWN_FDS_MAX; i++) {
        if (all[i] < 0)
            continue;
        int j = n++;
        for (; j > 0 && out[j - 1] > all[i]; j--)
            out[j] = out[j - 1];
        out[j] = all[i];
    }
    return n;
}

/* stderr is kept whether or not the report goes there: with a report file
 * it still carries the warning and the report when that file cannot be
 * written. */
void st_lifecycle_fd_closing(int fd)
{
    if (fd == 2)
        keep(&err_fd);
    else if (fd == out_fd.fd && fd >= 0)
        keep(&out_fd);
    else if (fd >= 0 && fd == saved_fd(&err_fd))
        move_away(&err_fd, fd);
    else if (fd >= 0 && fd == saved_fd(&out_fd))
        move_away(&out_fd, fd);
}

void st_lifecycle_range_closing(unsigned lo, unsigned hi)
{
    if (lo <= 2 && hi >= 2)
        st_lifecycle_fd_closing(2);
    if (out_fd.fd >= 0 && lo <= (unsigned)out_fd.fd && hi >= (unsigned)out_fd.fd)
        st_lifecycle_fd_closing(out_fd.fd);
}

#define SIGBIT(s) (1UL << ((s) - 1))
#define OWN_WRITE_SIGNALS (SIGBIT(SIGPIPE) | SIGBIT(SIGXFSZ))

void st_lifecycle_block_signals(struct st_sigblock *b)
{
    unsigned long all = ~0UL, pending = 0;
    b->old = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &b->old, sizeof all);
    syscall(SYS_rt_sigpending, &pending, sizeof pending);
    b->pending = pending & OWN_WRITE_SIGNALS;
}

void st_lifecycle_unblock_signals(const struct st_sigblock *b)
{
    unsigned long pending = 0;
    syscall(SYS_rt_sigpending, &pending, sizeof pending);
    unsigned long ours = pending & OWN_WRITE_SIGNALS & ~b->pending;
    for (int sig = 1; ours && sig <= 64; sig++) {
        if (!(ours & SIGBIT(sig)))
            continue;
        unsigned long set = SIGBIT(sig);
        struct timespec zero = {0, 0};
        syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, sizeof set);
        ours &= ~SIGBIT(sig);
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &b->old, NULL, sizeof b->old);
}
