/* replay.c — run a st_model_workload log through the stdio model.
 *
 *   st_model_replay LOG FILE_SIZE default|user|none BUFSIZE
 *
 * Prints one line, "reads R bytes B lseeks L fstats F mismatches M", where M
 * counts the calls whose recorded result differs from the model's (each also
 * reported on stderr): a model that predicts the right syscalls for the wrong
 * reason usually gets a result wrong too. Exit status 0, or 2 for bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stdio_model.h"

static int parse_buffering(const char *s, enum st_model_buffering *out)
{
    if (strcmp(s, "default") == 0)
        *out = ST_M_BUF_ALLOC;
    else if (strcmp(s, "user") == 0)
        *out = ST_M_BUF_USER;
    else if (strcmp(s, "none") == 0)
        *out = ST_M_BUF_NONE;
    else
        return -1;
    return 0;
}

/* Fills op and the recorded result from one log line; 1 for a call, 0 for a
 * comment, -1 for a line it cannot read. Calls without a result in the log
 * have the model's fixed result (0) as theirs. */
static int parse_line(const char *line, struct st_model_op *op, long long *result)
{
    char name[16];
    long long a = 0, b = 0, c = 0;
    int n;

    if (line[0] == '#' || line[0] == '\n')
        return 0;
    n = sscanf(line, "%15s %lld %lld %lld", name, &a, &b, &c);
    if (n < 1)
        return -1;
    *op = (struct st_model_op){ 0 };
    *result = 0;
    if (strcmp(name, "open") == 0) {
        op->kind = ST_M_OPEN;
    } else if (strcmp(name, "fread") == 0 && n == 3) {
        op->kind = ST_M_FREAD, op->arg = a, *result = b;
    } else if (strcmp(name, "getc") == 0 && n == 2) {
        op->kind = ST_M_GETC, *result = a;
    } else if (strcmp(name, "fgets") == 0 && n == 4) {
        op->kind = ST_M_FGETS, op->arg = a, op->len = b, op->delim_seen = c;
        *result = b;
    } else if (strcmp(name, "getdelim") == 0 && n == 3) {
        op->kind = ST_M_GETDELIM, op->len = a, op->delim_seen = b, *result = a;
    } else if (strcmp(name, "ungetc") == 0 && n == 2) {
        op->kind = ST_M_UNGETC, op->matches_prev = a;
    } else if (strcmp(name, "fseek") == 0 && n == 4) {
        op->kind = ST_M_FSEEK, op->arg = a, op->whence = (int)b, *result = c;
    } else if (strcmp(name, "ftell") == 0 && n == 2) {
        op->kind = ST_M_FTELL, *result = a;
    } else if (strcmp(name, "rewind") == 0) {
        op->kind = ST_M_REWIND;
    } else if (strcmp(name, "fflush") == 0 && n == 2) {
        op->kind = ST_M_FFLUSH, *result = a;
    } else if (strcmp(name, "clearerr") == 0) {
        op->kind = ST_M_CLEARERR;
    } else if (strcmp(name, "close") == 0) {
        op->kind = ST_M_CLOSE;
    } else if (strcmp(name, "exit") == 0) {
        op->kind = ST_M_EXIT;
    } else {
        return -1;
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct st_model_config cfg = { 0 };
    struct st_model m;
    char line[256];
    unsigned long lineno = 0, mismatches = 0;
    FILE *log;

    if ((argc != 5 && argc != 6) || parse_buffering(argv[3], &cfg.buffering) != 0) {
        fprintf(stderr, "usage: %s LOG FILE_SIZE default|user|none BUFSIZE [GLIBC_VERSION]\n",
                argv[0]);
        return 2;
    }
    cfg.glibc = argc == 6 ? st_model_glibc(argv[5]) : 0;
    cfg.file_size = strtoull(argv[2], NULL, 10);
    cfg.bufsize = strtoull(argv[4], NULL, 10);
    log = fopen(argv[1], "r");
    if (!log) {
        perror(argv[1]);
        return 2;
    }
    st_model_init(&m, &cfg);
    while (fgets(line, sizeof line, log)) {
        struct st_model_op op;
        long long recorded, predicted;
        int r = parse_line(line, &op, &recorded);

        lineno++;
        if (r < 0) {
            fprintf(stderr, "%s:%lu: cannot read: %s", argv[1], lineno, line);
            return 2;
        }
        if (r == 0)
            continue;
        predicted = st_model_step(&m, &op);
        if (predicted != recorded && mismatches++ < 5)
            fprintf(stderr, "%s:%lu: %s  recorded %lld, model %lld\n", argv[1],
                    lineno, strtok(line, "\n"), recorded, predicted);
    }
    fclose(log);
    printf("reads %llu bytes %llu lseeks %llu fstats %llu mismatches %lu\n",
           (unsigned long long)m.cost.read_syscalls,
           (unsigned long long)m.cost.kernel_read_bytes,
           (unsigned long long)m.cost.lseek_syscalls,
           (unsigned long long)m.cost.fstat_syscalls, mismatches);
    return 0;
}
