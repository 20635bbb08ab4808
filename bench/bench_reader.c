/* bench_reader — the smallest program that does stdio on one file:
 * fopen + fread + fclose, then exit.
 *
 *   bench_reader FILE
 *
 * bench/procs spawns it 300 times (through bench_fanout) to price what
 * seektrace adds to a process that made one stdio call: its start-up, its
 * exit report and the naming of the one call site. Exit status 0 when the
 * file was read, 1 otherwise. */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_reader FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f)
        return 1;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f);
    fclose(f);
    return bad || n == 0;
}
