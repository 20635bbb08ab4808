/* workload.h — what every integration-test workload shares.
 *
 * A workload counts, on its own side of the API, the bytes it asked for and the
 * bytes it got, and prints them as one JSON line. The driver
 * (tests/integration/strace_compare.py) checks seektrace's report against that
 * line, and the report's kernel figures against strace. Header-only and usable
 * from C and C++ so that each workload stays one small file. */
#ifndef SEEKTRACE_WORKLOAD_H
#define SEEKTRACE_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../test_prog.h"

struct tally {
    unsigned long long requested; /* bytes asked for (size*nmemb, count, …) */
    unsigned long long delivered; /* bytes received */
    unsigned long long calls;     /* read calls made, including the one that hit EOF */
};

static inline void tally_call(struct tally *t, size_t requested, size_t delivered)
{
    t->requested += requested;
    t->delivered += delivered;
    t->calls++;
}

/* The one line of stdout the driver reads; exit status 0 only if it got out. */
static inline int print_tally(const struct tally *t)
{
    printf("{\"requested\": %llu, \"delivered\": %llu, \"calls\": %llu}\n",
           t->requested, t->delivered, t->calls);
    return fflush(stdout) == 0 ? 0 : 1;
}


/* stat() rather than fseek(SEEK_END)+ftell: the size must not cost the stream
 * any syscall the test did not ask for. */
static inline long file_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        die(path);
    return (long)st.st_size;
}

/* splitmix64: the same offsets on every run and every libc (rand() is neither
 * specified nor cheap to reason about), and any seed is valid. */
static inline uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A random offset in [0, limit]. */
static inline long random_offset(uint64_t *state, long limit)
{
    return (long)(next_random(state) % (uint64_t)(limit + 1));
}

#endif
