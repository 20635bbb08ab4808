/* rl_vmsize FILE — reads FILE the ways seektrace keeps records for (a
 * stream with seeks, the POSIX calls, descriptors held open at once), then
 * prints its own address space: "vmsize_kb N" from /proc/self/status.
 * test_limits.py compares it plain and preloaded: what the library adds is
 * what `ulimit -v` takes from the program. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HELD 64

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rl_vmsize FILE\n");
        return 2;
    }
    char buf[4096];
    for (int round = 0; round < 3; round++) {
        FILE *f = fopen(argv[1], "rb");
        if (!f) {
            perror(argv[1]);
            return 1;
        }
        while (fread(buf, 1, 100, f) == 100)
            ;
        fseek(f, 0, SEEK_SET);
        if (fgets(buf, sizeof buf, f) == NULL)
            return 1;
        fclose(f);
    }
    int held[HELD];
    for (int i = 0; i < HELD; i++) {
        held[i] = open(argv[1], O_RDONLY);
        if (held[i] < 0 || pread(held[i], buf, 512, i * 512) < 0) {
            perror(argv[1]);
            return 1;
        }
    }
    for (int i = 0; i < HELD; i++)
        close(held[i]);

    FILE *status = fopen("/proc/self/status", "r");
    if (!status) {
        perror("/proc/self/status");
        return 1;
    }
    long kb = -1;
    while (fgets(buf, sizeof buf, status))
        if (strncmp(buf, "VmSize:", 7) == 0)
            kb = strtol(buf + 7, NULL, 10);
    fclose(status);
    if (kb < 0)
        return 1;
    printf("vmsize_kb %ld\n", kb);
    return 0;
}
