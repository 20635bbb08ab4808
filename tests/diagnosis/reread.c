/* reread — rule reread.
 *
 *   reread FILE BLOCK LENGTH...
 *
 * One pass per LENGTH: reads the first LENGTH bytes of FILE with pread() of
 * BLOCK bytes (large blocks: only the re-reading is wrong here). A pass reads
 * again whatever an earlier pass read: "1048576 1048576 1048576 1048576"
 * reads the first MiB four times.
 * Prints {"calls", "requested", "delivered", "first_time"}; first_time: the
 * bytes no earlier pass had read (the longest LENGTH).
 * Built -O0 -g. */
#include <fcntl.h>
#include <unistd.h>

#include "diag.h"

int main(int argc, char **argv)
{
    if (argc < 4)
        usage("reread FILE BLOCK LENGTH...");
    long block = arg_long(argv[2]);
    int fd = open(argv[1], O_RDONLY);
    char *buf = block > 0 ? malloc((size_t)block) : NULL;
    if (fd < 0 || !buf)
        die(argv[1]);
    long calls = 0, requested = 0, delivered = 0, longest = 0;
    for (int pass = 3; pass < argc; pass++) {
        long length = arg_long(argv[pass]);
        for (long at = 0; at < length; at += block) {
            size_t want = (size_t)(length - at < block ? length - at : block);
            ssize_t got = pread(fd, buf, want, (off_t)at); /* SITE:pread */
            if (got < 0)
                die("pread");
            calls++;
            requested += (long)want;
            delivered += got;
        }
        if (length > longest)
            longest = length;
    }
    close(fd);
    free(buf);
    return print_counts("calls", calls, "requested", requested, "delivered", delivered,
                        "first_time", longest, (char *)0);
}
