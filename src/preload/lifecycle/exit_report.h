/* exit_report.h — the report a traced process writes when it ends. */
#ifndef SEEKTRACE_EXIT_REPORT_H
#define SEEKTRACE_EXIT_REPORT_H

/* Writes the report once (later calls do nothing), to SEEKTRACE_OUTPUT or
 * stderr. Called after glibc's exit-time stdio cleanup, from _exit, or from
 * our destructor when the cleanup could not be hooked. */
void st_report_at_exit(void);

/* The command line, captured at start-up for the report's argv. */
void st_report_set_argv(int argc, char **argv);

/* "exact", or "inferred" with the reason the stdio hook failed; and the C
 * library's version (NULL: not glibc). */
void st_report_set_capture(const char *reason_if_inferred, const char *libc_version);

/* After fork: the child reports for itself, once. */
void st_report_reset_in_child(void);

/* Waits, up to max_ms, for a report another thread is writing (a fatal
 * signal must not end the process under it). */
void st_report_wait(int max_ms);

/* Set while a fatal-signal handler (lifecycle_signals.c) writes the report:
 * only async-signal-safe work then (no symbolization: it would dlopen libdw
 * and malloc). */
extern int st_report_from_signal;

/* Set by lifecycle_signals.c once a handler other than ours is installed
 * for any signal (through sigaction, signal and the like, or before ours
 * went in): only then can the program's own code be running in a signal
 * handler when the report is asked for, and only then does the report
 * unwind its stack to find out. */
extern int st_report_program_handlers;

#endif
