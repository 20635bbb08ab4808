/* lifecycle.c — ownership of the accounts, and the stderr a report may use.
 * See lifecycle.h. Everything here runs on cold paths (start-up, fork, exit,
 * closing fd 2) and uses raw syscalls: the program may wrap the libc names,
 * and ours must not be counted or recurse into our own wrappers. */
#define _GNU_SOURCE 1
#include "lifecycle.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

/* The pid whose accounts this memory holds. */
static int owner_pid;

/* The stderr the process started with, by identity. */
static int stderr_known;
static dev_t stderr_dev;
static ino_t stderr_ino;
/* A close-on-exec duplicate of it, made when the program closed fd 2. */
static int stderr_saved = -1;

static int raw_getpid(void)
{
    return (int)syscall(SYS_getpid);
}

static int is_startup_stderr(int fd)
{
    struct stat st;
    return stderr_known && syscall(SYS_fstat, fd, &st) == 0 && st.st_dev == stderr_dev &&
           st.st_ino == stderr_ino;
}

static void after_fork_child(void)
{
    st_lifecycle_child();
}

void st_lifecycle_init(void)
{
    __atomic_store_n(&owner_pid, raw_getpid(), __ATOMIC_RELEASE);
    struct stat st;
    if (syscall(SYS_fstat, 2, &st) == 0) {
        stderr_dev = st.st_dev;
        stderr_ino = st.st_ino;
        stderr_known = 1;
    }
    pthread_atfork(NULL, NULL, after_fork_child);
    st_signals_init();
}

int st_lifecycle_is_owner(void)
{
    return raw_getpid() == __atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE);
}

void st_lifecycle_child(void)
{
    __atomic_store_n(&owner_pid, raw_getpid(), __ATOMIC_RELEASE);
}

int st_lifecycle_report_fd(void)
{
    int saved = __atomic_load_n(&stderr_saved, __ATOMIC_ACQUIRE);
    if (saved >= 0 && is_startup_stderr(saved))
        return saved;
    return is_startup_stderr(2) ? 2 : -1;
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

void st_lifecycle_fd_closing(int fd)
{
    if (fd != 2 || st_config.output || __atomic_load_n(&stderr_saved, __ATOMIC_ACQUIRE) >= 0)
        return;
    int e = errno;
    int d = is_startup_stderr(2) ? (int)syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, high_fd_base()) : -1;
    int expected = -1;
    if (d >= 0 && !__atomic_compare_exchange_n(&stderr_saved, &expected, d, 0, __ATOMIC_ACQ_REL,
                                               __ATOMIC_ACQUIRE))
        syscall(SYS_close, d); /* another thread saved it first */
    errno = e;
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
