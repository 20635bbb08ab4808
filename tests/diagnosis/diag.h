/* diag.h — what the diagnosis test programs share (tests/diagnosis).
 *
 * Each program does one I/O pattern, counts on its own side of the API what it
 * did (calls, bytes asked for and received, and whatever its rule talks
 * about), and prints that as one JSON line on stdout. diagnose.py compares the
 * report's counts and the finding's sentence against that line, and the
 * finding's site against the line marked in the program's source with a
 * comment SITE:<name>. Header-only, usable from C and C++. */
#ifndef SEEKTRACE_DIAG_H
#define SEEKTRACE_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit status 2: the program itself broke (bad arguments, missing file). */
__attribute__((noreturn)) static inline void die(const char *what)
{
    perror(what);
    exit(2);
}

__attribute__((noreturn)) static inline void usage(const char *text)
{
    fprintf(stderr, "usage: %s\n", text);
    exit(2);
}

static inline long arg_long(const char *s)
{
    char *end;
    long v = strtol(s, &end, 0);
    if (*s == '\0' || *end != '\0')
        usage("numeric argument expected");
    return v;
}

/* print_counts("fseeks", 3L, "delivered", 48L, (char *)0): one JSON object
 * line of long values; exit status 0 only if it got out. */
static inline int print_counts(const char *key, ...)
{
    va_list ap;
    va_start(ap, key);
    const char *sep = "{";
    for (const char *k = key; k; k = va_arg(ap, const char *)) {
        long v = va_arg(ap, long);
        printf("%s\"%s\": %ld", sep, k, v);
        sep = ", ";
    }
    va_end(ap);
    printf("}\n");
    return fflush(stdout) == 0 ? 0 : 1;
}

#endif
