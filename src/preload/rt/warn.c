/* warn.c — see warn.h. */
#include "warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_fds.h"

void st_warn(const char *fmt, ...)
{
    int fd = st_lifecycle_report_fd();
    if (fd < 0)
        return;
    char line[512];
    int n = snprintf(line, sizeof line, "seektrace: warning: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    size_t len = (size_t)n + ((size_t)m < sizeof line - (size_t)n - 1 ? (size_t)m : sizeof line - (size_t)n - 2);
    line[len++] = '\n';
    syscall(SYS_write, fd, line, len);
}
