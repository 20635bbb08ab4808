/* lifecycle_detach.c — daemon, login_tty, forkpty and quick_exit: what
 * glibc does inside them where the wrappers (wrap/wrap_process.c) cannot
 * see.
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
#include <stdlib.h>

#include "exit_report.h"
#include "fdtable.h"
#include "lifecycle.h"
#include "thread_state.h"
#include "warn.h"

static __thread int in_daemon __attribute__((tls_model("initial-exec")));

int st_lifecycle_in_daemon(void)
{
    return in_daemon;
}

void st_lifecycle_set_in_daemon(int on)
{
    in_daemon = on;
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

void st_lifecycle_std_replaced(int from)
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
