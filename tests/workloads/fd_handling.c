/* Streams whose file descriptor seektrace must follow from somewhere else:
 *   fdopen   a stream made from an fd the program opened itself
 *   dup      two streams on dup()ed fds, sharing one kernel offset
 *   freopen  a stream reopened on the same file halfway through
 *   fork     a child reads through the stream it inherited, then exits (its
 *            own report; exit-time lseek on the shared fd); the parent goes on
 * Each does 16-byte freads after random fseeks, or 100-byte sequential freads.
 * The JSON line counts the parent's calls only.
 *
 * usage: fd_handling MODE FILE ITERATIONS SEED */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

enum { RECORD = 16, CHUNK = 100 };

static void random_reads(FILE *fp, long last, long iterations, uint64_t *seed, struct tally *t)
{
    char record[RECORD];
    for (long i = 0; i < iterations; i++) {
        if (fseek(fp, random_offset(seed, last), SEEK_SET) != 0)
            die("fseek");
        tally_call(t, RECORD, fread(record, 1, RECORD, fp));
    }
}

static void chunk_read(FILE *fp, struct tally *t)
{
    char chunk[CHUNK];
    tally_call(t, CHUNK, fread(chunk, 1, CHUNK, fp));
}

static FILE *fdopen_or_die(int fd)
{
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp)
        die("fdopen");
    return fp;
}

static void shared_offset(const char *path, long iterations, struct tally *t)
{
    int fd = open(path, O_RDONLY);
    FILE *a = fdopen_or_die(fd);
    FILE *b = fdopen_or_die(dup(fd));
    for (long i = 0; i < iterations; i++) {
        chunk_read(a, t);
        chunk_read(b, t);
    }
    fclose(a);
    fclose(b);
}

static void reopened(const char *path, long last, long iterations, uint64_t *seed, struct tally *t)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        die(path);
    random_reads(fp, last, iterations / 2, seed, t);
    if (!freopen(path, "r", fp))
        die("freopen");
    random_reads(fp, last, iterations - iterations / 2, seed, t);
    fclose(fp);
}

static void forked(const char *path, long last, long iterations, uint64_t *seed, struct tally *t)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        die(path);
    chunk_read(fp, t);
    fflush(stdout); /* nothing buffered for the child to print twice */
    pid_t child = fork();
    if (child < 0)
        die("fork");
    if (child == 0) {
        struct tally child_tally = {0};
        uint64_t child_seed = *seed + 1;
        random_reads(fp, last, iterations, &child_seed, &child_tally);
        exit(0); /* fp left open: glibc syncs its offset at exit */
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("child");
    random_reads(fp, last, iterations, seed, t);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage("fd_handling fdopen|dup|freopen|fork FILE ITERATIONS SEED");
    const char *mode = argv[1], *path = argv[2];
    long iterations = arg_long(argv[3]);
    uint64_t seed = (uint64_t)arg_long(argv[4]);
    long last = file_size(path) - RECORD;

    struct tally t = {0};
    if (strcmp(mode, "fdopen") == 0) {
        FILE *fp = fdopen_or_die(open(path, O_RDONLY));
        random_reads(fp, last, iterations, &seed, &t);
        fclose(fp);
    } else if (strcmp(mode, "dup") == 0) {
        shared_offset(path, iterations, &t);
    } else if (strcmp(mode, "freopen") == 0) {
        reopened(path, last, iterations, &seed, &t);
    } else if (strcmp(mode, "fork") == 0) {
        forked(path, last, iterations, &seed, &t);
    } else {
        usage("fd_handling fdopen|dup|freopen|fork FILE ITERATIONS SEED");
    }
    return print_tally(&t);
}
