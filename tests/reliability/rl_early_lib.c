/* rl_early_lib.c — a library whose constructor reads a file.
 *
 * The dynamic loader runs the constructors of a program's own libraries
 * before those of libraries loaded after them, so this one reads its file
 * (RL_EARLY_FILE) before libseektrace's constructor has run: the wrappers
 * must initialise the library on first use and count the reads. */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int rl_early_bytes;

__attribute__((constructor)) static void read_early(void)
{
    const char *p = getenv("RL_EARLY_FILE");
    if (!p)
        return;
    char b[3000];
    FILE *f = fopen(p, "r");
    if (f) {
        rl_early_bytes += (int)fread(b, 1, 1234, f);
        fseek(f, 20000, SEEK_SET);
        rl_early_bytes += (int)fread(b, 1, 10, f);
        fclose(f);
    }
    int fd = open(p, O_RDONLY);
    if (fd >= 0) {
        ssize_t n = pread(fd, b, sizeof b, 5000);
        rl_early_bytes += n > 0 ? (int)n : 0;
        close(fd);
    }
}
