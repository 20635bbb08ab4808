/* rl_churn DIR ROUNDS NFILES — a process with constant work, and one that
 * touches many files. Each round opens, reads and closes the files
 * DIR/f0 .. DIR/f<NFILES-1> twice over: with stdio (fopen, fread, fseek,
 * fclose) and with the POSIX calls (open, read, close). Half way through
 * its work and at the end it prints its resident memory, from
 * /proc/self/statm (no allocation, no stdio stream of its own):
 *   "rss_kb_half N" and "rss_kb_last N"
 * test_limits.py runs it preloaded: with 10 files and many rounds the two
 * must be equal but for a small constant (a daemon keeps a constant
 * footprint); with one round over many files, the growth over the second
 * half is what the library keeps for that many files. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long rss_kb(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    long size, resident;
    if (sscanf(buf, "%ld %ld", &size, &resident) != 2)
        return -1;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int one_file(const char *path)
{
    char buf[512];
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    while (fread(buf, 1, sizeof buf, f) == sizeof buf)
        ;
    fseek(f, 0, SEEK_SET);
    if (fread(buf, 1, 16, f) == 0 && ferror(f))
        return -1;
    fclose(f);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    while (read(fd, buf, sizeof buf) > 0)
        ;
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: rl_churn DIR ROUNDS NFILES\n");
        return 2;
    }
    long rounds = atol(argv[2]), nfiles = atol(argv[3]);
    char path[4096];
    long half = -1, done = 0, total = rounds * nfiles;
    for (long r = 0; r < rounds; r++) {
        for (long i = 0; i < nfiles; i++, done++) {
            if (done == total / 2)
                half = rss_kb();
            snprintf(path, sizeof path, "%s/f%ld", argv[1], i);
            if (one_file(path) < 0) {
                perror(path);
                return 1;
            }
        }
    }
    long last = rss_kb();
    if (half < 0 || last < 0)
        return 1;
    printf("rss_kb_half %ld\nrss_kb_last %ld\n", half, last);
    return 0;
}
