/* Sequential fread to EOF with a fixed request size, smaller or larger than the
 * stream buffer. Requests of at least a buffer make glibc read straight into the
 * caller's memory in whole blocks and buffer only the remainder.
 *
 * usage: fread_seq FILE CHUNK BUFSIZE   (BUFSIZE 0: glibc's own buffer) */
#include "workload.h"

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("fread_seq FILE CHUNK BUFSIZE");
    const char *path = argv[1];
    long chunk = arg_long(argv[2]);
    long bufsize = arg_long(argv[3]);

    FILE *fp = fopen(path, "r");
    if (!fp)
        die(path);
    char *buffer = NULL;
    if (bufsize > 0) {
        buffer = malloc((size_t)bufsize);
        if (!buffer || setvbuf(fp, buffer, _IOFBF, (size_t)bufsize) != 0)
            die("setvbuf");
    }
    char *data = malloc((size_t)chunk);
    if (!data)
        die("malloc");

    struct tally t = {0};
    size_t got;
    /* Until a call returns nothing: the last calls run into EOF, which is part of
     * what is measured. */
    do {
        got = fread(data, 1, (size_t)chunk, fp);
        tally_call(&t, (size_t)chunk, got);
    } while (got > 0);
    fclose(fp);
    free(buffer);
    free(data);
    return print_tally(&t);
}
