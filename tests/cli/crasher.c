/* crasher — reads, then ends the way it is told, for the crash tests.
 *
 *   cli_crasher FILE ITERATIONS HOW [THREADS]
 *
 * Each of THREADS threads (default 1) opens FILE twice — a stream and a
 * descriptor — and does ITERATIONS rounds of fseek + fread(64) and one
 * pread(100), from a fixed seed, so two runs make exactly the same calls.
 * Then the process ends by HOW: ok (fclose, return), segv, abort, kill
 * (SIGKILL itself: no handler can run), or _exit. Prints nothing. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static const char *path;
static long iterations;
static FILE *streams[64];
static int fds[64];

static void *reader(void *arg)
{
    long k = (long)arg;
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1);
    FILE *fp = fopen(path, "r");
    int fd = open(path, O_RDONLY);
    if (!fp || fd < 0)
        exit(2);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    char buf[128];
    for (long i = 0; i < iterations; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        long at = (long)(s % (uint64_t)(size - 200));
        fseek(fp, at, SEEK_SET);
        if (fread(buf, 1, 64, fp) != 64)
            exit(3);
        if (pread(fd, buf, 100, at + 50) != 100)
            exit(3);
    }
    streams[k] = fp;
    fds[k] = fd;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    path = argv[1];
    iterations = strtol(argv[2], NULL, 10);
    const char *how = argv[3];
    long threads = argc > 4 ? strtol(argv[4], NULL, 10) : 1;
    if (threads < 1 || threads > 64)
        return 2;
    pthread_t t[64];
    for (long k = 0; k < threads; k++)
        pthread_create(&t[k], NULL, reader, (void *)k);
    for (long k = 0; k < threads; k++)
        pthread_join(t[k], NULL);
    if (strcmp(how, "segv") == 0) {
        volatile int *null = NULL;
        return *null;
    }
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "kill") == 0)
        kill(getpid(), SIGKILL);
    if (strcmp(how, "_exit") == 0)
        _exit(0);
    for (long k = 0; k < threads; k++) {
        fclose(streams[k]);
        close(fds[k]);
    }
    return 0;
}
