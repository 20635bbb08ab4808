/* Random fseek + fread of 16 bytes: the pattern where every seek out of the
 * buffer costs a whole buffer of kernel reads.
 *
 * usage: fseek_fread FILE ITERATIONS SEED BUFSIZE
 * BUFSIZE 0 keeps glibc's own buffer (min(st_blksize, BUFSIZ)); -1 makes the
 * stream unbuffered (_IONBF); any other value gives the stream a user buffer of
 * that size, the only way setvbuf changes the size. */
#include "workload.h"

enum { RECORD = 16 };

int main(int argc, char **argv)
{
    if (argc != 5)
        usage("fseek_fread FILE ITERATIONS SEED BUFSIZE");
    const char *path = argv[1];
    long iterations = arg_long(argv[2]);
    uint64_t seed = (uint64_t)arg_long(argv[3]);
    long bufsize = arg_long(argv[4]);
    long last = file_size(path) - RECORD;

    FILE *fp = fopen(path, "r");
    if (!fp)
        die(path);
    char *buffer = NULL;
    if (bufsize < 0 && setvbuf(fp, NULL, _IONBF, 0) != 0)
        die("setvbuf");
    if (bufsize > 0) {
        buffer = malloc((size_t)bufsize);
        if (!buffer || setvbuf(fp, buffer, _IOFBF, (size_t)bufsize) != 0)
            die("setvbuf");
    }

    struct tally t = {0};
    char record[RECORD];
    for (long i = 0; i < iterations; i++) {
        if (fseek(fp, random_offset(&seed, last), SEEK_SET) != 0)
            die("fseek");
        tally_call(&t, RECORD, fread(record, 1, RECORD, fp));
    }
    fclose(fp);
    free(buffer); /* only after fclose: the stream uses it until then */
    return print_tally(&t);
}
