/* small_write — the write rules: unbuffered-writes, fflush-per-record,
 * line-buffered-file, small-direct-writes.
 *
 *   small_write FILE RECORDS SIZE MODE
 *
 * Writes RECORDS records of SIZE bytes, each ending in a newline, to FILE
 * (created fresh). MODE says how:
 *   full        fwrite on a stream with glibc's own buffer (the fix)
 *   unbuffered  fwrite on a stream set _IONBF
 *   printf, printf_unbuffered, printf_line   fprintf("%s") of each record
 *   putc, putc_unbuffered       putc of each byte, either way
 *   line        fwrite on a stream set _IOLBF
 *   fflush      fwrite, then fflush after every record
 *   fflush100   fwrite, then fflush after every 100th record
 *   write       the program's own write() per record
 *   block       write() of 64 KiB blocks gathered in memory (the fix)
 * Prints {"records", "written"}: written, the bytes handed over.
 * Built -O0 -g. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

enum { BLOCK = 65536 };

static int is(const char *mode, const char *name) { return strcmp(mode, name) == 0; }

/* One record handed over as fwrite, fprintf or putc hand it. */
static long put(FILE *fp, const char *rec, long size, const char *mode)
{
    if (!strncmp(mode, "printf", 6)) {
        int r = fprintf(fp, "%s", rec);
        return r < 0 ? 0 : r;
    }
    if (!strncmp(mode, "putc", 4)) {
        for (long i = 0; i < size; i++)
            if (putc(rec[i], fp) == EOF)
                return i;
        return size;
    }
    return (long)fwrite(rec, 1, (size_t)size, fp); /* SITE:fwrite */
}

static long with_stdio(const char *path, long records, const char *rec, long size,
                       const char *mode)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        die(path);
    if (strstr(mode, "unbuffered") && setvbuf(fp, NULL, _IONBF, 0) != 0)
        die("setvbuf");
    if (strstr(mode, "line") && setvbuf(fp, NULL, _IOLBF, 0) != 0)
        die("setvbuf");
    long written = 0;
    for (long i = 0; i < records; i++) {
        written += put(fp, rec, size, mode);
        if ((is(mode, "fflush") || (is(mode, "fflush100") && i % 100 == 99)) &&
            fflush(fp) != 0) /* SITE:fflush */
            die("fflush");
    }
    if (fclose(fp) != 0)
        die("fclose");
    return written;
}

static long with_write(const char *path, long records, const char *rec, long size, int block)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char gather[BLOCK];
    size_t have = 0;
    long written = 0;
    if (fd < 0)
        die(path);
    for (long i = 0; i < records; i++) {
        if (!block) {
            if (write(fd, rec, (size_t)size) != size) /* SITE:write */
                die("write");
            written += size;
            continue;
        }
        if (have + (size_t)size > BLOCK) {
            if (write(fd, gather, have) != (ssize_t)have)
                die("write");
            have = 0;
        }
        memcpy(gather + have, rec, (size_t)size);
        have += (size_t)size;
        written += size;
    }
    if (have && write(fd, gather, have) != (ssize_t)have)
        die("write");
    close(fd);
    return written;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage("small_write FILE RECORDS SIZE full|unbuffered|line|fflush|fflush100|printf|"
              "printf_unbuffered|printf_line|putc|putc_unbuffered|write|block");
    long records = arg_long(argv[2]), size = arg_long(argv[3]);
    const char *mode = argv[4];
    char *rec = malloc((size_t)size + 1);
    if (!rec || size < 1)
        die("record");
    memset(rec, 'x', (size_t)size);
    rec[size - 1] = '\n';
    rec[size] = '\0';
    long written;
    if (is(mode, "write") || is(mode, "block"))
        written = with_write(argv[1], records, rec, size, is(mode, "block"));
    else if (is(mode, "full") || is(mode, "unbuffered") || is(mode, "line") ||
             is(mode, "fflush") || is(mode, "fflush100") || is(mode, "printf") ||
             is(mode, "printf_unbuffered") || is(mode, "printf_line") || is(mode, "putc") ||
             is(mode, "putc_unbuffered"))
        written = with_stdio(argv[1], records, rec, size, mode);
    else
        usage("small_write FILE RECORDS SIZE full|unbuffered|line|fflush|fflush100|printf|"
              "printf_unbuffered|printf_line|putc|putc_unbuffered|write|block");
    free(rec);
    return print_counts("records", records, "written", written, (char *)0);
}
