/* host_costs — what a syscall, and memory touched right after one, cost on
 * this machine: the figures docs/benchmarks.md reasons with ("where the
 * time goes").
 *
 *   host_costs [--iterations N] [--rounds R]
 *
 * Each iteration reads one byte from /dev/zero (a syscall that does
 * almost nothing else), then touches PAGES cache lines. Three ways, timed
 * in turn (A B C A B C ...) so that a change in the machine's load hits
 * them alike, medians over the rounds:
 *   same:        the lines all in one page, addresses known in advance;
 *   spread:      each line in its own page, addresses known in advance;
 *   same chain:  the lines in one page, each holding the next one's
 *                address (a pointer chase: fd table -> entry -> stream);
 *   chain:       the same chase, each line in its own page.
 * On a kernel with page-table isolation and no PCID every syscall empties
 * the TLB, so spread and chain pay a page walk per page; their difference
 * from the same-page way, per page, is that price.
 * Prints key=value pairs on one line. */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGES 8
#define MAX_ROUNDS 101

enum way { SAME, SPREAD, SAME_CHAIN, CHAIN, WAYS };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

/* One timed run: ns per iteration. The touches of a round's lines are
 * summed into `sink` so that none can be dropped. */
static double run(int fd, enum way w, void **lines[PAGES + 1], long iterations, uintptr_t *sink)
{
    char byte;
    double t0 = now_ns();
    for (long k = 0; k < iterations; k++) {
        if (read(fd, &byte, 1) != 1) {
            perror("host_costs: read /dev/zero");
            exit(1);
        }
        if (w == CHAIN || w == SAME_CHAIN) {
            void **x = lines[0];
            for (int j = 0; j < PAGES; j++)
                x = *x;
            *sink += (uintptr_t)x;
        } else {
            for (int j = 0; j < PAGES; j++)
                *sink += (uintptr_t)*(void *volatile *)lines[j];
        }
    }
    return (now_ns() - t0) / (double)iterations;
}

int main(int argc, char **argv)
{
    long iterations = 100000;
    int rounds = 15;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
            iterations = atol(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: host_costs [--iterations N] [--rounds R]\n");
            return 2;
        }
    }
    if (iterations < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "host_costs: --iterations must be >= 1, --rounds 1..%d\n", MAX_ROUNDS);
        return 2;
    }
    /* The spread lines 2 MiB + 4 KiB apart, each under its own page-table
     * page, as a program's stack, TLS, heap and libraries are: pages close
     * together share the page-table entries a walk reads, and cost less. */
    size_t stride = (2u << 20) + 4096;
    char *mem = mmap(NULL, (PAGES + 2) * stride, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd = open("/dev/zero", O_RDONLY);
    if (mem == MAP_FAILED || fd < 0) {
        perror("host_costs");
        return 1;
    }
    void **same[PAGES + 1], **spread[PAGES + 1];
    for (int j = 0; j <= PAGES; j++) {
        same[j] = (void **)(mem + (PAGES + 1) * stride + 64 * j);
        spread[j] = (void **)(mem + j * stride + 64 * j);
    }
    for (int j = 0; j < PAGES; j++) {
        *same[j] = same[j + 1];
        *spread[j] = spread[j + 1];
    }
    double t[WAYS][MAX_ROUNDS];
    uintptr_t sink = 0;
    for (int r = 0; r < rounds; r++) {
        t[SAME][r] = run(fd, SAME, same, iterations, &sink);
        t[SPREAD][r] = run(fd, SPREAD, spread, iterations, &sink);
        t[SAME_CHAIN][r] = run(fd, SAME_CHAIN, same, iterations, &sink);
        t[CHAIN][r] = run(fd, CHAIN, spread, iterations, &sink);
    }
    double same_ns = median(t[SAME], rounds), spread_ns = median(t[SPREAD], rounds),
           same_chain_ns = median(t[SAME_CHAIN], rounds), chain_ns = median(t[CHAIN], rounds);
    printf("syscall_ns=%.1f page_after_syscall_ns=%.1f dependent_page_after_syscall_ns=%.1f "
           "pages=%d iterations=%ld rounds=%d sink=%d\n",
           same_ns, (spread_ns - same_ns) / PAGES, (chain_ns - same_chain_ns) / PAGES, PAGES,
           iterations, rounds, (int)(sink & 1));
    return 0;
}
