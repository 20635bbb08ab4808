/* bench_io — the single-threaded stdio workloads of the benchmark suite.
 *
 *   bench_io getc  FILE [PASSES]   getc() per byte (glibc's out-of-line getc)
 *   bench_io fgetc FILE [PASSES]   fgetc() per byte
 *   bench_io getc_unlocked FILE [PASSES]  the inline macro: only refills are calls
 *   bench_io fgets FILE [PASSES]   fgets() into a 1 KiB line buffer
 *   bench_io fread FILE [PASSES]   sequential fread() of 1 MiB blocks
 *   bench_io fputc FILE BYTES      fputc() per byte into FILE (truncated)
 *   bench_io fprintf FILE LINES    fprintf() per line ("%ld %s\n", 23 bytes)
 *   bench_io unbuffered FILE LINES the same lines on a stream set _IONBF:
 *                                  a write syscall per line
 *   bench_io write FILE [COUNT]    COUNT unbuffered write()s of 16 bytes to
 *                                  FILE, made afresh (default 200,000)
 *
 * Each pass reads FILE from start to end (rewind between passes). Prints one
 * line, {"bytes": N, "calls": N, "check": N}, so a run that read nothing, or
 * read differently under a tracer, is visible; "check" keeps the compiler
 * from dropping the loop. Built with -O2: getc_unlocked must be glibc's
 * inline macro. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1u << 20)

static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* The writers: `count` bytes by fputc, or lines by fprintf (unbuffered:
 * on a stream set _IONBF). */
static int write_mode(const char *mode, const char *path, long count)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        die(path);
    if (strcmp(mode, "unbuffered") == 0 && setvbuf(fp, NULL, _IONBF, 0) != 0)
        die("setvbuf");
    unsigned long long bytes = 0, calls = 0, check = 0;
    if (strcmp(mode, "fputc") == 0) {
        for (long i = 0; i < count; i++)
            if (fputc('a' + (int)(i % 26), fp) == EOF)
                die("fputc");
        bytes = calls = (unsigned long long)count;
    } else {
        for (long i = 0; i < count; i++) {
            int n = fprintf(fp, "%010ld %s\n", i, "of the log.");
            if (n < 0)
                die("fprintf");
            bytes += (unsigned)n;
            check += (unsigned)(i & 0xff);
        }
        calls = (unsigned long long)count;
    }
    if (fclose(fp) != 0)
        die("fclose");
    printf("{\"bytes\": %llu, \"calls\": %llu, \"check\": %llu}\n", bytes, calls, check);
    return 0;
}

/* The program's own small writes: every one a syscall, and a call of the
 * interposed write(). */
static int small_writes(const char *path, long count)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(path);
    static const char record[16] = "0123456789abcde\n";
    unsigned long long bytes = 0;
    for (long i = 0; i < count; i++) {
        ssize_t n = write(fd, record, sizeof record);
        if (n != (ssize_t)sizeof record)
            die("write");
        bytes += (unsigned long long)n;
    }
    close(fd);
    printf("{\"bytes\": %llu, \"calls\": %ld, \"check\": %llu}\n", bytes, count, bytes / 16);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_io getc|fgetc|getc_unlocked|fgets|fread FILE [PASSES]\n"
                        "       bench_io fputc|fprintf|unbuffered FILE COUNT\n"
                        "       bench_io write FILE [COUNT]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "write") == 0)
        return small_writes(argv[2], argc == 4 ? strtol(argv[3], NULL, 0) : 200000);
    long passes = argc == 4 ? strtol(argv[3], NULL, 0) : 1;
    if (strcmp(mode, "fputc") == 0 || strcmp(mode, "fprintf") == 0 ||
        strcmp(mode, "unbuffered") == 0)
        return write_mode(mode, argv[2], passes);
    FILE *fp = fopen(argv[2], "r");
    if (!fp)
        die(argv[2]);

    unsigned long long bytes = 0, calls = 0, check = 0;
    for (long pass = 0; pass < passes; pass++) {
        if (pass > 0)
            rewind(fp);
        if (strcmp(mode, "getc") == 0) {
            int c;
            while ((c = getc(fp)) != EOF) {
                check += (unsigned)c;
                bytes++;
            }
            calls += bytes + 1;
        } else if (strcmp(mode, "fgetc") == 0) {
            int c;
            while ((c = fgetc(fp)) != EOF) {
                check += (unsigned)c;
                bytes++;
            }
        } else if (strcmp(mode, "getc_unlocked") == 0) {
            int c;
            while ((c = getc_unlocked(fp)) != EOF) {
                check += (unsigned)c;
                bytes++;
            }
        } else if (strcmp(mode, "fgets") == 0) {
            char line[1024];
            while (fgets(line, sizeof line, fp)) {
                size_t n = strlen(line);
                check += (unsigned char)line[0];
                bytes += n;
                calls++;
            }
        } else if (strcmp(mode, "fread") == 0) {
            static char block[BLOCK];
            size_t n;
            while ((n = fread(block, 1, BLOCK, fp)) > 0) {
                check += (unsigned char)block[n - 1];
                bytes += n;
                calls++;
            }
        } else {
            fprintf(stderr, "bench_io: unknown mode %s\n", mode);
            return 2;
        }
    }
    fclose(fp);
    printf("{\"bytes\": %llu, \"calls\": %llu, \"check\": %llu}\n", bytes, calls, check);
    return 0;
}
