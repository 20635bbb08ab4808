/* small_direct — rule small-direct-reads.
 *
 *   small_direct FILE CALLS SIZE read|pread
 *
 * CALLS reads of SIZE bytes, in sequence, with the program's own read() on a
 * file descriptor, or pread() at the same offsets. Prints {"calls",
 * "requested", "delivered"}. Built -O0 -g. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[4], "read") != 0 && strcmp(argv[4], "pread") != 0))
        usage("small_direct FILE CALLS SIZE read|pread");
    long calls = arg_long(argv[2]), size = arg_long(argv[3]);
    int use_pread = strcmp(argv[4], "pread") == 0;
    int fd = open(argv[1], O_RDONLY);
    char *buf = malloc((size_t)size);
    if (fd < 0 || !buf)
        die(argv[1]);
    long delivered = 0;
    for (long i = 0; i < calls; i++) {
        ssize_t got;
        if (use_pread)
            got = pread(fd, buf, (size_t)size, (off_t)(i * size)); /* SITE:pread */
        else
            got = read(fd, buf, (size_t)size); /* SITE:read */
        if (got < 0)
            die("read");
        delivered += got;
    }
    close(fd);
    free(buf);
    return print_counts("calls", calls, "requested", calls * size, "delivered", delivered,
                        (char *)0);
}
