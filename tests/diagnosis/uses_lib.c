/* uses_lib — reads through a shared library of its own (libdiagreader.so).
 *
 *   uses_lib FILE SEEKS [FIRST [alternate]]
 *
 * SEEKS calls of reader_fetch (libreader.c) from the line marked SITE:call,
 * alternating between the two halves of FILE: each fseek in the library
 * discards the stream's buffer (rule fseek-discards-buffer). The site is the
 * library's fseek line; with SEEKTRACE_STACK >= 2 the frame above it is this
 * file's call line. FIRST (default 0) more calls are made from another line
 * (SITE:first), so the two callers can be told apart: before those, or with
 * "alternate" taking turns with them (one line of the library reached from
 * two stacks in turn). Prints {"fseeks", "first", "requested", "delivered"}.
 * Built -O0 -g. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"

long reader_fetch(FILE *fp, long at, void *record, long size);

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5 || (argc == 5 && strcmp(argv[4], "alternate") != 0))
        usage("uses_lib FILE SEEKS [FIRST [alternate]]");
    long seeks = arg_long(argv[2]), first = argc >= 4 ? arg_long(argv[3]) : 0;
    int alternate = argc == 5;
    struct stat st;
    if (stat(argv[1], &st) != 0 || st.st_size < (2L << 20))
        usage("FILE must be at least 2 MiB");
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        die(argv[1]);
    long half = st.st_size / 2 & ~0xfffffL, delivered = 0, got;
    char record[16];
    for (long i = 0; i < first + seeks; i++) {
        long at = (i % 2 ? half : 0) + 100;
        if (alternate ? i % 2 == 0 && i / 2 < first : i < first)
            got = reader_fetch(fp, at, record, 16); /* SITE:first */
        else
            got = reader_fetch(fp, at, record, 16); /* SITE:call */
        if (got < 0)
            die("reader_fetch");
        delivered += got;
    }
    fclose(fp);
    return print_counts("fseeks", first + seeks, "first", first, "requested",
                        (first + seeks) * 16, "delivered", delivered, (char *)0);
}
