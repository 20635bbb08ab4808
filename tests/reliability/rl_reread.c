/* rl_reread.c — threads re-reading one file at once, each through its own
 * stream: a whole sequential pass (fread of 4 KiB), then random fseek +
 * fread(16). Every byte of the file is read by every thread's first pass,
 * so however the threads interleave, the bytes read from the kernel again
 * are exactly all bytes read less the file's size: the report must say so.
 *
 * usage: rl_reread FILE THREADS SEEKS */
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "../test_prog.h"

struct job {
    pthread_t thread;
    const char *path;
    long size, seeks;
    uint64_t seed;
};

static void *reader(void *arg)
{
    struct job *j = arg;
    FILE *fp = fopen(j->path, "r");
    if (!fp)
        die(j->path);
    char block[4096];
    while (fread(block, 1, sizeof block, fp) > 0)
        ;
    uint64_t s = j->seed;
    for (long i = 0; i < j->seeks; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        if (fseek(fp, (long)(s % (uint64_t)j->size), SEEK_SET) != 0)
            die("fseek");
        if (fread(block, 1, 16, fp) == 0 && ferror(fp))
            die("fread");
    }
    fclose(fp);
    return NULL;
}

int main(int argc, char **argv)
{
    struct stat st;
    if (argc != 4)
        usage("rl_reread FILE THREADS SEEKS");
    long threads = arg_long(argv[2]);
    if (threads < 1 || threads > 64 || stat(argv[1], &st) != 0 || st.st_size < 1)
        usage("rl_reread FILE THREADS(1-64) SEEKS");
    struct job jobs[64];
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){0, argv[1], (long)st.st_size, arg_long(argv[3]), 2006u + 7919u * (unsigned)i};
        if (pthread_create(&jobs[i].thread, NULL, reader, &jobs[i]) != 0)
            return 2;
    }
    for (int i = 0; i < threads; i++)
        pthread_join(jobs[i].thread, NULL);
    printf("{\"size\": %lld}\n", (long long)st.st_size);
    return 0;
}
