/* inlined — a call site inside a function the compiler inlined.
 *
 *   inlined FILE SEEKS
 *
 * Built -O2 -g, so that fetch() is inlined into main: there is no frame for
 * fetch at run time. The report's line is still fetch's fseek line (the line
 * table knows it); its function may be the caller's name, main (see
 * docs/findings.md, "Limits"). Prints {"fseeks", "requested", "delivered"}. */
#include <stdio.h>
#include <sys/stat.h>

#include "diag.h"

static inline long fetch(FILE *fp, long at, char *record)
{
    if (fseek(fp, at, SEEK_SET) != 0) /* SITE:fseek */
        die("fseek");
    return (long)fread(record, 1, 16, fp);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage("inlined FILE SEEKS");
    long seeks = arg_long(argv[2]);
    struct stat st;
    if (stat(argv[1], &st) != 0 || st.st_size < (2L << 20))
        usage("FILE must be at least 2 MiB");
    FILE *fp = fopen(argv[1], "rb");
    if (!fp)
        die(argv[1]);
    long half = st.st_size / 2 & ~0xfffffL, delivered = 0;
    char record[16];
    for (long i = 0; i < seeks; i++)
        delivered += fetch(fp, (i % 2 ? half : 0) + 100, record);
    fclose(fp);
    return print_counts("fseeks", seeks, "requested", seeks * 16, "delivered", delivered,
                        (char *)0);
}
