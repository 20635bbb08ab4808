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

#include "../test_prog.h"


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
