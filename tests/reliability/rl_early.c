/* rl_early.c — linked with rl_early_lib.c, whose constructor reads
 * RL_EARLY_FILE before main (and before libseektrace's constructor). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

extern int rl_early_bytes;

int main(int argc, char **argv)
{
    char b[100];
    int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
    ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
    printf("early %d, main %zd\n", rl_early_bytes, n);
    return 0;
}
