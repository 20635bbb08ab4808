/* messages.c — see tool.h: what the command says on stderr (one-line
 * warnings and errors, the exit for bad input and bad usage) and the
 * progress line. */
#define _GNU_SOURCE 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

const char *st_prog = "seektrace";

/* "PREFIX: message" on stderr, always one line: a message quoting a file
 * name or a system error never breaks it. */
static void vline(const char *prefix, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    for (char *c = line; *c; c++)
        if (*c == '\n')
            *c = ' ';
    fprintf(stderr, "%s: %s\n", prefix, line);
}

void tool_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(st_prog, fmt, ap);
    va_end(ap);
}

void tool_bad_input(const char *fmt, ...)
{
    va_list ap;
    progress_end();
    va_start(ap, fmt);
    vline(st_prog, fmt, ap);
    va_end(ap);
    exit(EXIT_BAD_INPUT);
}

int tool_cmd_error(const char *cmd, const char *fmt, ...)
{
    char prefix[64];
    va_list ap;
    snprintf(prefix, sizeof prefix, "%s %s", st_prog, cmd);
    va_start(ap, fmt);
    vline(prefix, fmt, ap);
    va_end(ap);
    return EXIT_BAD_INPUT;
}

void tool_usage_error(const char *cmd, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s %s: %s; try '%s %s --help'\n", st_prog, cmd, line, st_prog, cmd);
    exit(EXIT_BAD_INPUT);
}

static struct {
    int on, shown;
    const char *what;
    uint64_t total;
    double start, last;
} prog;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(const char *what, uint64_t total)
{
    prog.on = isatty(2);
    prog.shown = 0;
    prog.what = what;
    prog.total = total;
    prog.start = prog.last = now_s();
}

void progress_step(uint64_t done, uint64_t bytes)
{
    if (!prog.on)
        return;
    double t = now_s();
    /* Only for long analyses: nothing in the first second. */
    if (t - prog.start < 1.0 || t - prog.last < 0.2)
        return;
    prog.last = t;
    prog.shown = 1;
    if (prog.total)
        fprintf(stderr, "\r%s: %s %llu/%llu, %.1f MB   ", st_prog, prog.what,
                (unsigned long long)done, (unsigned long long)prog.total, (double)bytes / 1e6);
    else
        fprintf(stderr, "\r%s: %s %.1f MB   ", st_prog, prog.what, (double)bytes / 1e6);
}

void progress_end(void)
{
    if (prog.shown)
        fprintf(stderr, "\r%*s\r", 70, "");
    prog.shown = 0;
}
