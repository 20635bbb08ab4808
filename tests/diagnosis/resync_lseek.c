/* resync_lseek — rule fseek-resync-lseek.
 *
 *   resync_lseek FILE RECORDS seek|read
 *
 * Reads RECORDS 16-byte records, keeping the first 8 bytes of each, through a
 * stream with a 64 KiB buffer of the program's own. "seek" skips the other 8
 * bytes with fseek(fp, 8, SEEK_CUR): the target is inside the buffer, so glibc
 * reads nothing, yet it makes an lseek to resync the file offset each time.
 * "read" (the fix) reads the whole record and ignores the 8 bytes: no seeks.
 * Both start with fseek(fp, 0, SEEK_SET), so that glibc knows the file
 * offset (without it, glibc's first SEEK_CUR drops the buffer).
 * Prints {"fseeks", "kept", "requested", "delivered"}; kept counts the fseeks
 * whose target lies inside the 64 KiB block the last fread was served from
 * (every one but the first and those crossing to the next block).
 * Built -O0 -g. */
#include <stdio.h>
#include <string.h>

#include "diag.h"

#define BUFFER 65536
#define RECORD 16

static char buffer[BUFFER];

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[3], "seek") != 0 && strcmp(argv[3], "read") != 0))
        usage("resync_lseek FILE RECORDS seek|read");
    long records = arg_long(argv[2]);
    int seek = strcmp(argv[3], "seek") == 0;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp || setvbuf(fp, buffer, _IOFBF, sizeof buffer) != 0)
        die(argv[1]);
    if (fseek(fp, 0, SEEK_SET) != 0) /* SITE:start */
        die("fseek");
    char record[RECORD];
    long fseeks = 1, kept = 0, requested = 0, delivered = 0;
    for (long i = 0; i < records; i++) {
        if (seek) {
            requested += RECORD / 2;
            delivered += (long)fread(record, 1, RECORD / 2, fp);
            long block = (i * RECORD) / BUFFER, target = (i + 1) * RECORD;
            if (fseek(fp, RECORD / 2, SEEK_CUR) != 0) /* SITE:fseek */
                die("fseek");
            fseeks++;
            kept += target / BUFFER == block;
        } else {
            requested += RECORD;
            delivered += (long)fread(record, 1, RECORD, fp); /* SITE:fread */
        }
    }
    fclose(fp);
    return print_counts("fseeks", fseeks, "kept", kept, "requested", requested,
                        "delivered", delivered, (char *)0);
}
