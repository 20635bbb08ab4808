/* trace_writer.h — recording every call and syscall to a trace file.
 *
 * With SEEKTRACE_TRACE=DIR, each process writes DIR/<name>.<pid>.sktrace
 * (format: include/seektrace/trace_format.h). The events themselves
 * (accounts/trace_events.h) are reported by the layers that count, one line
 * beside each count, and record the same fact, so that the accounts can be
 * rebuilt from the trace alone — also after a crash. This header is the
 * writer's own life: settings, start, fork, the footer at exit.
 *
 * Promises:
 *   - Off (SEEKTRACE_TRACE unset): each call is one load and a branch.
 *   - On, hot path: no lock, no malloc, no syscall — the event is encoded
 *     into the calling thread's chunk, which lives in a shared mapping of
 *     the file, so the kernel has it the moment it is written (SIGKILL
 *     loses nothing committed). A full chunk takes the slow path: a new
 *     chunk (an atomic add), and once per window (256 KiB or more) mapping
 *     the window and growing the file (a short spin lock and a few syscalls
 *     on a file we reopen and close again). Only the windows being written
 *     are mapped, never the cap.
 *   - No fd is kept open; nothing the program sees changes (errno is
 *     preserved, files are created O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0600).
 *   - Past the size cap (SEEKTRACE_TRACE_MAX) events are counted as lost
 *     and the trace is marked truncated; the accounts themselves are kept
 *     and written in the footer at exit.
 *   - The file is created on the first event, so a process that does no
 *     file I/O (a shell that only forks and execs) leaves no trace.
 *   - Each function here is safe to call from any thread, while the
 *     library is busy, and from a signal handler: while one runs, the
 *     thread counts as busy, so nothing it interrupts is recorded twice.
 */
#ifndef SEEKTRACE_TRACE_WRITER_H
#define SEEKTRACE_TRACE_WRITER_H

#include <stdint.h>
#include <sys/types.h>

#include "trace_events.h"

struct st_report;

/* Reads SEEKTRACE_TRACE (a directory; relative ones are taken from the
 * working directory at start-up), SEEKTRACE_TRACE_MAX (a size, default
 * 256 MiB, at least 64 KiB) and SEEKTRACE_TRACE_CLOCK (auto: the TSC where
 * safe, trace_clock.h; monotonic: clock_gettime only) into st_config.
 * Passed to st_config_load() by init.c. */
void st_trace_config_load(void);
/* Start-up, after st_config_load(): turns recording on if configured. */
void st_trace_init(void);
/* The command line (a copy the caller keeps alive), for the trace header. */
void st_trace_set_argv(int argc, const char *const *argv);
/* "inferred" capture, with its reason, for the trace header. */
void st_trace_set_capture(const char *reason_if_inferred, const char *libc_version);
/* The files a footer lists: every file with anything to show, in the
 * report's order, however few rows the report itself keeps (so memory
 * holds one row at a time, not one per file); row(i) fills memory valid
 * until its next call. */
struct st_trace_rows {
    size_t n;
    const struct st_report_file *(*row)(size_t i);
};
/* The process is ending and r is its final report (its process, storage
 * and totals; rows lists its files): write the footer and mark the trace
 * finished. Later events are not recorded. */
void st_trace_finish(const struct st_report *r, const struct st_trace_rows *rows);

/* The optional API (include/seektrace/seektrace.h, exported by
 * wrap/api.c): a MARK event with label (cut to its limit; NULL: none), and
 * the trace's pages forced to disk (0, or -1 when that failed or nothing is
 * recorded). */
void st_trace_mark(const char *label);
int st_trace_flush(void);

/* Starts a new trace on the next event: in a fork child, and after an exec
 * that failed (the old trace was finished before it). */
void st_trace_restart(void);

#endif
