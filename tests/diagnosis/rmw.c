/* rmw — rule read-modify-write.
 *
 *   rmw FILE MODE SEEKS
 *
 * Opens FILE with MODE ("w+": read/write, the rule's case; "w": its
 * write-only twin), writes 1 MiB, then SEEKS times seeks to a random offset
 * and writes an 8-byte record there. On "w+" glibc fills its buffer from the
 * file at each seek and writes the record back at the next one.
 * Prints {"seeks", "written"}: written, the bytes handed to fwrite.
 * Built -O0 -g. */
#include <stdint.h>

#include "diag.h"

enum { SIZE = 1 << 20, RECORD = 8 };

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("rmw FILE MODE SEEKS");
    long seeks = arg_long(argv[3]);
    FILE *fp = fopen(argv[1], argv[2]);
    static char zeros[SIZE];
    if (!fp || fwrite(zeros, 1, SIZE, fp) != SIZE)
        die(argv[1]);
    long written = SIZE;
    uint64_t x = 88172645463325252ULL; /* xorshift64: the same offsets every run */
    for (long i = 0; i < seeks; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (fseek(fp, (long)(x % (SIZE - RECORD)), SEEK_SET) != 0) /* SITE:fseek */
            die("fseek");
        written += (long)fwrite("ABCDEFGH", 1, RECORD, fp);
    }
    if (fclose(fp) != 0)
        die("fclose");
    return print_counts("seeks", seeks, "written", written, (char *)0);
}
