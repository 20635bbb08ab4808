/* Streams still open when the program ends. At exit glibc moves each read
 * stream's kernel offset back over the bytes it buffered but never handed out:
 * one lseek(fd, -unread, SEEK_CUR) per stream, failing with ESPIPE on a pipe,
 * made after atexit handlers and destructors have run. With _exit there is no
 * such lseek, and no destructor runs at all.
 *
 * usage: exit_open return|_exit FILE LINES
 * Reads LINES lines with fgets from FILE and as many from stdin (a pipe). */
#include <string.h>
#include <unistd.h>

#include "workload.h"

static void read_lines(FILE *fp, long lines, struct tally *t)
{
    char line[512];
    for (long i = 0; i < lines; i++) {
        char *got = fgets(line, sizeof line, fp);
        size_t n = got ? strlen(line) : 0;
        tally_call(t, n, n);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "return") != 0 && strcmp(argv[1], "_exit") != 0))
        usage("exit_open return|_exit FILE LINES");
    FILE *fp = fopen(argv[2], "r");
    if (!fp)
        die(argv[2]);
    long lines = arg_long(argv[3]);

    struct tally t = {0};
    read_lines(fp, lines, &t);
    read_lines(stdin, lines, &t);
    int status = print_tally(&t);
    if (strcmp(argv[1], "_exit") == 0)
        _exit(status);
    return status; /* fp and stdin stay open */
}
