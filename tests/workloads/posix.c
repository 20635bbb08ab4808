/* Plain POSIX reads, no stdio:
 *   read   sequential read(1000) to EOF
 *   pread  random pread(16), some of them past EOF
 *   lseek  random lseek(SEEK_SET) + read(16), with SEEK_CUR and SEEK_END seeks
 *   readv  sequential readv of three buffers (7 + 100 + 4000 bytes) to EOF
 *
 * usage: posix MODE FILE ITERATIONS SEED   (ITERATIONS: pread and lseek only) */
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "workload.h"

enum { RECORD = 16 };

static void count(struct tally *t, size_t requested, ssize_t got)
{
    if (got < 0)
        die("read");
    tally_call(t, requested, (size_t)got);
}

static void sequential(int fd, struct tally *t)
{
    char chunk[1000];
    ssize_t got;
    do {
        got = read(fd, chunk, sizeof chunk);
        count(t, sizeof chunk, got);
    } while (got > 0);
}

static void positioned(int fd, long size, long iterations, uint64_t seed, struct tally *t)
{
    char record[RECORD];
    for (long i = 0; i < iterations; i++) {
        /* Up to 100 bytes past the end: short and empty reads too. */
        long at = random_offset(&seed, size + 100);
        count(t, RECORD, pread(fd, record, RECORD, at));
    }
}

static void seeking(int fd, long size, long iterations, uint64_t seed, struct tally *t)
{
    char record[RECORD];
    /* A seek the kernel refuses (EINVAL) is a syscall all the same. */
    if (lseek(fd, -1, SEEK_SET) != -1)
        die("lseek to -1 succeeded");
    for (long i = 0; i < iterations; i++) {
        if (i % 3 == 0)
            lseek(fd, random_offset(&seed, size - RECORD), SEEK_SET);
        else if (i % 3 == 1) /* forward past EOF at times: the read then gets 0 */
            lseek(fd, random_offset(&seed, 1000), SEEK_CUR);
        else
            lseek(fd, -(RECORD + random_offset(&seed, size - RECORD)), SEEK_END);
        count(t, RECORD, read(fd, record, RECORD));
    }
}

static void vectored(int fd, struct tally *t)
{
    static char a[7], b[100], c[4000];
    struct iovec iov[] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
    ssize_t got;
    do {
        got = readv(fd, iov, 3);
        count(t, sizeof a + sizeof b + sizeof c, got);
    } while (got > 0);
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage("posix read|pread|lseek|readv FILE ITERATIONS SEED");
    const char *mode = argv[1];
    long size = file_size(argv[2]);
    long iterations = arg_long(argv[3]);
    uint64_t seed = (uint64_t)arg_long(argv[4]);
    int fd = open(argv[2], O_RDONLY);
    if (fd < 0)
        die(argv[2]);

    struct tally t = {0};
    if (strcmp(mode, "read") == 0)
        sequential(fd, &t);
    else if (strcmp(mode, "pread") == 0)
        positioned(fd, size, iterations, seed, &t);
    else if (strcmp(mode, "lseek") == 0)
        seeking(fd, size, iterations, seed, &t);
    else if (strcmp(mode, "readv") == 0)
        vectored(fd, &t);
    else
        usage("posix read|pread|lseek|readv FILE ITERATIONS SEED");
    close(fd);
    return print_tally(&t);
}
