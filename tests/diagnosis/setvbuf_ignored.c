/* setvbuf_ignored — rule setvbuf-size-ignored.
 *
 *   setvbuf_ignored FILE SIZE null|own
 *
 * Asks for a SIZE-byte buffer: "null" with setvbuf(fp, NULL, _IOFBF, SIZE),
 * whose size glibc ignores (it uses st_blksize); "own" with a buffer of the
 * program's own, which glibc uses. Then reads 64 records of 16 bytes.
 * Prints {"requested_buffer", "requested", "delivered"}. Built -O0 -g. */
#include <stdio.h>
#include <string.h>

#include "diag.h"

#define RECORD 16

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[3], "null") != 0 && strcmp(argv[3], "own") != 0))
        usage("setvbuf_ignored FILE SIZE null|own");
    long size = arg_long(argv[2]);
    char *own = strcmp(argv[3], "own") == 0 ? malloc((size_t)size) : NULL;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        die(argv[1]);
    if (setvbuf(fp, own, _IOFBF, (size_t)size) != 0) /* SITE:setvbuf */
        die("setvbuf");
    char record[RECORD];
    long delivered = 0;
    for (int i = 0; i < 64; i++)
        delivered += (long)fread(record, 1, RECORD, fp);
    fclose(fp);
    free(own);
    return print_counts("requested_buffer", size, "requested", 64L * RECORD, "delivered",
                        delivered, (char *)0);
}
