/* workload.c — stdio read workloads that log the calls they make, for
 * validating src/core/stdio_model.c against strace (see validate.py).
 *
 *   st_model_workload WORKLOAD FILE BUFFER LOG [SEED]
 *
 * BUFFER is "default" (glibc allocates the buffer), "none" (_IONBF) or a
 * size N for setvbuf (fp, malloc (N), _IOFBF, N). Every stdio call on FILE is
 * appended to LOG as one line (the format st_model_replay reads) together
 * with what it returned; the log is written with write(2), never stdio, so
 * that the only stdio stream in play is the one under test. SEED (non-zero)
 * changes the random workloads. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int log_fd = -1;
static const char *data_path, *buffer_spec;
static FILE *fp;
static long file_size;
static int last_byte = EOF; /* the byte the last getc returned, or EOF */

__attribute__((noreturn)) static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* The log is kept in memory and written in large pieces: a write per call
 * would make strace, which stops the process at every syscall, very slow. */
static char log_buf[1 << 16];
static size_t log_len;

static void log_flush(void)
{
    if (write(log_fd, log_buf, log_len) != (ssize_t)log_len)
        die("log");
    log_len = 0;
}

__attribute__((format(printf, 1, 2))) static void log_line(const char *fmt, ...)
{
    va_list ap;

    if (sizeof log_buf - log_len < 128)
        log_flush();
    va_start(ap, fmt);
    log_len += (size_t)vsnprintf(log_buf + log_len, 127, fmt, ap);
    va_end(ap);
    log_buf[log_len++] = '\n';
}

/* ---- The logged calls. ---- */

static char *scratch; /* large enough for any single call */

static size_t do_fread(size_t n)
{
    size_t got = fread(scratch, 1, n, fp);

    log_line("fread %zu %zu", n, got);
    return got;
}

static int do_getc(void)
{
    int c = getc(fp);

    log_line("getc %d", c == EOF ? -1 : 1);
    last_byte = c;
    return c;
}

/* Needs a file without NUL bytes: the length stored is taken with strlen. */
static size_t do_fgets(int n)
{
    char *s = fgets(scratch, n, fp);
    size_t len = s ? strlen(s) : 0;

    log_line("fgets %d %zu %d", n, len, len > 0 && s[len - 1] == '\n');
    return len;
}

static ssize_t do_getline(void)
{
    static char *line;
    static size_t cap;
    ssize_t len = getline(&line, &cap, fp);

    log_line("getdelim %zd %d", len < 0 ? 0 : len,
             len > 0 && line[len - 1] == '\n');
    return len;
}

/* c is compared with the byte the last getc returned: the workloads call
 * ungetc only right after a getc. */
static void do_ungetc(int c)
{
    int match = last_byte != EOF && c == last_byte;

    if (ungetc(c, fp) == EOF)
        die("ungetc");
    log_line("ungetc %d", match);
    last_byte = EOF;
}

/* A byte that is not the one the last getc returned, nor NUL (fgets
 * lengths are taken with strlen). */
static int other_byte(void)
{
    return last_byte == 'A' ? 'B' : 'A';
}

static int do_fseek(long off, int whence)
{
    int r = fseek(fp, off, whence);

    log_line("fseek %ld %d %d", off, whence, r);
    last_byte = EOF;
    return r;
}

static long do_ftell(void)
{
    long pos = ftell(fp);

    log_line("ftell %ld", pos);
    return pos;
}

static void do_rewind(void)
{
    rewind(fp);
    log_line("rewind");
    last_byte = EOF;
}

static void do_fflush(void)
{
    log_line("fflush %d", fflush(fp));
}

static void do_clearerr(void)
{
    clearerr(fp);
    log_line("clearerr");
}

static void do_fclose(void)
{
    log_line("# fbufsize %zu", __fbufsize(fp));
    if (fclose(fp) != 0)
        die("fclose");
    log_line("close");
    log_flush();
}

static void set_buffer(void);

static void do_fopen(void)
{
    fp = fopen(data_path, "r");
    if (!fp)
        die(data_path);
    log_line("open");
    set_buffer();
}

/* Returning from main with the stream open: glibc's exit-time cleanup. */
static void leave_open(void)
{
    log_line("# fbufsize %zu", __fbufsize(fp));
    log_line("exit");
    log_flush();
}

/* ---- The workloads. ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static long rng_below(long n)
{
    return (long)(rng() % (uint64_t)n);
}

/* The demo: 1,000 random fseek + fread (16). */
static void w_demo(void)
{
    for (int i = 0; i < 1000; i++) {
        do_fseek(rng_below(file_size - 16), SEEK_SET);
        do_fread(16);
    }
    do_fclose();
}

static void w_getc(void)
{
    while (do_getc() != EOF)
        ;
    do_getc(); /* sticky EOF: no read */
    leave_open();
}

static void w_fgets(void)
{
    static const int sizes[] = { 200, 80, 1000, 2 };
    int i = 0;

    while (do_fgets(sizes[i++ % 4]) > 0)
        ;
    do_fgets(200);
    leave_open();
}

static void w_getline(void)
{
    while (do_getline() >= 0)
        ;
    do_fclose();
}

static void w_fread10k(void)
{
    while (do_fread(10240) == 10240)
        ;
    do_fread(10240); /* the direct path reads again after EOF */
    do_fread(100);   /* the buffered path does not */
    leave_open();
}

/* Seeks of every kind, in and out of the buffer, reads across buffer
 * boundaries, at EOF and past it. */
static void w_mixed(void)
{
    do_fread(100);
    do_fseek(50, SEEK_SET);       /* in the buffer */
    do_fread(3000);               /* across small buffers */
    do_fseek(10, SEEK_CUR);
    do_fseek(-2500, SEEK_CUR);
    do_fread(20);
    do_fseek(-100, SEEK_END);
    do_fread(200);                /* short: hits EOF */
    do_fseek(123457, SEEK_SET);
    do_getc();
    do_getc();
    do_fseek(-1, SEEK_CUR);
    do_fread(70000);              /* direct for buffers up to 64 KiB */
    do_fseek(0, SEEK_CUR);
    do_fread(5);
    do_fseek(7 * 4096, SEEK_SET); /* block aligned */
    do_fread(1);
    do_fseek(8 * 4096 + 1, SEEK_SET);
    do_fseek(8 * 4096 + 600, SEEK_SET);
    do_fread(4000);
    do_fseek(-3, SEEK_END);
    do_fread(1);
    do_fseek(0, SEEK_END);
    do_fread(1);
    do_fseek(file_size / 2, SEEK_SET);
    do_fread(300000);
    do_fseek(-300000, SEEK_CUR);
    do_fread(1);
    do_fseek(-1, SEEK_SET);       /* fails: EINVAL from lseek */
    do_fread(1);
    do_fseek(-5000000, SEEK_CUR); /* fails before any syscall */
    do_fflush();
    do_fread(33);
    do_rewind();
    do_fread(1);
    leave_open();
}

/* ftell and SEEK_CUR while _offset is known and while it is not (after fopen,
 * fflush and EOF). */
static void w_ftell(void)
{
    do_ftell();
    do_fseek(0, SEEK_CUR);
    do_ftell();
    for (int i = 0; i < 50; i++) {
        do_fread((size_t)(1 + i * 37));
        do_ftell();
        do_fseek(i % 3 == 0 ? -7 : 11, SEEK_CUR);
        do_ftell();
    }
    do_fflush();
    do_ftell();
    do_fseek(100, SEEK_CUR);
    do_ftell();
    do_fseek(-40, SEEK_END);
    while (do_getc() != EOF)
        do_ftell();
    do_ftell();
    do_fseek(-10, SEEK_CUR); /* _offset unknown after EOF: lseek (SEEK_CUR) */
    do_ftell();
    do_fread(4);
    do_ftell();
    do_fseek(2, SEEK_CUR);
    do_ftell();
    do_fclose();
}

static void w_eof(void)
{
    do_fseek(file_size - 10, SEEK_SET);
    do_fread(100);               /* short */
    do_fread(5);                 /* sticky EOF */
    do_getc();
    do_fread(1 << 21);           /* direct: reads again */
    do_clearerr();
    do_getc();                   /* reads again after clearerr */
    do_fseek(file_size + 5000, SEEK_SET); /* past EOF */
    do_fread(10);
    do_ftell();
    do_fseek(0, SEEK_END);
    do_getc();
    do_fseek(100, SEEK_END);
    do_getc();
    do_fseek(-200, SEEK_CUR);
    do_fread(300);
    do_fseek(file_size, SEEK_SET);
    do_fread(1);
    do_rewind();
    do_fread(10);
    do_fseek(-1, SEEK_END);
    do_getc();
    do_getc();
    leave_open();
}

/* ungetc of the byte just read (in place) and of other bytes (backup area). */
static void w_ungetc(void)
{
    do_getc();
    do_ungetc(last_byte);
    do_getc();
    do_ungetc(other_byte());
    do_fread(3);
    do_ftell();
    do_getc();
    do_ungetc(other_byte());
    do_fseek(5, SEEK_CUR);
    do_fread(10);
    do_getc();
    do_ungetc(other_byte());
    do_fflush();
    do_fread(700);
    do_getc();
    do_ungetc(other_byte());
    do_fread(100000);
    do_fseek(-1, SEEK_END);
    do_getc();
    do_getc();
    do_ungetc('q');
    do_getc();
    do_getc();
    do_fseek(4000, SEEK_SET);
    do_getc();
    do_ungetc(last_byte);
    do_getc();
    do_ungetc(other_byte());
    leave_open(); /* exit frees the backup area, then syncs */
}

/* A seeded random mix of every call, on a file without NUL bytes. With
 * backup, ungetc puts back other bytes too; glibc then delivers data and
 * positions that depend on the buffer size (fflush after such an ungetc
 * gives back only the backup bytes, so a byte is read twice later). */
static void random_mix(bool backup)
{
    for (int i = 0; i < 3000; i++) {
        switch (rng_below(14)) {
        case 0: do_fseek(rng_below(file_size + 5000), SEEK_SET); break;
        case 1: do_fseek(rng_below(20000) - 10000, SEEK_CUR); break;
        case 2: do_fseek(-rng_below(20000), SEEK_END); break;
        case 3: do_fread((size_t)rng_below(64)); break;
        case 4: do_fread((size_t)rng_below(20000)); break;
        case 5: do_fread((size_t)rng_below(300000)); break;
        case 6: do_getc(); break;
        case 7: do_fgets((int)rng_below(600)); break;
        case 8: do_getline(); break;
        case 9: do_ftell(); break;
        case 10:
            if (do_getc() != EOF)
                do_ungetc(backup && rng_below(2) ? other_byte() : last_byte);
            break;
        case 11: do_fflush(); break;
        case 12: do_clearerr(); break;
        case 13: if (rng_below(10) == 0) do_rewind(); break;
        }
    }
    leave_open();
}

static void w_random(void)
{
    random_mix(false);
}

static void w_random_backup(void)
{
    random_mix(true);
}

/* ungetc before the stream has a byte orientation (before its first
 * underflow), each case on a fresh stream. fseek then does not drop the
 * backup area up front, so SEEK_CUR is corrected only for the bytes in the
 * backup area, and bytes put back before the buffer exists are lost. The
 * results depend on the buffer size. */
static void w_fresh(void)
{
    do_ungetc('#');
    do_getc();
    do_getc();
    do_ftell();
    do_fclose();

    do_fopen();
    do_ungetc('#');
    do_fseek(10, SEEK_CUR);
    do_getc();
    do_getc();
    do_ftell();
    do_fclose();

    do_fopen();
    do_fseek(5000, SEEK_SET);
    do_ungetc('#');
    do_fseek(10, SEEK_CUR);
    do_getc();
    do_ftell();
    do_fclose();

    /* fflush, then a SEEK_CUR seek with _offset unknown: the plain lseek
     * path drops the backup area too (_IO_unsave_markers). */
    do_fopen();
    do_fseek(5000, SEEK_SET);
    do_fseek(40000, SEEK_SET);
    do_ungetc('#');
    do_fflush();
    do_fseek(10, SEEK_CUR);
    do_getc();
    do_getc();
    do_ftell();
    do_fread(5000);
    do_ftell();
    do_fclose();

    do_fopen();
    do_ungetc('#');
    do_ftell();
    do_fflush();
    do_getc();
    do_ftell();
    leave_open();
}

static const struct {
    const char *name;
    void (*run)(void);
} workloads[] = {
    { "demo", w_demo },
    { "getc", w_getc },
    { "fgets", w_fgets },
    { "getline", w_getline },
    { "fread10k", w_fread10k },
    { "mixed", w_mixed },
    { "ftell", w_ftell },
    { "eof", w_eof },
    { "ungetc", w_ungetc },
    { "fresh", w_fresh },
    { "random", w_random },
    { "random_backup", w_random_backup },
};

static void set_buffer(void)
{
    const char *spec = buffer_spec;

    if (strcmp(spec, "default") == 0)
        return;
    if (strcmp(spec, "none") == 0) {
        if (setvbuf(fp, NULL, _IONBF, 0) != 0)
            die("setvbuf");
        return;
    }
    size_t size = strtoul(spec, NULL, 10);
    char *buf = malloc(size);
    if (size == 0 || !buf || setvbuf(fp, buf, _IOFBF, size) != 0)
        die("setvbuf");
}

int main(int argc, char **argv)
{
    struct stat st;

    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s WORKLOAD FILE default|none|SIZE LOG [SEED]\n",
                argv[0]);
        return 2;
    }
    if (argc == 6)
        rng_state = strtoull(argv[5], NULL, 10);
    data_path = argv[2];
    buffer_spec = argv[3];
    log_fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    scratch = malloc(1 << 21);
    if (log_fd < 0 || !scratch || stat(data_path, &st) != 0)
        die(data_path);
    file_size = st.st_size;
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
        if (strcmp(argv[1], workloads[i].name) != 0)
            continue;
        do_fopen();
        workloads[i].run();
        return 0;
    }
    fprintf(stderr, "unknown workload %s\n", argv[1]);
    return 2;
}
