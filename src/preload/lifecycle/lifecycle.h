/* lifecycle.h — the traced process's life around the program's I/O: which
 * process owns the accounts, how it ends, and where its report may go.
 *
 * A preload library must report everything up to the end whichever way the
 * process ends (return, exit, _exit, exec, a fatal signal) and must never
 * change how it ends. docs/reliability.md states what is guaranteed and
 * where it stops; the pieces live in
 *   lifecycle.c          start-up, and a fork child's accounts emptied
 *   lifecycle_exec.c     the exec family: the old image's report before execve
 *   lifecycle_signals.c  fatal signals: report, then the program's own disposition
 *   lifecycle_fds.c      close_range/closefrom/closedir: descriptors closed out of sight
 *   lifecycle_detach.c   daemon, login_tty, forkpty, quick_exit: glibc's internal
 *                        _exit and dup2
 *   lifecycle_vfork.c    vfork: the child's calls leave the parent's accounts alone
 * The interposed functions themselves are wrap/'s (wrap_process.c,
 * wrap_fds.c, wrap_signals.c): each calls the real function (boot/real.h)
 * and, around it, what this header declares. */
#ifndef SEEKTRACE_LIFECYCLE_H
#define SEEKTRACE_LIFECYCLE_H

#include <signal.h>
#include <sys/types.h>

#include "own_fds.h"

/* Called once from initialise(), after the settings are loaded. */
void st_lifecycle_init(void);

/* In a fork child (init.c's atfork handler, or our _Fork wrapper): this
 * process owns its copy of the accounts, emptied, so that it reports only
 * what it does itself. */
void st_lifecycle_child(void);

/* lifecycle_detach.c: registers the quick_exit report (from init). */
void st_detach_init(void);

/* Whether this thread is inside daemon(): a fork there is daemon's, whose
 * parent ends in glibc's internal _exit. */
int st_lifecycle_in_daemon(void);

/* lifecycle_signals.c: installs the fatal-signal handlers (from init). */
void st_signals_init(void);

/* ... and what the wrappers of sigaction/__sigaction, signal and its
 * twins, and sigset do (lifecycle_signals.c says why): with real, the
 * real function of the name called; flags and self_in_mask, the action
 * that name's SIG_DFL stands for (BSD: SA_RESTART, the signal blocked in
 * its handler; System V: SA_RESETHAND | SA_NODEFER, not blocked). */
typedef __sighandler_t (*st_signal_fn)(int, __sighandler_t);
int st_signals_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
__sighandler_t st_signals_signal(st_signal_fn real, int sig, __sighandler_t h, int flags,
                                 int self_in_mask);
__sighandler_t st_signals_sigset(st_signal_fn real, int sig, __sighandler_t h);

/* lifecycle_exec.c, around the real exec: begins writes the old image's
 * report when it recorded anything (starting the library if need be) and
 * returns whether it did; failed, after an exec that returned, starts the
 * accounts again from zero when begins had reported. */
int st_lifecycle_exec_begins(void);
void st_lifecycle_exec_failed(int reported);

/* lifecycle_detach.c: the thread is inside daemon() (on) or has left it. */
void st_lifecycle_set_in_daemon(int on);
/* Descriptors 0-2 now hold another file (daemon's child, login_tty,
 * forkpty's child), and `from` (-1: none), where it came from, is closed. */
void st_lifecycle_std_replaced(int from);

/* lifecycle_fds.c: close_range (real_from NULL) or closefrom (real_from
 * set, hi UINT_MAX) on [lo, hi], made with these real functions around the
 * library's own descriptors, and the fd table told which closed (the
 * file's opening comment). Returns what close_range returns. */
typedef int (*st_close_range_fn)(unsigned int, unsigned int, int);
typedef void (*st_closefrom_fn)(int);
int st_lifecycle_close_range(unsigned lo, unsigned hi, int flags, st_close_range_fn real_range,
                             st_closefrom_fn real_from);
/* closedir has closed fd, the directory's descriptor (-1: none): the fd
 * table forgets it, errno untouched. */
void st_lifecycle_dir_closed(int fd);

/* lifecycle_vfork.c, around the vfork syscall (wrap/wrap_process.c):
 * enter before it, leave after it in the child and the parent, with the
 * syscall's result; leave returns what vfork returns, errno set. */
void st_lifecycle_vfork_enter(void);
long st_lifecycle_vfork_leave(long result);

#endif
