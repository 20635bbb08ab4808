/* ftell_lseek — rule ftell-lseek.
 *
 *   ftell_lseek FILE RECORDS plain|fixed
 *
 * Reads RECORDS 16-byte records with fread and asks ftell where it is after
 * each. After a plain fopen glibc does not know the file offset, so every
 * ftell makes an lseek(fd, 0, SEEK_CUR). "fixed" makes one fseek(fp, 0,
 * SEEK_SET) first, after which glibc tracks the offset itself.
 * Prints {"ftells", "requested", "delivered"}; exit status 1 if ftell ever
 * disagrees with the bytes delivered. Built -O0 -g. */
#include <stdio.h>
#include <string.h>

#include "diag.h"

#define RECORD 16

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[3], "plain") != 0 && strcmp(argv[3], "fixed") != 0))
        usage("ftell_lseek FILE RECORDS plain|fixed");
    long records = arg_long(argv[2]);
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        die(argv[1]);
    if (strcmp(argv[3], "fixed") == 0 && fseek(fp, 0, SEEK_SET) != 0) /* SITE:fix */
        die("fseek");
    char record[RECORD];
    long delivered = 0, ftells = 0;
    for (long i = 0; i < records; i++) {
        delivered += (long)fread(record, 1, RECORD, fp);
        long at = ftell(fp); /* SITE:ftell */
        ftells++;
        if (at != delivered) {
            fprintf(stderr, "ftell said %ld after %ld bytes\n", at, delivered);
            return 1;
        }
    }
    fclose(fp);
    return print_counts("ftells", ftells, "requested", records * RECORD, "delivered", delivered,
                        (char *)0);
}
