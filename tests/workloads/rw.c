/* An "r+" stream mixing fread, fwrite and fseek: glibc adds lseeks to move the
 * kernel offset back over read-ahead before writing, and flushes before reading.
 * A positioning call separates every switch between reading and writing, as C
 * requires.
 *
 * usage: rw FILE ITERATIONS SEED */
#include "workload.h"

enum { RECORD = 64, PATCH = 32 };

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("rw FILE ITERATIONS SEED");
    const char *path = argv[1];
    long iterations = arg_long(argv[2]);
    uint64_t seed = (uint64_t)arg_long(argv[3]);
    long last = file_size(path) - RECORD - PATCH;

    FILE *fp = fopen(path, "r+");
    if (!fp)
        die(path);
    struct tally t = {0};
    char record[RECORD];
    char patch[PATCH];
    for (long i = 0; i < iterations; i++) {
        if (fseek(fp, random_offset(&seed, last), SEEK_SET) != 0)
            die("fseek");
        tally_call(&t, RECORD, fread(record, 1, RECORD, fp));

        for (int k = 0; k < PATCH; k++)
            patch[k] = (char)(record[k] ^ 0x5a);
        if (fseek(fp, 0, SEEK_CUR) != 0 || fwrite(patch, 1, PATCH, fp) != PATCH)
            die("fwrite");
        if (fseek(fp, -PATCH / 2, SEEK_CUR) != 0) /* back into what was written */
            die("fseek");
        tally_call(&t, RECORD, fread(record, 1, RECORD, fp));
        if (i % 10 == 0 && fflush(fp) != 0) /* fflush on a stream that read last */
            die("fflush");
    }
    if (fclose(fp) != 0)
        die("fclose");
    return print_tally(&t);
}
