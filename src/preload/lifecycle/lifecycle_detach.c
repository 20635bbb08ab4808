/* lifecycle_detach.c — daemon, login_tty, forkpty and quick_exit: what
 * glibc does inside them where the wrappers cannot see.
 *
 * daemon() forks, and its parent leaves through glibc's internal _exit, so
 * the _exit wrapper never writes that process's report: it is written by
 * the fork's parent handler instead, when the fork is daemon's (nothing but
 * _exit follows it there). daemon's child, login_tty() and forkpty()'s
 * child put new files on descriptors 0-2 with glibc's internal dup2 and
 * close the one they came from: 0-2 are looked up again, that one forgotten.
 * quick_exit() ends through the internal _exit too, after the program's
 * at_quick_exit handlers: the report is one of them, registered at start-up
 * so that it runs last. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pty.h>
#include <stdlib.h>
#include <utmp.h>

#include "ensure_init.h"
#include "exit_report.h"
#include "export.h"
#include "fdtable.h"
#include "lifecycle.h"
#include "real.h"
#include "thread_state.h"
#include "warn.h"

static __thread int in_daemon __attribute__((tls_model("initial-exec")));

int st_lifecycle_in_daemon(void)
{
    return in_daemon;
}

static void report_at_quick_exit(void)
{
    st_report_at_exit();
}

void st_detach_init(void)
{
    if (at_quick_exit(report_at_quick_exit) != 0)
        st_warn("cannot register for quick_exit: a process that ends in it writes no report");
}

/* Descriptors 0-2 now hold another file, and `from` (-1: none), where it
 * came from, is closed. */
static void std_replaced(int from)
{
    int e = errno;
    st_self.busy++;
    for (int fd = 0; fd <= 2; fd++)
        st_fd_refresh(fd);
    if (from > 2)
        st_fd_closed(from);
    st_self.busy--;
    errno = e;
}

typedef int (*daemon_fn)(int, int);
typedef int (*login_tty_fn)(int);
typedef pid_t (*forkpty_fn)(int *, char *, const struct termios *, const struct winsize *);
ST_REAL_LAZY(daemon, daemon_fn)
ST_REAL_LAZY(login_tty, login_tty_fn)
ST_REAL_LAZY(forkpty, forkpty_fn)

ST_EXPORT(int, daemon, (int nochdir, int noclose))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(daemon)
    in_daemon = 1;
    int r = real(nochdir, noclose); /* only the child returns, or a failed fork */
    in_daemon = 0;
    if (r == 0 && !noclose)
        std_replaced(-1);
    return r;
}

ST_EXPORT(int, login_tty, (int fd))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(login_tty)
    int r = real(fd);
    if (r == 0)
        std_replaced(fd);
    return r;
}

ST_EXPORT(pid_t, forkpty, (int *master, char *name, const struct termios *termp,
                           const struct winsize *winp))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(forkpty)
    pid_t r = real(master, name, termp, winp);
    if (r == 0)
        std_replaced(-1);
    return r;
}
