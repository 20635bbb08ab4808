/* Reading from a pipe, where stdio cannot seek and reads return whatever the
 * writer has produced so far:
 *   popen  fread 100 B at a time from popen("cat FILE") (a second process,
 *          also traced, reads FILE)
 *   stdin  fgets from standard input, which the driver feeds through a pipe
 *
 * usage: pipe popen FILE | pipe stdin */
#include <string.h>

#include "workload.h"

static void from_popen(const char *path, struct tally *t)
{
    char command[4096];
    if (strchr(path, '\'') ||
        snprintf(command, sizeof command, "cat '%s'", path) >= (int)sizeof command)
        usage("pipe popen FILE (FILE without quotes)");
    FILE *fp = popen(command, "r");
    if (!fp)
        die("popen");
    char chunk[100];
    size_t got;
    do {
        got = fread(chunk, 1, sizeof chunk, fp);
        tally_call(t, sizeof chunk, got);
    } while (got > 0);
    if (pclose(fp) != 0)
        die("pclose");
}

static void from_stdin(struct tally *t)
{
    char line[512];
    char *got;
    do {
        got = fgets(line, sizeof line, stdin);
        size_t n = got ? strlen(line) : 0;
        tally_call(t, n, n);
    } while (got);
}

int main(int argc, char **argv)
{
    struct tally t = {0};
    if (argc == 3 && strcmp(argv[1], "popen") == 0)
        from_popen(argv[2], &t);
    else if (argc == 2 && strcmp(argv[1], "stdin") == 0)
        from_stdin(&t);
    else
        usage("pipe popen FILE | pipe stdin");
    return print_tally(&t);
}
