/* own_fds.h — which process owns the accounts, and the library's own
 * descriptors: where a report and every warning may be written, kept safe
 * from the program's close and dup2, and signals held off while the library
 * writes to them.
 *
 * At the bottom of the library (rt/): warnings (warn.c), the trace writer
 * and the stdio hooks use it; it calls nothing of the library's. Its names
 * keep the st_lifecycle_ prefix they had in lifecycle.c: the process's life
 * (lifecycle/) sets it up (st_own_fds_init) and renews it in a fork child.
 * Cold paths only, raw syscalls only. */
#ifndef SEEKTRACE_OWN_FDS_H
#define SEEKTRACE_OWN_FDS_H

/* Start-up, once the settings are read (output_fd: SEEKTRACE_OUTPUT's
 * descriptor, or -1): this process owns the accounts, and fd 2 and
 * output_fd are remembered by identity. */
void st_own_fds_init(int output_fd);
/* In a fork child, once its accounts are emptied: it owns them now. */
void st_own_fds_child(void);

/* True in the process whose accounts live in this memory. False in a vfork
 * child (it shares its parent's memory until it execs or _exits) and in a
 * child made by a raw clone/fork syscall that bypassed glibc's fork: those
 * must neither report nor touch the report state. One getpid syscall. */
int st_lifecycle_is_owner(void);

/* The descriptor a report to stderr, and every warning, may be written to:
 * the stderr the process started with (kept alive by
 * st_lifecycle_fd_closing when the program closes or replaces fd 2), or -1
 * when writing to fd 2 could land in a file the program opened there
 * itself. Before st_lifecycle_init: 2. */
int st_lifecycle_report_fd(void);

/* The same, at exit, for the report itself: through the duplicate, made
 * now if the program has not closed fd 2 and has ever had a second thread,
 * so that another thread of the program closing fd 2 while the report is
 * written cannot take it away, nor put a file of its own under the number
 * (one fcntl more at exit). The caller blocks signals meanwhile. */
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

#endif
