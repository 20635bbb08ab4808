/* Character and line input over a text file: the calls that ask for "a
 * character" or "a line", for which requested = delivered = bytes received.
 *
 * usage: text MODE FILE
 * MODE: fgetc | getc | getc_unlocked | fgets | getline | fscanf | ungetc */
#include <string.h>

#include "workload.h"

/* getc_unlocked must be glibc's inline macro, which reads the stream buffer
 * without any call a preload library could wrap (only the refill, __uflow, is
 * a call). glibc provides it only when optimizing. */
#ifndef __USE_EXTERN_INLINES
#error "build the workloads with optimization: getc_unlocked must be inline"
#endif

static void by_char(FILE *fp, const char *mode, struct tally *t)
{
    /* Three loops, not a function pointer: taking getc_unlocked's address
     * would call the out-of-line copy. */
    if (strcmp(mode, "fgetc") == 0)
        while (fgetc(fp) != EOF)
            tally_call(t, 1, 1);
    else if (strcmp(mode, "getc") == 0)
        while (getc(fp) != EOF)
            tally_call(t, 1, 1);
    else
        while (getc_unlocked(fp) != EOF)
            tally_call(t, 1, 1);
    tally_call(t, 0, 0); /* the call that returned EOF */
}

static void by_fgets(FILE *fp, struct tally *t)
{
    /* Smaller than the longest lines, so some lines take several calls. */
    char line[1024];
    char *got;
    do {
        got = fgets(line, sizeof line, fp);
        size_t n = got ? strlen(line) : 0;
        tally_call(t, n, n);
    } while (got);
}

static void by_getline(FILE *fp, struct tally *t)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    do {
        n = getline(&line, &cap, fp);
        tally_call(t, n > 0 ? (size_t)n : 0, n > 0 ? (size_t)n : 0);
    } while (n > 0);
    free(line);
}

/* One word per call; %n after the whitespace directive gives the bytes consumed
 * including the whitespace after the word (glibc sets it even when that
 * whitespace runs into EOF), so the sum is every byte of a file that does not
 * start with whitespace. */
static void by_fscanf(FILE *fp, struct tally *t)
{
    char word[256];
    int consumed;
    while (fscanf(fp, "%255s %n", word, &consumed) == 1)
        tally_call(t, (size_t)consumed, (size_t)consumed);
    tally_call(t, 0, 0); /* the call that returned EOF */
}

/* Each line: getc, ungetc of another byte, fgets. The byte the stream did
 * not hold puts glibc in its backup area; fgets reads it there, then goes
 * back to the main area without a refill, and the next ungetc books it. */
static void by_ungetc(FILE *fp, struct tally *t)
{
    char line[1024];
    for (;;) {
        int c = getc(fp);
        tally_call(t, c != EOF, c != EOF);
        if (c == EOF || ungetc(c == 'Q' ? 'q' : 'Q', fp) == EOF)
            break;
        char *got = fgets(line, sizeof line, fp);
        size_t n = got ? strlen(line) : 0;
        tally_call(t, n, n);
        if (!got)
            break;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage("text fgetc|getc|getc_unlocked|fgets|getline|fscanf|ungetc FILE");
    const char *mode = argv[1];
    FILE *fp = fopen(argv[2], "r");
    if (!fp)
        die(argv[2]);

    struct tally t = {0};
    if (strcmp(mode, "fgetc") == 0 || strcmp(mode, "getc") == 0 ||
        strcmp(mode, "getc_unlocked") == 0)
        by_char(fp, mode, &t);
    else if (strcmp(mode, "fgets") == 0)
        by_fgets(fp, &t);
    else if (strcmp(mode, "getline") == 0)
        by_getline(fp, &t);
    else if (strcmp(mode, "fscanf") == 0)
        by_fscanf(fp, &t);
    else if (strcmp(mode, "ungetc") == 0)
        by_ungetc(fp, &t);
    else
        usage("text fgetc|getc|getc_unlocked|fgets|getline|fscanf|ungetc FILE");
    fclose(fp);
    return print_tally(&t);
}
