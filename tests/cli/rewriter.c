/* rewriter — files a check must judge by what was done to them.
 *
 *   cli_rewriter write FILE   fopen "w+", 64 KiB written, two 4-byte patches
 *                             at seeked offsets: glibc's fseek reads the block
 *                             it lands in, so the file is read from the kernel
 *                             and nothing is delivered (an assembler's output)
 *   cli_rewriter peek FILE    fopen "r", fseek 100, fclose: glibc reads the
 *                             block it lands in, and nothing is delivered
 *   cli_rewriter one FILE     open, lseek 10, one read of 16 bytes, close
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rewrite(const char *path)
{
    static char block[65536];
    memset(block, 'x', sizeof block);
    FILE *f = fopen(path, "w+");
    if (!f)
        return 2;
    fwrite(block, 1, sizeof block, f);
    fseek(f, 100, SEEK_SET);
    fwrite("HDR!", 1, 4, f);
    fseek(f, 40000, SEEK_SET);
    fwrite("SEC!", 1, 4, f);
    return fclose(f) == 0 ? 0 : 3;
}

/* Read from the kernel, never delivered, never written: real waste. */
static int peek(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 2;
    fseek(f, 100, SEEK_SET);
    return fclose(f) == 0 ? 0 : 3;
}

static int one(const char *path)
{
    char buf[16];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 2;
    lseek(fd, 10, SEEK_SET);
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n == (ssize_t)sizeof buf ? 0 : 3;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    if (!strcmp(argv[1], "write"))
        return rewrite(argv[2]);
    if (!strcmp(argv[1], "peek"))
        return peek(argv[2]);
    if (!strcmp(argv[1], "one"))
        return one(argv[2]);
    return 2;
}
