/* freads at, across and past end of file, each after its own fseek, and again
 * after EOF with and without clearerr.
 *
 * usage: eof FILE ROUNDS */
#include "workload.h"

enum { RECORD = 16 };

static void seek_read(FILE *fp, long offset, int whence, struct tally *t)
{
    char record[RECORD];
    if (fseek(fp, offset, whence) != 0)
        die("fseek");
    tally_call(t, RECORD, fread(record, 1, RECORD, fp));
}

static void read_again(FILE *fp, struct tally *t)
{
    char record[RECORD];
    tally_call(t, RECORD, fread(record, 1, RECORD, fp));
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage("eof FILE ROUNDS");
    const char *path = argv[1];
    long rounds = arg_long(argv[2]);
    long size = file_size(path);

    FILE *fp = fopen(path, "r");
    if (!fp)
        die(path);
    struct tally t = {0};
    for (long i = 0; i < rounds; i++) {
        seek_read(fp, size + 1000 * (i + 1), SEEK_SET, &t); /* past EOF */
        seek_read(fp, size - 10, SEEK_SET, &t);             /* across EOF: 10 bytes */
        read_again(fp, &t);                                 /* EOF flag set */
        clearerr(fp);
        read_again(fp, &t);                                 /* flag cleared */
        seek_read(fp, size, SEEK_SET, &t);                  /* exactly at EOF */
        seek_read(fp, 0, SEEK_END, &t);
        seek_read(fp, -5, SEEK_END, &t);                    /* 5 bytes */
        seek_read(fp, 4096 * i, SEEK_SET, &t);              /* back to data */
    }
    fclose(fp);
    return print_tally(&t);
}
