/* Threads reading the same file at once, each through its own stream: random
 * fseek + fread of 16 bytes. seektrace's counts must not lose or mix up
 * updates made concurrently.
 *
 * usage: threads FILE THREADS ITERATIONS SEED */
#include <pthread.h>

#include "workload.h"

enum { RECORD = 16, MAX_THREADS = 16 };

struct worker {
    pthread_t thread;
    const char *path;
    long last, iterations;
    uint64_t seed;
    struct tally t;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    FILE *fp = fopen(w->path, "r");
    if (!fp)
        die(w->path);
    char record[RECORD];
    for (long i = 0; i < w->iterations; i++) {
        if (fseek(fp, random_offset(&w->seed, w->last), SEEK_SET) != 0)
            die("fseek");
        tally_call(&w->t, RECORD, fread(record, 1, RECORD, fp));
    }
    fclose(fp);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage("threads FILE THREADS ITERATIONS SEED");
    long threads = arg_long(argv[2]);
    if (threads < 1 || threads > MAX_THREADS)
        usage("threads FILE THREADS(1-16) ITERATIONS SEED");
    struct worker workers[MAX_THREADS];
    for (long i = 0; i < threads; i++) {
        workers[i] = (struct worker){
            .path = argv[1],
            .last = file_size(argv[1]) - RECORD,
            .iterations = arg_long(argv[3]),
            .seed = (uint64_t)arg_long(argv[4]) + (uint64_t)i,
        };
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) != 0)
            die("pthread_create");
    }
    struct tally t = {0};
    for (long i = 0; i < threads; i++) {
        pthread_join(workers[i].thread, NULL);
        t.requested += workers[i].t.requested;
        t.delivered += workers[i].t.delivered;
        t.calls += workers[i].t.calls;
    }
    return print_tally(&t);
}
