/* The program's own POSIX writes, every call of the family, on FILE:
 *   ITERATIONS rounds of write(100), pwrite(50), pwrite64(60), writev(7 +
 *   100 + 400), pwritev(7 + 100), pwritev2 at the fd's offset (-1) and at
 *   an offset, at random places inside what is written so far; a write the
 *   kernel refuses (EBADF on a read-only descriptor); then one offset check:
 *   write(1000) at 0, pwrite(200) at 5000 (which moves no offset), read(500)
 *   (bytes 1000..1500), pread(500) at 1000: 500 bytes read again, exactly,
 *   when the offsets were followed right. Last, an O_APPEND descriptor
 *   writes 10 × 30 bytes at the end.
 *
 * usage: posix_write FILE ITERATIONS SEED */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "workload.h"

static char buf[1000];

static void rounds(int fd, long iterations, uint64_t seed)
{
    static char a[7], b[100], c[400];
    struct iovec iov[] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
    long written = 0;
    for (long i = 0; i < iterations; i++) {
        long at = random_offset(&seed, written + 1);
        written += write(fd, buf, 100);
        if (pwrite(fd, buf, 50, at) != 50 || pwrite64(fd, buf, 60, at + 1) != 60)
            die("pwrite");
        written += writev(fd, iov, 3);
        if (pwritev(fd, iov, 2, at) != 107 || pwritev2(fd, iov, 2, at + 3, 0) != 107)
            die("pwritev");
        written += pwritev2(fd, iov, 1, -1, 0);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("posix_write FILE ITERATIONS SEED");
    const char *path = argv[1];
    long iterations = arg_long(argv[2]);
    uint64_t seed = (uint64_t)arg_long(argv[3]);
    memset(buf, 'w', sizeof buf);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    int ro = open(path, O_RDONLY);
    if (fd < 0 || ro < 0)
        die(path);
    rounds(fd, iterations, seed);
    if (write(ro, buf, 10) != -1)
        die("a write on a read-only descriptor succeeded");

    char back[500];
    if (lseek(fd, 0, SEEK_SET) != 0 || write(fd, buf, 1000) != 1000 ||
        pwrite(fd, buf, 200, 5000) != 200 || read(fd, back, 500) != 500 ||
        pread(fd, back, 500, 1000) != 500)
        die("offset check");

    int app = open(path, O_WRONLY | O_APPEND);
    if (app < 0)
        die(path);
    for (int i = 0; i < 10; i++)
        if (write(app, buf, 30) != 30)
            die("append");
    close(app);
    close(ro);
    close(fd);
    return 0;
}
