/* fseek and ftell patterns that may keep or drop the stream buffer, each
 * followed by a 16-byte fread:
 *   inbuf  seek back and forward near the last read (inside the buffer or not)
 *   cur    SEEK_CUR steps, the first one right after fopen (offset unknown)
 *   end    SEEK_END seeks (glibc fstats before each)
 *   ftell  ftell right after fopen, after every read, after seeks and at EOF
 *
 * usage: seek_patterns MODE FILE ITERATIONS SEED */
#include <string.h>

#include "workload.h"

enum { RECORD = 16 };

struct run {
    FILE *fp;
    long last; /* the last offset a whole record can be read from */
    uint64_t seed;
    struct tally t;
};

static void seek_or_die(FILE *fp, long offset, int whence)
{
    if (fseek(fp, offset, whence) != 0)
        die("fseek");
}

static void read_record(struct run *r)
{
    char record[RECORD];
    tally_call(&r->t, RECORD, fread(record, 1, RECORD, r->fp));
}

static void in_buffer(struct run *r, long iterations)
{
    for (long i = 0; i < iterations; i++) {
        long at = RECORD + random_offset(&r->seed, r->last - 300);
        seek_or_die(r->fp, at, SEEK_SET);
        read_record(r);
        seek_or_die(r->fp, at - 8, SEEK_SET); /* back over what was read */
        read_record(r);
        seek_or_die(r->fp, at + 200, SEEK_SET); /* forward */
        read_record(r);
        seek_or_die(r->fp, at + 100, SEEK_SET); /* back again */
        read_record(r);
    }
}

static void from_current(struct run *r, long iterations)
{
    long pos = 100;
    seek_or_die(r->fp, pos, SEEK_CUR); /* offset still unknown to stdio */
    read_record(r);
    pos += RECORD;
    for (long i = 0; i < iterations; i++) {
        /* Mostly short steps, which may stay in the buffer, some long jumps. */
        long target = i % 4 == 0 ? random_offset(&r->seed, r->last)
                                 : pos + random_offset(&r->seed, 6000) - 3000;
        if (target < 0)
            target = 0;
        if (target > r->last)
            target = r->last;
        seek_or_die(r->fp, target - pos, SEEK_CUR);
        read_record(r);
        pos = target + RECORD;
    }
}

static void from_end(struct run *r, long iterations)
{
    for (long i = 0; i < iterations; i++) {
        seek_or_die(r->fp, -(RECORD + random_offset(&r->seed, r->last)), SEEK_END);
        read_record(r);
    }
}

static void telling(struct run *r, long iterations)
{
    char chunk[100];
    if (ftell(r->fp) != 0)
        die("ftell after fopen");
    for (long i = 0; i < iterations; i++) {
        tally_call(&r->t, sizeof chunk, fread(chunk, 1, sizeof chunk, r->fp));
        ftell(r->fp);
        if (i % 10 == 0) {
            seek_or_die(r->fp, random_offset(&r->seed, r->last), SEEK_SET);
            ftell(r->fp);
            ftell(r->fp);
        }
    }
    /* After EOF stdio no longer knows the offset: every ftell asks the kernel. */
    seek_or_die(r->fp, -50, SEEK_END);
    tally_call(&r->t, sizeof chunk, fread(chunk, 1, sizeof chunk, r->fp));
    for (int i = 0; i < 3; i++)
        ftell(r->fp);
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage("seek_patterns inbuf|cur|end|ftell FILE ITERATIONS SEED");
    const char *mode = argv[1];
    struct run r = {
        .fp = fopen(argv[2], "r"),
        .last = file_size(argv[2]) - RECORD,
        .seed = (uint64_t)arg_long(argv[4]),
    };
    long iterations = arg_long(argv[3]);
    if (!r.fp)
        die(argv[2]);

    if (strcmp(mode, "inbuf") == 0)
        in_buffer(&r, iterations);
    else if (strcmp(mode, "cur") == 0)
        from_current(&r, iterations);
    else if (strcmp(mode, "end") == 0)
        from_end(&r, iterations);
    else if (strcmp(mode, "ftell") == 0)
        telling(&r, iterations);
    else
        usage("seek_patterns inbuf|cur|end|ftell FILE ITERATIONS SEED");
    fclose(r.fp);
    return print_tally(&r.t);
}
