/* small_buffer — rule small-buffer-reads.
 *
 *   small_buffer FILE COUNT BUFFER fread|getc
 *
 * Reads FILE from the start in sequence: COUNT 16-byte records with fread, or
 * COUNT bytes with getc. BUFFER -1 makes the stream unbuffered (setvbuf
 * _IONBF): every fread or getc is a read syscall of its own. BUFFER > 0 hands
 * glibc a buffer of that many bytes: a read syscall per BUFFER bytes.
 * getc is not wrapped by seektrace (for speed): its refills are charged to
 * this program's line by unwinding the stack from inside glibc.
 * Prints {"calls", "requested", "delivered"}. Built -O0 -g. */
#include <stdio.h>
#include <string.h>

#include "diag.h"

#define RECORD 16

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[4], "fread") != 0 && strcmp(argv[4], "getc") != 0))
        usage("small_buffer FILE COUNT BUFFER fread|getc");
    long count = arg_long(argv[2]), buffer = arg_long(argv[3]);
    int use_getc = strcmp(argv[4], "getc") == 0;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        die(argv[1]);
    char *userbuf = buffer > 0 ? malloc((size_t)buffer) : NULL;
    if (buffer < 0 ? setvbuf(fp, NULL, _IONBF, 0) != 0
                   : buffer > 0 && (!userbuf || setvbuf(fp, userbuf, _IOFBF, (size_t)buffer) != 0))
        die("setvbuf");
    char record[RECORD];
    long requested = 0, delivered = 0;
    for (long i = 0; i < count; i++) {
        if (use_getc) {
            requested += 1;
            delivered += getc(fp) != EOF; /* SITE:getc */
        } else {
            requested += RECORD;
            delivered += (long)fread(record, 1, RECORD, fp); /* SITE:fread */
        }
    }
    fclose(fp);
    free(userbuf);
    return print_counts("calls", count, "requested", requested, "delivered", delivered,
                        (char *)0);
}
