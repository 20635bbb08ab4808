/* lifecycle.h — the traced process's life around the program's I/O: which
 * process owns the accounts, how it ends, and where its report may go.
 *
 * A preload library must report everything up to the end whichever way the
 * process ends (return, exit, _exit, exec, a fatal signal) and must never
 * change how it ends. docs/reliability.md states what is guaranteed and
 * where it stops; the pieces live in
 *   lifecycle.c          ownership (fork, vfork, _Fork), the descriptors a report may use
 *   lifecycle_exec.c     the exec family: the old image's report before execve
 *   lifecycle_signals.c  fatal signals: report, then the program's own disposition
 *   lifecycle_fds.c      close_range/closefrom/closedir: descriptors closed out of sight
 *   lifecycle_detach.c   daemon, login_tty, forkpty, quick_exit: glibc's internal
 *                        _exit and dup2
 *   lifecycle_vfork.c    vfork: the child's calls leave the parent's accounts alone */
#ifndef SEEKTRACE_LIFECYCLE_H
#define SEEKTRACE_LIFECYCLE_H

#include <signal.h>

/* Called once from initialise(), after the settings are loaded. */
void st_lifecycle_init(void);

/* True in the process whose accounts live in this memory. False in a vfork
 * child (it shares its parent's memory until it execs or _exits) and in a
 * child made by a raw clone/fork syscall that bypassed glibc's fork: those
 * must neither report nor touch the report state. One getpid syscall. */
int st_lifecycle_is_owner(void);

/* In a fork child (init.c's atfork handler, or our _Fork wrapper): this
 * process owns its copy of the accounts, emptied, so that it reports only
 * what it does itself. */
void st_lifecycle_child(void);

/* The descriptor a report to stderr, and every warning, may be written to:
 * the stderr the process started with (kept alive by
 * st_lifecycle_fd_closing when the program closes or replaces fd 2), or -1
 * when writing to fd 2 could land in a file the program opened there
 * itself. Before st_lifecycle_init: 2. */
int st_lifecycle_report_fd(void);

/* The same, at exit, for the report itself: through the duplicate, made
 * now if the program has not closed fd 2, so that another thread of the
 * program closing fd 2 while the report is written cannot take it away, nor
 * put a file of its own under the number (one fcntl more at exit). */
int st_lifecycle_report_fd_kept(void);

/* The same for the descriptor SEEKTRACE_OUTPUT names (/dev/stdout,
 * /dev/fd/N: output.h): the file it was at start-up, or -1. */
int st_lifecycle_output_fd(void);

/* fd is about to be closed or replaced by the program (close, dup2 onto it,
 * fclose). For fd 2, and for the descriptor SEEKTRACE_OUTPUT names, keeps a
 * close-on-exec duplicate of the original at a high descriptor so the
 * report and its warnings still reach it. When fd is such a duplicate (the
 * target of a dup2), the duplicate moves to another number first: the
 * program gets the number it asked for. Only in the process that owns the
 * accounts (never a vfork child). Cheap for every other fd: a few compares. */
void st_lifecycle_fd_closing(int fd);

/* The same for every descriptor in [lo, hi] (close_range, closefrom). */
void st_lifecycle_range_closing(unsigned lo, unsigned hi);

/* The library's own descriptors: the duplicates above, which live while the
 * program runs, and the report file's while the report is written into it
 * (st_lifecycle_hold_fd; -1 lets it go). A close() of one of them is
 * answered with success and leaves it open, and close_range/closefrom
 * close around them (docs/reliability.md, section 5, says what the program
 * sees). st_lifecycle_own_fds fills out with them, ascending, and returns
 * how many (none in a process that does not own the accounts). */
#define ST_OWN_FDS_MAX 3
void st_lifecycle_hold_fd(int fd);
int st_lifecycle_is_own_fd(int fd);
int st_lifecycle_own_fds(int out[ST_OWN_FDS_MAX]);

/* Blocks every signal on this thread while a report is written, so that a
 * SIGPIPE or SIGXFSZ our own write raises cannot kill the program and a
 * SIGTERM cannot cut the report short. unblock discards the SIGPIPE and
 * SIGXFSZ our writes left pending (never one the program had pending
 * before) and restores the mask. */
struct st_sigblock {
    unsigned long old;     /* the thread's mask, kernel layout */
    unsigned long pending; /* SIGPIPE/SIGXFSZ already pending before */
};
void st_lifecycle_block_signals(struct st_sigblock *b);
void st_lifecycle_unblock_signals(const struct st_sigblock *b);

/* exit_report.c: waits, up to max_ms, for a report another thread is
 * writing (a fatal signal must not end the process under it). */
void st_report_wait(int max_ms);

/* lifecycle_detach.c: registers the quick_exit report (from init). */
void st_detach_init(void);

/* Whether this thread is inside daemon(): a fork there is daemon's, whose
 * parent ends in glibc's internal _exit. */
int st_lifecycle_in_daemon(void);

/* lifecycle_signals.c: installs the fatal-signal handlers (from init). */
void st_signals_init(void);

/* Set while a fatal-signal handler writes the report: only async-signal-safe
 * work then (no symbolization: it would dlopen libdw and malloc). */
extern int st_report_from_signal;

#endif
