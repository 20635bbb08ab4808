/* fseek2006 — the workload from the 2006 report that started seektrace.
 *
 * "200,000 random fseek() calls on the same zero-filled 4MB file" took 6 s
 * on 2.4 and 4 min 35 s on 2.6 with ReiserFS, because the stream buffer had
 * grown to st_blksize = 128 KiB and every fseek threw it away and read it
 * again. Here: N random fseek + 16-byte fread, with glibc's default buffer
 * or a user buffer of the size given.
 *
 *   fseek2006 FILE [--buffer SIZE] [--seeks N] [--seed S]
 *
 * Creates FILE (4 MiB) if it does not exist. Prints what it asked for and
 * received, so a report can be checked against the program's own count. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_SIZE (4L << 20)
#define RECORD 16

static int make_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp)
        return fclose(fp);
    fp = fopen(path, "wb");
    if (!fp)
        return -1;
    static char block[65536];
    for (long done = 0; done < FILE_SIZE; done += (long)sizeof block) {
        /* Not all zeros: a record's bytes say where it lives. */
        for (size_t i = 0; i < sizeof block; i += 8) {
            uint64_t at = (uint64_t)(done + (long)i);
            memcpy(block + i, &at, 8);
        }
        if (fwrite(block, sizeof block, 1, fp) != 1) {
            fclose(fp);
            return -1;
        }
    }
    return fclose(fp);
}

/* xorshift64: the same sequence on every machine. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long buffer = 0, seeks = 200000;
    uint64_t seed = 2006;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--buffer") == 0 && i + 1 < argc)
            buffer = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--seeks") == 0 && i + 1 < argc)
            seeks = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: %s FILE [--buffer SIZE] [--seeks N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (!path || seeks < 0 || buffer < 0) {
        fprintf(stderr, "usage: %s FILE [--buffer SIZE] [--seeks N] [--seed S]\n", argv[0]);
        return 2;
    }
    if (make_file(path) != 0) {
        fprintf(stderr, "fseek2006: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }

    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "fseek2006: %s: %s\n", path, strerror(errno));
        return 1;
    }
    char *userbuf = NULL;
    if (buffer > 0) {
        userbuf = malloc((size_t)buffer);
        if (!userbuf || setvbuf(fp, userbuf, _IOFBF, (size_t)buffer) != 0) {
            fprintf(stderr, "fseek2006: cannot set a %ld-byte buffer\n", buffer);
            return 1;
        }
    }

    char record[RECORD];
    long delivered = 0;
    for (long i = 0; i < seeks; i++) {
        long at = (long)(next_random(&seed) % (FILE_SIZE - RECORD));
        if (fseek(fp, at, SEEK_SET) != 0) {
            perror("fseek");
            return 1;
        }
        delivered += (long)fread(record, 1, RECORD, fp);
    }
    fclose(fp);
    free(userbuf);
    printf("{\"requested\": %ld, \"delivered\": %ld, \"calls\": %ld}\n",
           seeks * RECORD, delivered, seeks);
    return 0;
}
