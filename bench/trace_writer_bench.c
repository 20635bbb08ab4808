/* trace_writer_bench — the trace writer's own throughput: events per second
 * per thread into its buffers, and bytes per event.
 *
 *   trace_writer_bench [--threads T] [--iterations N] [--dir DIR]
 *
 * Each of T threads (default 1) records N (default 1,000,000) iterations
 * of the demo's loop — a random fseek outside the buffer and an fread(16)
 * from it — as the library records them: the same st_trace_* calls in the
 * same order with the same arguments (call begin, lseek and read syscalls
 * each with its start time, re-read, seek, the fseek op ending the call,
 * call begin, deliver, the fread op ending the call): 8 clock readings and
 * 10 events per iteration, as `seektrace report --stats` counts them on the
 * demo's trace (trace records; 4 calls+syscalls: fseek, lseek, read,
 * fread). Each thread has its own stream and cells, like threads that read
 * files of their own.
 *
 * Why link the writer's sources rather than run a program under the
 * preload: under the preload every event comes with the rest of the
 * library's work (the wrapped call, the accounts, the syscalls themselves),
 * and subtracting a run without SEEKTRACE_TRACE (what bench/run's end-to-end
 * figure does) also subtracts nothing of the kernel's extra work on the
 * trace file. Here the only work in the timed loop is the writer: its
 * events, its clock readings, its chunk changes and the page faults of
 * writing into the trace file's mapping. The sources are the library's
 * own (every file of src/preload/trace/ and what they use), built with
 * the library's flags; only start-up (init.c, config.c) is replaced by
 * the few lines below.
 *
 * Timed per thread on its CPU clock (CLOCK_THREAD_CPUTIME_ID: user + sys,
 * so page faults count). Then the trace is finished, read back with the
 * reader (src/tracefile/trace_reader.c) to count its events and bytes, and
 * removed; last, the clock itself: cost per reading and its largest
 * distance from CLOCK_MONOTONIC (trace_clock.h).
 *
 * SEEKTRACE_TRACE_CLOCK=monotonic in the environment measures the writer
 * with clock_gettime only. Prints one line of key=value pairs. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cells.h"
#include "config.h"
#include "own_fds.h"
#include "report_model.h"
#include "streams.h"
#include "trace_clock.h"
#include "trace_reader.h"
#include "trace_writer.h"

/* What config.c and own_fds.c provide in the library: the settings (read
 * by the writer's own st_trace_config_load), where warnings go, and the
 * signal mask around the file's growth (left alone here). */
struct st_config st_config;
int st_lifecycle_report_fd(void)
{
    return 2;
}
void st_lifecycle_block_signals(struct st_sigblock *b)
{
    (void)b;
}
void st_lifecycle_unblock_signals(const struct st_sigblock *b)
{
    (void)b;
}

#define EVENTS_PER_ITERATION 10
#define CALLS_PER_ITERATION 4 /* fseek, its lseek and read syscalls, fread */
#define FILE_SIZE (4u << 20)

struct job {
    long iterations;
    uint64_t seed;
    double cpu_s;
};

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *run(void *arg)
{
    struct job *j = arg;
    static __thread struct st_stream stream;
    static __thread struct st_cell seek_cell, read_cell;
    stream.owner.is_stream = 1;
    stream.fd = 3;
    stream.buffer_size = 4096;
    stream.mode = ST_BUF_FULL;
    stream.origin = ST_BUF_DEFAULT;
    seek_cell.owner = &stream;
    read_cell.owner = &stream;
    struct st_tally *cs = &seek_cell.counts, *cr = &read_cell.counts;
    uint64_t seed = j->seed;
    double t0 = cpu_now();
    for (long i = 0; i < j->iterations; i++) {
        int64_t pos = (int64_t)(next_random(&seed) % (FILE_SIZE - 16));
        int64_t block = pos & ~(int64_t)4095;
        st_trace_call_begin(cs, ST_CALL_FSEEK);
        st_trace_sys_begin();
        st_trace_lseek(cs, ST_CALL_FSEEK, block);
        st_trace_sys_begin();
        st_trace_read(cs, ST_CALL_FSEEK, block, 4096);
        st_trace_reread(i & 1 ? 4096 : 0);
        st_trace_seek(cs, 0, 0);
        st_trace_op(&stream, ST_OP_FSEEK, 0, SEEK_SET, pos, 1);
        st_trace_call_end();
        st_trace_call_begin(cr, ST_CALL_FREAD);
        st_trace_deliver(cr, 16, 16);
        st_trace_op(&stream, ST_OP_FREAD, 0, 16, 0, 1);
        st_trace_call_end();
    }
    j->cpu_s = cpu_now() - t0;
    return NULL;
}

/* Events and bytes of event data in the trace at path, or -1. */
static int count_trace(const char *path, uint64_t *events, uint64_t *bytes, uint64_t *lost)
{
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = st_trace_open(path, err);
    if (!r) {
        fprintf(stderr, "trace_writer_bench: %s\n", err);
        return -1;
    }
    struct st_trace_event ev;
    int k;
    *events = 0;
    while ((k = st_trace_next(r, &ev, err)) == 1)
        ++*events;
    *bytes = st_trace_bytes_read(r);
    *lost = st_trace_info(r)->events_lost;
    (st_trace_close)(r); /* the reader's; trace_writer.h's macro of that name records a close */
    if (k < 0)
        fprintf(stderr, "trace_writer_bench: %s\n", err);
    return k < 0 ? -1 : 0;
}

/* Cost of one reading of the trace clock and of clock_gettime, in ns, and
 * the trace clock's largest distance outside [clock before, clock after]
 * over `samples` readings spread over about a second. */
static void measure_clock(double *trace_ns, double *mono_cost_ns, uint64_t *max_err, long samples)
{
    enum { READS = 5000000 };
    uint64_t t0 = mono_ns();
    for (int i = 0; i < READS; i++)
        st_trace_clock_ns();
    uint64_t t1 = mono_ns();
    for (int i = 0; i < READS; i++)
        mono_ns();
    uint64_t t2 = mono_ns();
    *trace_ns = (double)(t1 - t0) / READS;
    *mono_cost_ns = (double)(t2 - t1) / READS;
    *max_err = 0;
    uint64_t seed = 2006;
    for (long i = 0; i < samples; i++) {
        uint64_t a = mono_ns(), b = st_trace_clock_ns(), c = mono_ns();
        uint64_t e = b < a ? a - b : b > c ? b - c : 0;
        if (e > *max_err)
            *max_err = e;
        /* Land the next reading anywhere in an anchor's span. */
        uint64_t until = c + next_random(&seed) % (2 * ST_TSC_SPAN_NS / 100);
        while (mono_ns() < until)
            ;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: trace_writer_bench [--threads T] [--iterations N] [--dir DIR]\n");
    exit(2);
}

static long number(const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno || end == s || *end || n < min || n > max)
        usage();
    return n;
}

int main(int argc, char **argv)
{
    int threads = 1;
    long iterations = 1000000;
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--threads") == 0)
            threads = (int)number(argv[++i], 1, 64);
        else if (strcmp(argv[i], "--iterations") == 0)
            iterations = number(argv[++i], 1, 1000000000);
        else if (strcmp(argv[i], "--dir") == 0)
            base = argv[++i];
        else
            usage();
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/trace_writer_bench.%ld", base, (long)getpid());
    setenv("SEEKTRACE_TRACE", dir, 1);
    setenv("SEEKTRACE_TRACE_MAX", "4G", 1);
    st_trace_config_load();
    st_trace_init();
    const char *const args[] = {"trace_writer_bench"};
    st_trace_set_argv(1, args);

    struct job jobs[64];
    pthread_t tids[64];
    uint64_t w0 = mono_ns();
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){.iterations = iterations, .seed = 0x9E3779B97F4A7C15ull * (i + 1)};
        if (pthread_create(&tids[i], NULL, run, &jobs[i]) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    double cpu = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tids[i], NULL);
        cpu += jobs[i].cpu_s;
    }
    double wall = (double)(mono_ns() - w0) / 1e9;
    const char *source = st_trace_clock_source();

    struct st_report empty = {.capture = "exact", .pid = getpid()};
    const struct st_trace_rows none = {0, NULL};
    st_trace_finish(&empty, &none);
    char path[4200];
    snprintf(path, sizeof path, "%s/trace_writer_bench.%ld.sktrace", dir, (long)getpid());
    uint64_t events, bytes, lost;
    int ok = count_trace(path, &events, &bytes, &lost) == 0;
    unlink(path);
    rmdir(dir);
    if (!ok)
        return 1;
    /* The trace also holds the definitions (stream, cells) and, where a
     * chunk starts afresh, a TARGET naming the cell again: under 1% more. */
    uint64_t expected = (uint64_t)threads * (uint64_t)iterations * EVENTS_PER_ITERATION;
    if (lost || events < expected || events > expected + expected / 100 + 16u * (uint64_t)threads) {
        fprintf(stderr, "trace_writer_bench: %llu events recorded (%llu lost), %llu expected\n",
                (unsigned long long)events, (unsigned long long)lost,
                (unsigned long long)expected);
        return 1;
    }
    double clock_ns, mono_cost;
    uint64_t max_err;
    measure_clock(&clock_ns, &mono_cost, &max_err, 100000);
    double calls = (double)threads * (double)iterations * CALLS_PER_ITERATION;
    printf("threads=%d iterations=%ld events=%llu bytes=%llu bytes_per_event=%.2f "
           "events_per_s_per_thread=%.0f calls_per_s_per_thread=%.0f ns_per_event=%.2f "
           "wall_s=%.3f clock=%s clock_read_ns=%.1f clock_gettime_ns=%.1f "
           "clock_max_error_ns=%llu\n",
           threads, iterations, (unsigned long long)events, (unsigned long long)bytes,
           (double)bytes / (double)events, (double)events / cpu, calls / cpu,
           cpu * 1e9 / (double)events, wall, source, clock_ns, mono_cost,
           (unsigned long long)max_err);
    return 0;
}
