/* warn.h — one-line messages from inside a traced program.
 *
 * Written with write(2) to stderr, never through stdio (which would run
 * through our own hooks and share the program's buffers): to the stderr the
 * process started with, even after the program closed its fd 2, and never
 * to a file the program put on fd 2 itself (st_lifecycle_report_fd). */
#ifndef SEEKTRACE_WARN_H
#define SEEKTRACE_WARN_H

void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
