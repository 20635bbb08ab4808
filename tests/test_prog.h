/* test_prog.h — what every test program shares: how it fails and how it reads
 * its arguments. Header-only, usable from C and C++ (tests/workloads,
 * tests/diagnosis). */
#ifndef SEEKTRACE_TEST_PROG_H
#define SEEKTRACE_TEST_PROG_H

#include <stdio.h>
#include <stdlib.h>

/* Exit status 2 marks a broken test program (bad arguments, missing file),
 * never a finding or a count: the drivers report it as such. */
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

#endif
