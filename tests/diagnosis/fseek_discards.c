/* fseek_discards — rule fseek-discards-buffer (the 2006 case).
 *
 *   fseek_discards FILE SEEKS BUFFER
 *
 * SEEKS times: fseek to an offset outside the stream's buffer, then fread 16
 * bytes. The offsets alternate between the first and the second half of FILE
 * (at least 2 MiB), so each fseek leaves the buffer and glibc reads a whole
 * buffer again. BUFFER 0 keeps glibc's default buffer, otherwise the program
 * hands glibc a buffer of that many bytes (setvbuf).
 * Prints {"fseeks", "freads", "requested", "delivered"}.
 * Built -O0 -g: the marked lines are the call sites the report must name. */
#include <stdio.h>
#include <sys/stat.h>

#include "diag.h"

#define RECORD 16

__attribute__((noinline)) static long read_records(FILE *fp, long seeks, long half, long *freads)
{
    char record[RECORD];
    long delivered = 0;
    for (long i = 0; i < seeks; i++) {
        /* Never on a buffer boundary: glibc then reads inside fseek. */
        long at = (i % 2 ? half : 0) + 100 + (i / 2 % 8) * RECORD;
        if (fseek(fp, at, SEEK_SET) != 0) /* SITE:fseek */
            die("fseek");
        delivered += (long)fread(record, 1, RECORD, fp); /* SITE:fread */
        ++*freads;
    }
    return delivered;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("fseek_discards FILE SEEKS BUFFER");
    long seeks = arg_long(argv[2]), buffer = arg_long(argv[3]);
    struct stat st;
    if (stat(argv[1], &st) != 0 || st.st_size < (2L << 20))
        usage("FILE must be at least 2 MiB");
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        die(argv[1]);
    char *userbuf = NULL;
    if (buffer > 0 && (!(userbuf = malloc((size_t)buffer)) ||
                       setvbuf(fp, userbuf, _IOFBF, (size_t)buffer) != 0))
        die("setvbuf");
    long freads = 0;
    long delivered = read_records(fp, seeks, st.st_size / 2 & ~0xfffffL, &freads);
    fclose(fp);
    free(userbuf);
    return print_counts("fseeks", seeks, "freads", freads, "requested", freads * RECORD,
                        "delivered", delivered, (char *)0);
}
