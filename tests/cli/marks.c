/* marks — the optional API (include/seektrace/seektrace.h) in use.
 *
 *   cli_marks FILE
 *
 * Marks two phases around reads of FILE, flushes, and prints whether the
 * library was loaded ("active 0|1 flush 0"). Runs the same without it. */
#include <stdio.h>

#include "seektrace/seektrace.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    seektrace_mark("phase one: header");
    FILE *fp = fopen(argv[1], "r");
    if (!fp)
        return 2;
    char buf[512];
    size_t got = fread(buf, 1, sizeof buf, fp);
    seektrace_mark("phase two: body");
    while (fread(buf, 1, sizeof buf, fp) > 0)
        got += sizeof buf;
    fclose(fp);
    int flushed = seektrace_flush();
    printf("active %d flush %d\n", seektrace_active(), flushed);
    return got ? 0 : 3;
}
