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
 *   lifecycle_vfork.c    vfork: the child's calls leave the parent's accounts alone */
#ifndef SEEKTRACE_LIFECYCLE_H
#define SEEKTRACE_LIFECYCLE_H

#include <signal.h>

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

#endif
