/* bench_threads — a multi-threaded reader: T threads (default 4), each with
 * its own stream on the same file, so every counter update takes the
 * multi-threaded (atomic) path and every refill notes a range on the one
 * shared file record.
 *
 *   bench_threads FILE [THREADS] [SEEKS]
 *
 * Each thread reads its 1/T slice of FILE with getc() per byte, then makes
 * SEEKS (default 50,000) random fseek + fread(16) over the whole file. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

struct job {
    const char *path;
    long begin, end, size, seeks;
    uint64_t seed;
    unsigned long long bytes, check;
};

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *reader(void *arg)
{
    struct job *j = arg;
    FILE *fp = fopen(j->path, "r");
    if (!fp) {
        perror(j->path);
        exit(2);
    }
    if (fseek(fp, j->begin, SEEK_SET) != 0) {
        perror("fseek");
        exit(2);
    }
    /* Sums in locals, stored once: the jobs sit side by side, and a
     * per-byte store into them would make the threads fight over cache
     * lines — a cost of the benchmark, not of what it measures. */
    unsigned long long bytes = 0, check = 0;
    for (long at = j->begin; at < j->end; at++) {
        int c = getc(fp);
        if (c == EOF)
            break;
        check += (unsigned)c;
        bytes++;
    }
    char rec[16];
    uint64_t seed = j->seed;
    for (long i = 0; i < j->seeks; i++) {
        long at = (long)(next_random(&seed) % (uint64_t)(j->size - (long)sizeof rec));
        if (fseek(fp, at, SEEK_SET) != 0) {
            perror("fseek");
            exit(2);
        }
        size_t n = fread(rec, 1, sizeof rec, fp);
        bytes += n;
        check += n ? (unsigned char)rec[0] : 0;
    }
    fclose(fp);
    j->bytes = bytes;
    j->check = check;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench_threads FILE [THREADS] [SEEKS]\n");
        return 2;
    }
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    long seeks = argc > 3 ? strtol(argv[3], NULL, 0) : 50000;
    if (threads < 1 || threads > 64 || seeks < 0) {
        fprintf(stderr, "bench_threads: bad arguments\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || st.st_size < 64) {
        perror(argv[1]);
        return 2;
    }
    struct job jobs[64];
    pthread_t tid[64];
    long slice = st.st_size / threads;
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){argv[1], slice * i, i == threads - 1 ? st.st_size : slice * (i + 1),
                               st.st_size, seeks, 2006u + 7919u * (unsigned)i, 0, 0};
        if (pthread_create(&tid[i], NULL, reader, &jobs[i]) != 0) {
            fprintf(stderr, "bench_threads: pthread_create failed\n");
            return 2;
        }
    }
    unsigned long long bytes = 0, check = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        bytes += jobs[i].bytes;
        check += jobs[i].check;
    }
    printf("{\"bytes\": %llu, \"threads\": %d, \"check\": %llu}\n", bytes, threads, check);
    return 0;
}
