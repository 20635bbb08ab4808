/* Writing through stdio, one way per mode; the file is truncated first.
 * Besides the usual line (nothing is read: requested and delivered 0;
 * calls: the writing calls made), it says what it handed to stdio
 * ("written": the bytes, counted from each call's own result) and why
 * glibc will have written ("flushes": write syscalls per cause), which
 * follows from glibc's rules and the stream's buffer size (__fbufsize):
 *
 *   unbuffered N   N fprintf lines on an _IONBF stream: one write each
 *   linebuf N      N fprintf lines on an _IOLBF regular file: one each
 *   fflush N       N fprintf lines, fflush after each: one each
 *   fputc SIZE     SIZE bytes by fputc: a write per full buffer, the last
 *                  one at fclose
 *   putc_unlocked SIZE   the same through the inline macro
 *   bigwrite N     N fwrites of 8 buffers each: the first straight from
 *                  the program's memory, then each fills the buffer (a
 *                  write) and writes the other 7 buffers straight
 *   wplus N        a "w+" file of 1 MiB (one fwrite, written straight),
 *                  then N x (fseek to a random offset, fwrite 8 bytes):
 *                  glibc writes each record at the next fseek, the last
 *                  at fclose, and a record crossing the end of its
 *                  buffer in two (a full buffer first)
 *   stdout N       N printf lines on stdout, which is the file (dup2):
 *                  a write per full buffer, the rest at exit; the line
 *                  goes to the original stdout
 *
 * usage: writes MODE FILE COUNT */
#define _GNU_SOURCE 1
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

struct out {
    struct tally t;
    unsigned long long written;
    unsigned long long fflush, full, newline, unbuffered, seek, close, exit;
};

static void print_out(int fd, const struct out *o)
{
    dprintf(fd,
            "{\"requested\": 0, \"delivered\": 0, \"calls\": %llu, \"written\": %llu, "
            "\"flushes\": {\"fflush\": %llu, \"full\": %llu, \"newline\": %llu, "
            "\"unbuffered\": %llu, \"seek\": %llu, \"close\": %llu, \"exit\": %llu}}\n",
            o->t.calls, o->written, o->fflush, o->full, o->newline, o->unbuffered, o->seek,
            o->close, o->exit);
}

/* Bytes one fprintf call handed over: its result. */
static void lines(FILE *fp, long n, struct out *o, int flush)
{
    for (long i = 0; i < n; i++) {
        int r = fprintf(fp, "record %06ld of the log\n", i);
        if (r < 0 || (flush && fflush(fp) != 0))
            die("fprintf");
        o->written += (unsigned long long)r;
        o->t.calls++;
    }
}

/* A write per full buffer while putting `total` bytes, the rest at fclose. */
static void per_buffer(struct out *o, unsigned long long total, size_t bufsize)
{
    o->full = (total + bufsize - 1) / bufsize - 1;
    o->close = 1;
}

static void bytes(FILE *fp, long size, struct out *o, int unlocked)
{
    for (long i = 0; i < size; i++)
        if ((unlocked ? putc_unlocked('a' + i % 26, fp) : fputc('a' + i % 26, fp)) == EOF)
            die("fputc");
    o->written = (unsigned long long)size;
    per_buffer(o, o->written, __fbufsize(fp));
}

static void bigwrite(FILE *fp, long n, struct out *o)
{
    if (fputc('x', fp) == EOF || fseek(fp, 0, SEEK_SET) != 0) /* the buffer exists */
        die("fputc");
    size_t chunk = 8 * __fbufsize(fp);
    char *b = malloc(chunk);
    if (!b)
        die("malloc");
    memset(b, 'b', chunk);
    for (long i = 0; i < n; i++) {
        o->written += fwrite(b, 1, chunk, fp);
        o->t.calls++;
    }
    o->written += 1; /* the fputc, written over at the fseek */
    o->seek = 1;
    o->full = 2 * (unsigned long long)n - 1;
    free(b);
}

static void wplus(FILE *fp, long n, struct out *o)
{
    enum { SIZE = 1 << 20, RECORD = 8 };
    static char zeros[SIZE];
    o->written += fwrite(zeros, 1, SIZE, fp);
    o->full = 1;
    size_t bufsize = __fbufsize(fp);
    uint64_t seed = 7;
    for (long i = 0; i < n; i++) {
        long at = random_offset(&seed, SIZE - RECORD);
        if (fseek(fp, at, SEEK_SET) != 0)
            die("fseek");
        o->written += fwrite("ABCDEFGH", 1, RECORD, fp);
        if ((size_t)at % bufsize > bufsize - RECORD)
            o->full++;
    }
    o->t.calls = (unsigned long long)n + 1;
    o->seek = (unsigned long long)n - 1; /* the first fseek finds nothing put */
    o->close = 1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("writes MODE FILE COUNT");
    const char *mode = argv[1], *path = argv[2];
    long n = arg_long(argv[3]);
    struct out o = {0};
    if (!strcmp(mode, "stdout")) {
        int line_fd = dup(1);
        FILE *f = fopen(path, "w");
        if (line_fd < 0 || !f || dup2(fileno(f), 1) < 0 || fclose(f) != 0)
            die(path);
        for (long i = 0; i < n; i++) {
            int r = printf("record %06ld of the log\n", i);
            if (r < 0)
                die("printf");
            o.written += (unsigned long long)r;
        }
        o.t.calls = (unsigned long long)n;
        per_buffer(&o, o.written, __fbufsize(stdout));
        o.close = 0;
        o.exit = 1;
        print_out(line_fd, &o);
        return 0; /* exit flushes stdout */
    }
    FILE *fp = fopen(path, !strcmp(mode, "wplus") ? "w+" : "w");
    if (!fp)
        die(path);
    if (!strcmp(mode, "unbuffered") || !strcmp(mode, "linebuf")) {
        int nbf = !strcmp(mode, "unbuffered");
        if (setvbuf(fp, NULL, nbf ? _IONBF : _IOLBF, 0) != 0)
            die("setvbuf");
        lines(fp, n, &o, 0);
        *(nbf ? &o.unbuffered : &o.newline) = (unsigned long long)n;
    } else if (!strcmp(mode, "fflush")) {
        lines(fp, n, &o, 1);
        o.fflush = (unsigned long long)n;
    } else if (!strcmp(mode, "fputc") || !strcmp(mode, "putc_unlocked")) {
        bytes(fp, n, &o, !strcmp(mode, "putc_unlocked"));
    } else if (!strcmp(mode, "bigwrite")) {
        bigwrite(fp, n, &o);
    } else if (!strcmp(mode, "wplus")) {
        wplus(fp, n, &o);
    } else {
        usage("writes unbuffered|linebuf|fflush|fputc|putc_unlocked|bigwrite|wplus|stdout FILE N");
    }
    if (fclose(fp) != 0)
        die("fclose");
    print_out(1, &o);
    return 0;
}
