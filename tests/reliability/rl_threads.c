/* rl_threads.c — 16 threads × mixed stdio and POSIX reads, on one shared
 * stream, one shared descriptor, and streams and descriptors of their own.
 *
 * usage: rl_threads DIR OPS_PER_THREAD
 * DIR holds shared.bin and p0..p15.bin (made by the driver). Prints, as JSON,
 * per file what the program itself asked for and received, and how many
 * POSIX read calls it made: the report must agree exactly. */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 16

struct tally {
    uint64_t requested, delivered, posix_reads;
};

static char dir[4000];
static long ops;
static FILE *shared_fp;
static int shared_fd;
static off_t shared_size;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tally shared_total, private_total[THREADS];

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char path[4100], buf[9000];
    snprintf(path, sizeof path, "%s/p%d.bin", dir, id);
    FILE *mine = fopen(path, "r");
    int fd = open(path, O_RDONLY);
    if (!mine || fd < 0)
        exit(3);
    struct tally sh = {0}, pr = {0};
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(id + 1);
    for (long i = 0; i < ops; i++) {
        uint64_t r = next_rand(&rng);
        size_t n = 1 + r % 3000;
        switch ((r >> 20) % 7) {
        case 0: { /* shared stream: glibc locks it per call */
            size_t got = fread(buf, 1, n, shared_fp);
            sh.requested += n;
            sh.delivered += got;
            if (got < n)
                rewind(shared_fp);
            break;
        }
        case 1: { /* shared descriptor, explicit offsets */
            ssize_t got = pread(shared_fd, buf, n, (off_t)(r >> 32) % shared_size);
            sh.requested += n;
            sh.delivered += got > 0 ? (uint64_t)got : 0;
            sh.posix_reads++;
            break;
        }
        case 2: { /* own stream, a byte at a time */
            int c = fgetc(mine);
            if (c == EOF) {
                rewind(mine);
            } else {
                pr.requested++;
                pr.delivered++;
            }
            break;
        }
        case 3: { /* own stream, lines */
            if (fgets(buf, 200, mine)) {
                size_t len = strlen(buf);
                pr.requested += len;
                pr.delivered += len;
            } else {
                rewind(mine);
            }
            break;
        }
        case 4: { /* own stream, seek then read */
            fseek(mine, (long)((r >> 32) % 200000), SEEK_SET);
            size_t got = fread(buf, 1, n % 64 + 1, mine);
            pr.requested += n % 64 + 1;
            pr.delivered += got;
            break;
        }
        case 5: { /* own descriptor, sequential */
            ssize_t got = read(fd, buf, n);
            pr.requested += n;
            pr.posix_reads++;
            if (got > 0)
                pr.delivered += (uint64_t)got;
            else
                lseek(fd, 0, SEEK_SET);
            break;
        }
        default: { /* own descriptor, random */
            ssize_t got = pread(fd, buf, n, (off_t)((r >> 32) % 250000));
            pr.requested += n;
            pr.posix_reads++;
            pr.delivered += got > 0 ? (uint64_t)got : 0;
            break;
        }
        }
    }
    fclose(mine);
    close(fd);
    pthread_mutex_lock(&sum_lock);
    shared_total.requested += sh.requested;
    shared_total.delivered += sh.delivered;
    shared_total.posix_reads += sh.posix_reads;
    private_total[id] = pr;
    pthread_mutex_unlock(&sum_lock);
    return NULL;
}

static void print_tally(const char *path, const struct tally *t, int last)
{
    printf("  \"%s\": {\"requested\": %" PRIu64 ", \"delivered\": %" PRIu64
           ", \"posix_reads\": %" PRIu64 "}%s\n",
           path, t->requested, t->delivered, t->posix_reads, last ? "" : ",");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: rl_threads DIR OPS_PER_THREAD\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    ops = atol(argv[2]);
    char path[4100];
    snprintf(path, sizeof path, "%s/shared.bin", dir);
    shared_fp = fopen(path, "r");
    shared_fd = open(path, O_RDONLY);
    if (!shared_fp || shared_fd < 0)
        return 3;
    shared_size = lseek(shared_fd, 0, SEEK_END);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    shared_total.posix_reads += 0; /* the lseek above is not a read */
    printf("{\n");
    print_tally(path, &shared_total, 0);
    for (int i = 0; i < THREADS; i++) {
        snprintf(path, sizeof path, "%s/p%d.bin", dir, i);
        print_tally(path, &private_total[i], i == THREADS - 1);
    }
    printf("}\n");
    return 0;
}
