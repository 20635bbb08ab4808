/* cost_measure.c — see cost_measure.h.
 *
 * Each figure is the time of a short batch (1 ms) of identical syscalls
 * divided by their number: one clock_gettime per chunk of calls, so the
 * clock's own cost vanishes. Every figure is measured once per round, the
 * rounds interleave the figures (a machine speeding up or slowing down
 * spreads over all of them), a batch during which another process took the
 * CPU is dropped (on a busy machine most long batches would be), and each
 * figure is the median of its batches (one hit by an interrupt is an
 * outlier the median ignores). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cost_measure.h"
#include "sort.h"

/* Larger than most CPUs' last-level cache, so that large reads copy from
 * memory as a program's reads of a big cached file do, not from the CPU's
 * cache. */
#define FILE_BYTES (64u << 20)
#define MAX_READ (1u << 20)
#define MAX_ROUNDS 160
#define BATCH_NS 1000000

/* The large reads the per-byte cost is fitted over: 4 KiB to 1 MiB. */
static const size_t read_sizes[] = {4096, 16384, 65536, 262144, MAX_READ};
#define NSIZES (sizeof read_sizes / sizeof read_sizes[0])

enum figure { F_READ1, F_LSEEK, F_FSTAT, F_SIZED, NFIGURES = F_SIZED + NSIZES };

struct bench {
    int fd;
    char *buf;
    size_t size;  /* of a sized read */
    off_t offset; /* lseek's target, moved on each call */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calls measured; 0 or -1 when the syscall failed. */
static int op_read1(struct bench *b)
{
    return read(b->fd, b->buf, 1) == 1 ? 0 : -1;
}

static int op_lseek(struct bench *b)
{
    b->offset = (b->offset + 4096) % FILE_BYTES;
    return lseek(b->fd, b->offset, SEEK_SET) == b->offset ? 0 : -1;
}

static int op_fstat(struct bench *b)
{
    struct stat st;
    return fstat(b->fd, &st);
}

/* Reads on through the file, starting over at its end (one lseek per 64
 * MiB: noise). */
static int op_sized(struct bench *b)
{
    ssize_t n = read(b->fd, b->buf, b->size);
    if (n == (ssize_t)b->size)
        return 0;
    return n >= 0 && lseek(b->fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* Nanoseconds per call of op, from chunks of calls run for at least
 * BATCH_NS; -1 when a call failed (errno says why). */
static double per_call_ns(int (*op)(struct bench *), struct bench *b, unsigned chunk)
{
    uint64_t calls = 0, start = now_ns(), t;
    do {
        for (unsigned i = 0; i < chunk; i++)
            if (op(b) != 0)
                return -1;
        calls += chunk;
        t = now_ns();
    } while (t - start < BATCH_NS);
    return (double)(t - start) / (double)calls;
}

/* One batch of figure f. */
static double measure(struct bench *b, enum figure f)
{
    switch (f) {
    case F_READ1:
        /* 1-byte reads walk a few pages from the start: always cached. */
        if (lseek(b->fd, 0, SEEK_SET) != 0)
            return -1;
        return per_call_ns(op_read1, b, 64);
    case F_LSEEK:
        return per_call_ns(op_lseek, b, 64);
    case F_FSTAT:
        return per_call_ns(op_fstat, b, 64);
    default:
        b->size = read_sizes[f - F_SIZED];
        /* About 256 KiB between clock reads. */
        return per_call_ns(op_sized, b, b->size < 262144 ? (unsigned)(262144 / b->size) : 1);
    }
}

/* Times the scheduler took the CPU from this thread for another. */
static long preempted(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    st_sort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* time = intercept + slope * size, least squares weighted by 1/time²: the
 * noise of a batch is a fraction of its time, so the fit weighs each size's
 * relative error alike — the small reads pin the intercept, the large ones
 * the slope. */
static void fit(const double *t, double *slope, double *intercept)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        double w = 1 / (t[i] * t[i]), x = (double)read_sizes[i];
        sw += w;
        sx += w * x;
        sy += w * t[i];
        sxx += w * x * x;
        sxy += w * x * t[i];
    }
    *slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
    *intercept = (sy - *slope * sx) / sw;
}

/* Four significant digits: the measurement's precision is about 1%; more
 * digits in the file would be noise. */
static double round4(double v)
{
    char s[32];
    snprintf(s, sizeof s, "%.4g", v);
    return strtod(s, NULL);
}

/* A file of FILE_BYTES in $TMPDIR or /tmp, unlinked at once (nothing left
 * behind, whatever ends the run), written and read back once so that all
 * of it sits in the page cache. Returns its descriptor or -1 with err. */
static int cached_file(char *buf, char *err, size_t errsize)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/seektrace-calibrate.XXXXXX", dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errsize, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }
    unlink(path);
    /* Not zeros: a file system may keep zero blocks as holes, which reads
     * fill without the page cache. */
    memset(buf, 'x', MAX_READ);
    for (size_t done = 0; done < FILE_BYTES; done += MAX_READ) {
        ssize_t n = write(fd, buf, MAX_READ);
        if (n != (ssize_t)MAX_READ) {
            snprintf(err, errsize, "cannot write a %u MiB file in %s: %s (set TMPDIR elsewhere)",
                     FILE_BYTES >> 20, dir, n < 0 ? strerror(errno) : "short write");
            close(fd);
            return -1;
        }
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        goto fail;
    for (size_t done = 0; done < FILE_BYTES; done += MAX_READ)
        if (read(fd, buf, MAX_READ) != (ssize_t)MAX_READ)
            goto fail;
    return fd;
fail:
    snprintf(err, errsize, "cannot read back the file in %s: %s", dir, strerror(errno));
    close(fd);
    return -1;
}

/* The batches of each figure, all of them and those no other process
 * interrupted. */
struct samples {
    double all[NFIGURES][MAX_ROUNDS], clean[NFIGURES][MAX_ROUNDS];
    unsigned nclean[NFIGURES];
};

/* Runs the rounds; returns 0 or -1 when a syscall failed. */
static int run_rounds(struct bench *b, unsigned rounds, struct samples *s)
{
    /* Round 0 warms up (the CPU's clock, the caches) and is dropped. */
    for (unsigned r = 0; r <= rounds; r++) {
        for (int f = 0; f < NFIGURES; f++) {
            long before = preempted();
            double ns = measure(b, (enum figure)f);
            if (ns < 0)
                return -1;
            if (!r)
                continue;
            s->all[f][r - 1] = ns;
            if (preempted() == before)
                s->clean[f][s->nclean[f]++] = ns;
        }
    }
    return 0;
}

int cost_measure(int quick, struct cost_measurement *out, char *err, size_t errsize)
{
    /* 160 rounds of 1 ms per figure (1.3 s), or 20 (0.16 s). */
    const unsigned rounds = quick ? 20 : MAX_ROUNDS;
    uint64_t start = now_ns();
    struct bench b = {.fd = -1};
    struct samples *s = calloc(1, sizeof *s);
    b.buf = malloc(MAX_READ);
    if (!s || !b.buf) {
        free(s);
        free(b.buf);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    b.fd = cached_file(b.buf, err, errsize);
    int failed = b.fd < 0 || run_rounds(&b, rounds, s) != 0;
    if (failed && b.fd >= 0)
        snprintf(err, errsize, "a syscall on the calibration file failed: %s", strerror(errno));
    if (b.fd >= 0)
        close(b.fd);
    free(b.buf);
    double fig[NFIGURES];
    unsigned dropped = 0;
    /* Too few clean batches (a machine busy throughout): all of them. */
    for (int f = 0; f < NFIGURES && !failed; f++) {
        dropped += rounds - s->nclean[f];
        fig[f] = s->nclean[f] >= 3 ? median(s->clean[f], s->nclean[f]) : median(s->all[f], rounds);
    }
    free(s);
    if (failed)
        return -1;
    double slope, intercept;
    fit(fig + F_SIZED, &slope, &intercept);
    memset(out, 0, sizeof *out);
    out->model.read_ns = round4(fig[F_READ1]);
    out->model.lseek_ns = round4(fig[F_LSEEK]);
    out->model.fstat_ns = round4(fig[F_FSTAT]);
    out->model.byte_ns = round4(slope);
    out->fit_read_ns = round4(intercept);
    out->interrupted = (double)dropped / (rounds * NFIGURES);
    out->seconds = (double)(now_ns() - start) / 1e9;
    /* Named for the check only (the caller names it): anything invalid is
     * then the measurement's. */
    struct st_cost_model named = out->model;
    snprintf(named.source, sizeof named.source, "measured");
    const char *why = st_cost_invalid(&named);
    if (why) {
        snprintf(err, errsize, "the measurement was too noisy (%s); try again on an idle machine",
                 why);
        return -1;
    }
    return 0;
}
