/* storage_reader — the read patterns of the storage tests (storage_tests.py).
 *
 *   storage_reader seq FILE BLOCK          reads FILE from start to end
 *   storage_reader runs FILE N LEN BLOCK   N runs of LEN bytes, BLOCK at a
 *                                          time, each at a random 4 KiB-aligned
 *                                          offset (a fixed seed)
 *   storage_reader both FILE1 FILE2 BLOCK  FILE1 with read(), then FILE2 with
 *                                          fread() (stdio), start to end
 *
 * Prints {"read": bytes read, "io_read_bytes": /proc/self/io's read_bytes
 * before it exits} (a cross-check of the device figures: the same kernel
 * counter, read a different way). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long io_read_bytes(void)
{
    FILE *fp = fopen("/proc/self/io", "r");
    char line[128];
    long v = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "read_bytes: %ld", &v) == 1)
            break;
    if (fp)
        fclose(fp);
    return v;
}

/* FILE1 by read(), FILE2 by fread(): the two paths a read takes. */
static int both(char **argv)
{
    long block = atol(argv[4]), total = 0;
    char *buf = block > 0 ? malloc((size_t)block) : NULL;
    int fd = open(argv[2], O_RDONLY);
    FILE *fp = fopen(argv[3], "r");
    if (fd < 0 || !fp || !buf) {
        perror("both");
        return 1;
    }
    ssize_t n;
    while ((n = read(fd, buf, (size_t)block)) > 0)
        total += n;
    size_t got;
    while ((got = fread(buf, 1, (size_t)block, fp)) > 0)
        total += (long)got;
    close(fd);
    fclose(fp);
    printf("{\"read\": %ld, \"io_read_bytes\": %ld}\n", total, io_read_bytes());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "both") == 0)
        return both(argv);
    int seq = argc == 4 && strcmp(argv[1], "seq") == 0;
    if (!seq && !(argc == 6 && strcmp(argv[1], "runs") == 0)) {
        fprintf(stderr, "usage: storage_reader seq FILE BLOCK | runs FILE N LEN BLOCK | "
                        "both FILE1 FILE2 BLOCK\n");
        return 2;
    }
    int fd = open(argv[2], O_RDONLY);
    long block = atol(argv[seq ? 3 : 5]);
    char *buf = block > 0 ? malloc((size_t)block) : NULL;
    if (fd < 0 || !buf) {
        perror(argv[2]);
        return 1;
    }
    long total = 0;
    ssize_t n;
    if (seq) {
        while ((n = read(fd, buf, (size_t)block)) > 0)
            total += n;
    } else {
        long runs = atol(argv[3]), len = atol(argv[4]);
        off_t size = lseek(fd, 0, SEEK_END);
        uint64_t x = 88172645463325252ull; /* xorshift64 */
        for (long r = 0; r < runs && size > len; r++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            off_t at = (off_t)(x % (uint64_t)(size - len)) & ~(off_t)4095;
            if (lseek(fd, at, SEEK_SET) < 0)
                return 1;
            for (long k = 0; k < len && (n = read(fd, buf, (size_t)block)) > 0; k += n)
                total += n;
        }
    }
    close(fd);
    printf("{\"read\": %ld, \"io_read_bytes\": %ld}\n", total, io_read_bytes());
    return 0;
}
