/* reader — a downstream program of the installed seektrace package: built by
 * downstream/CMakeLists.txt (find_package, seektrace::api) and by
 * package_test.py with pkg-config's flags. Marks its start with the
 * optional API and reads FILE one of two ways, counting on its own side:
 *
 *   reader FILE read BLOCK   read(2) of BLOCK bytes until end of file
 *   reader FILE fseek N      N random fseek + 16-byte fread through a 64 KiB
 *                            stdio buffer (every fseek drops the buffer)
 *
 * Prints one JSON line: {"active", "read_calls", "bytes", "requested",
 * "delivered"}: read_calls is how many read() calls it made (each one read
 * syscall), bytes what they returned; requested/delivered its fread's. */
#include <seektrace/seektrace.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_read(const char *path, long block)
{
    int fd = open(path, O_RDONLY);
    char *buf = malloc((size_t)block);
    if (fd < 0 || !buf)
        return 1;
    long calls = 0, bytes = 0;
    for (;;) {
        ssize_t n = read(fd, buf, (size_t)block);
        calls++;
        if (n < 0)
            return 1;
        if (n == 0)
            break;
        bytes += n;
    }
    close(fd);
    free(buf);
    printf("{\"active\": %d, \"read_calls\": %ld, \"bytes\": %ld, \"requested\": 0, "
           "\"delivered\": 0}\n", seektrace_active(), calls, bytes);
    return 0;
}

static int by_fseek(const char *path, long seeks)
{
    FILE *fp = fopen(path, "rb");
    static char buffer[65536];
    if (!fp || setvbuf(fp, buffer, _IOFBF, sizeof buffer) != 0 || fseek(fp, 0, SEEK_END) != 0)
        return 1;
    long size = ftell(fp);
    if (size <= 16)
        return 1;
    unsigned long x = 2006;
    long delivered = 0;
    char record[16];
    for (long i = 0; i < seeks; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        if (fseek(fp, (long)((x >> 33) % (unsigned long)(size - 16)), SEEK_SET) != 0)
            return 1;
        delivered += (long)fread(record, 1, sizeof record, fp);
    }
    fclose(fp);
    printf("{\"active\": %d, \"read_calls\": 0, \"bytes\": 0, \"requested\": %ld, "
           "\"delivered\": %ld}\n", seektrace_active(), seeks * 16, delivered);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: reader FILE read BLOCK | reader FILE fseek N\n");
        return 2;
    }
    seektrace_mark("reader: start");
    long n = strtol(argv[3], NULL, 0);
    if (strcmp(argv[2], "read") == 0 && n > 0)
        return by_read(argv[1], n);
    if (strcmp(argv[2], "fseek") == 0 && n > 0)
        return by_fseek(argv[1], n);
    fprintf(stderr, "usage: reader FILE read BLOCK | reader FILE fseek N\n");
    return 2;
}
