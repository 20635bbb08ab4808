/* rl_hostile.c — programs that make a preload library's life hard.
 *
 * usage: rl_hostile MODE A B [C]
 * A and B are data files; every mode reads them so the driver can check the
 * report against strace. Modes: close_range closefrom dup2_over_std
 * fd_exhaustion rlimit_nofile rlimit_fsize handler_stdio environ
 * stderr_closed_reused stderr_plain stderr_closed_by_program
 * stderr_dup2_by_program stderr_dup2_inherited stdout_dup2_by_program
 * stdout_raw_dup2_by_program
 * proc_maps reopen_loop closedir_reuse main_exit no_proc replaced_under_buffer
 * mmap_mode close_range_all close_range_unshare closefrom_all close_loop
 * dup2_onto_unknown close_during_report handler_fresh_pipe (A COUNTS N). */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

extern char **environ;

static char buf[65536];

static void read_file(const char *path, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    if (got != n)
        exit(3);
}

/* close_range/closefrom: descriptors closed wholesale, then their numbers
 * reused by a pipe the program reads. */
static int wholesale(const char *how, const char *a, const char *b)
{
    int fa = open(a, O_RDONLY);
    if (fa != 3 || read(fa, buf, 100) != 100)
        return 4;
    FILE *fb = fopen(b, "r"); /* fd 4 */
    if (!fb || fread(buf, 1, 10, fb) != 10)
        return 4;
    if (strcmp(how, "close_range") == 0) {
        if (close_range(3, ~0U, 0) != 0)
            return 5;
    } else {
        closefrom(3);
    }
    int p[2];
    if (pipe(p) != 0 || p[0] != 3)
        return 6;
    if (write(p[1], "hello", 5) != 5 || read(p[0], buf, 5) != 5)
        return 7;
    int again = open(b, O_RDONLY);
    ssize_t n = read(again, buf, 2000);
    printf("pipe fd %d, %zd bytes of B\n", p[0], n);
    return 0;
}

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* Every descriptor closed, 0-2 included, as daemons and sandboxes do it:
 * close_range(0, ~0U) (with CLOSE_RANGE_UNSHARE while a second thread
 * shares the table), closefrom(0), or close() on every number below 1024.
 * A is read before and after (the number it gets then is 0, the lowest),
 * B through a stream before. Exits 0 when each step did what it does
 * without the library. */
static int close_all(const char *how, const char *a, const char *b)
{
    int fa = open(a, O_RDONLY);
    if (fa < 0 || read(fa, buf, 1000) != 1000)
        return 4;
    FILE *fb = fopen(b, "r");
    if (!fb || fread(buf, 1, 3000, fb) != 3000)
        return 4;
    pthread_t t;
    if (strcmp(how, "close_range_all") == 0) {
        if (close_range(0, ~0U, 0) != 0)
            return 5;
    } else if (strcmp(how, "close_range_unshare") == 0) {
        if (pthread_create(&t, NULL, idle, NULL) != 0 ||
            close_range(0, ~0U, CLOSE_RANGE_UNSHARE) != 0)
            return 5;
    } else if (strcmp(how, "closefrom_all") == 0) {
        closefrom(0);
    } else {
        for (int fd = 0; fd < 1024; fd++)
            close(fd);
    }
    if (fcntl(0, F_GETFD) >= 0 || fcntl(fa, F_GETFD) >= 0 || fcntl(fileno(fb), F_GETFD) >= 0)
        return 6;
    int again = open(a, O_RDONLY);
    if (again != 0 || pread(again, buf, 500, 100) != 500)
        return 7;
    return 0;
}

static int trigger_fd, close_from;

/* Waits for the driver's byte (the report is being written then), closes
 * every descriptor from close_from up and opens a file on each of the 100
 * lowest numbers free then, then says "done" on stdout. */
static void *close_meanwhile(void *arg)
{
    char c;
    (void)arg;
    if (read(trigger_fd, &c, 1) != 1 || close_range((unsigned)close_from, ~0U, 0) != 0)
        _exit(9);
    for (int i = 0; i < 100; i++)
        if (open("victim.txt", O_WRONLY | O_CREAT | O_APPEND, 0644) < 0)
            _exit(9);
    if (write(1, "done\n", 5) != 5)
        _exit(9);
    for (;;)
        pause();
    return NULL;
}

/* Another thread closes every descriptor from C (2 or 3) up while the
 * report is being written at exit (B: the number of the descriptor its
 * trigger comes on). */
static int close_during_report(const char *a, const char *b, const char *c)
{
    read_file(a, 1000);
    int fd = open(a, O_RDONLY); /* a second record and call site: a longer report */
    if (fd < 0 || pread(fd, buf, 100, 5000) != 100 || read(fd, buf, 10) != 10)
        return 4;
    close(fd);
    trigger_fd = atoi(b);
    close_from = atoi(c);
    pthread_t t;
    return pthread_create(&t, NULL, close_meanwhile, NULL) != 0 ? 4 : 0;
}

/* After closing fd 2, the program finds numbers it never opened (in
 * /proc/self/fd) and puts its log on each with dup2, writes to it and
 * closes it: each must be its file, really closed after. Prints how many
 * it found (none without the library). */
static int dup2_onto_unknown(const char *a)
{
    read_file(a, 1000);
    if (close(2) != 0)
        return 4;
    int unknown[16], n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (fd > 2 && fd != dirfd(d) && n < 16)
            unknown[n++] = fd;
    }
    if (!d || closedir(d) != 0)
        return 4;
    int log = open("log.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log != 2)
        return 5;
    for (int i = 0; i < n; i++) {
        struct stat want, got;
        if (dup2(log, unknown[i]) != unknown[i] || fstat(log, &want) != 0 ||
            fstat(unknown[i], &got) != 0 || got.st_ino != want.st_ino)
            return 6;
        if (write(unknown[i], "mine\n", 5) != 5 || close(unknown[i]) != 0)
            return 7;
        if (fcntl(unknown[i], F_GETFD) != -1 || errno != EBADF)
            return 8;
    }
    printf("%d unknown\n", n);
    return 0;
}

static volatile sig_atomic_t ticks;
static char handler_buf[64];
static FILE *handler_fp;
static int handler_fd;
static unsigned long handler_bytes;

static void on_alarm(int sig)
{
    int saved = errno;
    (void)sig;
    /* stdio and POSIX reads and seeks inside a handler that interrupts the
     * program's own (wrapped) calls: its stream's small buffer makes glibc
     * read every 64 ticks, and both go back to the start every 256. */
    int c = fgetc(handler_fp);
    if (c == EOF)
        rewind(handler_fp);
    else
        handler_bytes++;
    char one;
    if (read(handler_fd, &one, 1) == 1)
        handler_bytes++;
    if (++ticks % 256 == 0) {
        fseek(handler_fp, 0, SEEK_SET);
        lseek(handler_fd, 0, SEEK_SET);
    }
    errno = saved;
}

/* fn handles SIGALRM (SA_RESTART), which a timer sends every usec. */
static void alarm_every(long usec, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, usec}, {0, usec}};
    setitimer(ITIMER_REAL, &it, NULL);
}

static int handler_stdio(const char *a, const char *b, const char *c)
{
    handler_fp = fopen(c, "r");
    handler_fd = open(c, O_RDONLY);
    FILE *fa = fopen(a, "r");
    int fb = open(b, O_RDONLY);
    if (!handler_fp || handler_fd < 0 || !fa || fb < 0 ||
        setvbuf(handler_fp, handler_buf, _IOFBF, sizeof handler_buf) != 0)
        return 4;
    /* Both streams have their buffers (fa's from malloc) before the timer
     * is armed: a handler's first fgetc mallocing while main's first fseek
     * is inside malloc would abort in glibc, with or without seektrace. */
    if (fgetc(handler_fp) == EOF || fgetc(fa) == EOF)
        return 4;
    rewind(handler_fp);
    alarm_every(200, on_alarm);
    unsigned long got = 0;
    for (int i = 0; i < 4000; i++) {
        fseek(fa, (long)((i * 7919) % 200000), SEEK_SET);
        got += fread(buf, 1, 37, fa);
        ssize_t r = read(fb, buf, 64);
        if (r <= 0)
            lseek(fb, 0, SEEK_SET);
        else
            got += (unsigned long)r;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("main read %lu; handler ran %s\n", got, ticks > 0 ? "yes" : "no");
    return 0;
}

/* handler_fresh_pipe: each tick, the handler makes a pipe, passes a byte
 * through it and closes it, while main reads a file with read(): a tick
 * that lands in seektrace's bookkeeping of main's read reads a descriptor
 * seektrace has never met (pipe() is not wrapped). */
static volatile sig_atomic_t pipe_reads;

static void on_alarm_pipe(int sig)
{
    int saved = errno;
    (void)sig;
    int p[2];
    char one = 'x';
    if (pipe(p) == 0) {
        if (write(p[1], &one, 1) == 1 && read(p[0], &one, 1) == 1)
            pipe_reads++;
        close(p[0]);
        close(p[1]);
    }
    errno = saved;
}

/* Until the handler has read `want` pipes; their number goes to counts
 * (stdout must not depend on timing). */
static int handler_fresh_pipe(const char *a, const char *counts, int want)
{
    int fa = open(a, O_RDONLY);
    if (fa < 0)
        return 4;
    alarm_every(500, on_alarm_pipe);
    while (pipe_reads < want)
        if (read(fa, buf, 64) <= 0)
            lseek(fa, 0, SEEK_SET);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    FILE *out = fopen(counts, "w");
    if (!out || fprintf(out, "%d\n", (int)pipe_reads) < 0 || fclose(out) != 0)
        return 5;
    printf("done\n");
    return 0;
}

static int exhaust(const char *a, int hard_too)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 32;
    if (hard_too)
        rl.rlim_max = 32;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 4;
    int n = 0, last = -1, fd;
    while ((fd = open(a, O_RDONLY)) >= 0) {
        if (pread(fd, buf, 10, n) != 10)
            return 5;
        last = fd;
        n++;
    }
    int e = errno;
    FILE *f = fopen(a, "r");
    printf("opened %d (last fd %d) then %s; fopen %s\n", n, last, strerror(e),
           f ? "worked" : strerror(errno));
    close(last);
    f = fopen(a, "r");
    if (!f || fread(buf, 1, 5000, f) != 5000)
        return 6;
    /* f stays open: no descriptor is free at exit. */
    return 0;
}

/* One fseek and one fread line (not inlined: the compiler must not split
 * the loop below into two copies with their own lines)... */
static __attribute__((noinline)) size_t seek_and_read(FILE *f, long at)
{
    if (fseek(f, at, SEEK_SET) != 0)
        exit(6);
    return fread(buf, 1, 700, f);
}

/* ...called on one stream whose fd is made to name another file half-way:
 * the calls from those lines must follow the fd to the new file, not keep
 * booking on the stream as first seen. */
static int dup2_same_site(const char *a, const char *b)
{
    FILE *f = fopen(a, "r");
    if (!f)
        return 4;
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (i == 4) {
            int fb = open(b, O_RDONLY);
            if (fb < 0 || dup2(fb, fileno(f)) < 0)
                return 5;
            close(fb);
        }
        n += seek_and_read(f, (long)(i % 4) * 3000);
    }
    fclose(f);
    printf("read %zu through one stream\n", n);
    return 0;
}

/* A stream with a's bytes still buffered when b is dup2'd onto its fd, then
 * one with b's buffered when its fd is closed and c's open takes the
 * number, then one with a's buffered while b and then c replace it: the
 * program reads each to the end, by fread and (b) by getc.
 * Prints what it got of each file ({"a": n, "b": n, "c": n}): the rest of
 * the buffer came from the old file, and the report's delivered bytes must
 * say so. (glibc's get area tells how much was still buffered.) */
static int replaced_under_buffer(const char *a, const char *b, const char *c)
{
    size_t got_a = 0, got_b = 0, got_c = 0, n;
    FILE *f = fopen(a, "r");
    if (!f)
        return 4;
    got_a = fread(buf, 1, 100, f);
    size_t rest = (size_t)(f->_IO_read_end - f->_IO_read_ptr);
    int fb = open(b, O_RDONLY);
    if (fb < 0 || dup2(fb, fileno(f)) < 0)
        return 5;
    close(fb);
    size_t all = 0;
    while ((n = fread(buf, 1, 5000, f)) > 0)
        all += n;
    got_a += rest;
    got_b += all - rest;
    fclose(f);

    FILE *g = fopen(b, "r");
    if (!g)
        return 4;
    for (int i = 0; i < 10 && getc(g) != EOF; i++)
        got_b++;
    rest = (size_t)(g->_IO_read_end - g->_IO_read_ptr);
    int fd = fileno(g);
    close(fd);
    if (open(c, O_RDONLY) != fd) /* the lowest free number: g's */
        return 6;
    all = 0;
    while (getc(g) != EOF)
        all++;
    got_b += rest;
    got_c += all - rest;
    fclose(g);

    /* a's bytes still buffered while b and then c replace it. */
    FILE *h = fopen(a, "r");
    if (!h)
        return 4;
    got_a += fread(buf, 1, 50, h);
    rest = (size_t)(h->_IO_read_end - h->_IO_read_ptr);
    const char *next[] = {b, c};
    for (int i = 0; i < 2; i++) {
        int fn = open(next[i], O_RDONLY);
        if (fn < 0 || dup2(fn, fileno(h)) < 0)
            return 5;
        close(fn);
        got_a += fread(buf, 1, 10, h);
        rest -= 10;
    }
    all = 0;
    while ((n = fread(buf, 1, 5000, h)) > 0)
        all += n;
    got_a += rest;
    got_c += all - rest;
    fclose(h);
    printf("{\"a\": %zu, \"b\": %zu, \"c\": %zu}\n", got_a, got_b, got_c);
    return 0;
}

/* Streams in glibc's "m" mode, which maps the file on the first read where
 * no hook sees: a seeks first and then freads, b freads first and then
 * getcs. Prints what it got of each ({"a": n, "b": n}), which the report's
 * delivered bytes must equal. */
static int mmap_mode(const char *a, const char *b)
{
    size_t got_a = 0, got_b = 0, n;
    FILE *f = fopen(a, "rm");
    if (!f || fseek(f, 1000, SEEK_SET) != 0)
        return 4;
    got_a += fread(buf, 1, 5000, f);
    while ((n = fread(buf, 1, 700, f)) > 0)
        got_a += n;
    fclose(f);
    FILE *g = fopen(b, "rm");
    if (!g)
        return 4;
    got_b += fread(buf, 1, 100, g);
    while (getc(g) != EOF)
        got_b++;
    fclose(g);
    printf("{\"a\": %zu, \"b\": %zu}\n", got_a, got_b);
    return 0;
}

/* A directory the program opened itself, listed through fdopendir and
 * rewound (glibc's own lseek), then closed by closedir (glibc's own
 * close): the numbers it had go to a pipe and a socket pair, made by calls
 * no wrapper sees, whose reads must not land on the directory. */
static int closedir_reuse(const char *a)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", a);
    int fd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d)
        return 3;
    int n = 0;
    while (readdir(d))
        n++;
    rewinddir(d);
    while (readdir(d))
        n--;
    closedir(d);
    int p[2], sv[2];
    if (n != 0 || pipe(p) != 0 || p[0] != fd)
        return 4;
    if (write(p[1], "0123456789", 10) != 10 || read(p[0], buf, 10) != 10)
        return 5;
    close(p[0]);
    close(p[1]);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || sv[0] != fd)
        return 6;
    if (write(sv[1], "abcd", 4) != 4 || read(sv[0], buf, 4) != 4)
        return 7;
    read_file(a, 3000);
    printf("listed, rewound, closed; pipe and socket on fd %d\n", fd);
    return 0;
}

/* Run where /proc is not mounted: A by open() with a name relative to the
 * working directory, B through fopen, then A again by openat: all three
 * on descriptor 3 in turn, so the names the program gave are all that
 * tells them apart. */
static int no_proc(const char *a, const char *b)
{
    char dir[4096], base[4096];
    snprintf(dir, sizeof dir, "%s", a);
    snprintf(base, sizeof base, "%s", a);
    if (chdir(dirname(dir)) != 0)
        return 3;
    int fd = open(basename(base), O_RDONLY);
    if (fd != 3 || read(fd, buf, 1000) != 1000)
        return 4;
    close(fd);
    FILE *f = fopen(b, "r");
    if (!f || fileno(f) != 3 || fread(buf, 1, 3000, f) != 3000)
        return 5;
    fclose(f);
    fd = openat(AT_FDCWD, a, O_RDONLY);
    if (fd != 3 || pread(fd, buf, 500, 100) != 500)
        return 6;
    close(fd);
    printf("read A, B and A on descriptor 3\n");
    return 0;
}

/* After main's pthread_exit, the thread-group leader is a zombie and
 * /proc/self no longer resolves: a file opened and read then must still
 * be reported under its name. */
static void *after_main(void *arg)
{
    char **files = arg;
    char link[64];
    for (int i = 0; i < 5000 && syscall(SYS_readlink, "/proc/self/exe", link, sizeof link) > 0;
         i++)
        usleep(1000);
    read_file(files[0], 3000);
    int fd = open(files[1], O_RDONLY);
    if (fd < 0 || read(fd, buf, 4096) != 4096 || lseek(fd, 100, SEEK_SET) != 100)
        exit(8);
    printf("read after main exited\n");
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rl_hostile MODE A B [C]\n");
        return 2;
    }
    const char *mode = argv[1], *a = argv[2], *b = argv[3], *c = argc > 4 ? argv[4] : argv[3];

    if (strcmp(mode, "close_range") == 0 || strcmp(mode, "closefrom") == 0)
        return wholesale(mode, a, b);
    if (strcmp(mode, "close_range_all") == 0 || strcmp(mode, "close_range_unshare") == 0 ||
        strcmp(mode, "closefrom_all") == 0 || strcmp(mode, "close_loop") == 0)
        return close_all(mode, a, b);
    if (strcmp(mode, "dup2_onto_unknown") == 0)
        return dup2_onto_unknown(a);
    if (strcmp(mode, "close_during_report") == 0)
        return close_during_report(a, b, c);
    if (strcmp(mode, "dup2_over_std") == 0) {
        int fa = open(a, O_RDONLY);
        if (dup2(fa, 0) != 0)
            return 4;
        close(fa);
        size_t n = fread(buf, 1, 10000, stdin);
        int fb = open(b, O_RDONLY);
        dup2(fb, 0); /* stdin's description replaced under the stream */
        clearerr(stdin);
        n += fread(buf, 1, 100, stdin);
        printf("read %zu through stdin\n", n);
        return 0;
    }
    if (strcmp(mode, "dup2_same_site") == 0)
        return dup2_same_site(a, b);
    if (strcmp(mode, "replaced_under_buffer") == 0)
        return replaced_under_buffer(a, b, c);
    if (strcmp(mode, "mmap_mode") == 0)
        return mmap_mode(a, b);
    if (strcmp(mode, "closedir_reuse") == 0)
        return closedir_reuse(a);
    if (strcmp(mode, "no_proc") == 0)
        return no_proc(a, b);
    if (strcmp(mode, "main_exit") == 0) {
        static char *files[2];
        files[0] = (char *)a;
        files[1] = (char *)b;
        pthread_t t;
        if (pthread_create(&t, NULL, after_main, files) != 0)
            return 3;
        pthread_exit(NULL);
    }
    if (strcmp(mode, "fd_exhaustion") == 0)
        return exhaust(a, 0);
    if (strcmp(mode, "rlimit_nofile") == 0)
        return exhaust(a, 1);
    if (strcmp(mode, "rlimit_fsize") == 0) {
        struct rlimit rl = {100, 100};
        setrlimit(RLIMIT_FSIZE, &rl);
        read_file(a, 3000);
        read_file(b, 3000);
        printf("done\n");
        return 0;
    }
    if (strcmp(mode, "handler_stdio") == 0)
        return handler_stdio(a, b, c);
    if (strcmp(mode, "handler_fresh_pipe") == 0)
        return handler_fresh_pipe(a, b, atoi(c));
    if (strcmp(mode, "reopen_loop") == 0) {
        /* A file opened, read and closed again and again (a log read at
         * each request), every other time with a second stream open on it
         * meanwhile. Prints how many times each was opened. */
        long opens = 0, inner = 0;
        for (int i = 0; i < 3000; i++) {
            FILE *f = fopen(a, "r");
            if (!f || fseek(f, (long)(i % 50) * 1000, SEEK_SET) != 0 || fread(buf, 1, 100, f) != 100)
                return 7;
            opens++;
            if (i % 2 == 0) {
                FILE *g = fopen(a, "r");
                if (!g || fread(buf, 1, 10, g) != 10)
                    return 7;
                fclose(g);
                inner++;
            }
            fclose(f);
        }
        printf("{\"opens\": %ld, \"inner\": %ld}\n", opens, inner);
        return 0;
    }
    if (strcmp(mode, "proc_maps") == 0) {
        /* A program that reads its own maps (libsigsegv, V8 and Rust's std
         * do): a file the library must not read too, at start-up, while
         * tracing or while naming call sites at exit. */
        FILE *f = fopen("/proc/self/maps", "r");
        int lines = 0;
        while (f && fgets(buf, sizeof buf, f))
            lines++;
        int fd = open("/proc/self/maps", O_RDONLY);
        ssize_t r;
        while (fd >= 0 && (r = read(fd, buf, 1000)) > 0)
            ;
        if (!f || lines == 0 || fd < 0 || r != 0)
            return 6;
        fclose(f);
        close(fd);
        read_file(a, 3000);
        printf("maps read\n");
        return 0;
    }
    if (strcmp(mode, "environ") == 0) {
        read_file(a, 1000);
        clearenv();
        read_file(b, 2000);
        environ = NULL;
        read_file(a, 3000);
        printf("environ gone\n");
        return 0;
    }
    if (strcmp(mode, "stderr_closed_reused") == 0) {
        /* Started with fd 2 closed: our output file lands on it. */
        int fd = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (write(fd, "program data\n", 13) != 13)
            return 4;
        read_file(a, 1000);
        printf("output on fd %d\n", fd);
        return 0;
    }
    if (strcmp(mode, "stderr_plain") == 0) {
        read_file(a, 1000);
        return 0;
    }
    if (strcmp(mode, "stderr_closed_by_program") == 0) {
        /* What coreutils' close_stdout does at exit. */
        read_file(a, 1000);
        fputs("last words\n", stderr);
        if (fclose(stderr) != 0)
            return 4;
        return 0;
    }
    if (strcmp(mode, "stderr_dup2_by_program") == 0) {
        int log = open("log.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (dup2(log, 2) != 2)
            return 4;
        close(log);
        fputs("to the log\n", stderr);
        read_file(a, 1000);
        return 0;
    }
    if (strcmp(mode, "stderr_dup2_inherited") == 0) {
        /* The log comes open on descriptor B (a number): putting it on fd 2
         * is the program's first call, before any event a trace records. */
        int log = atoi(b);
        if (dup2(log, 2) != 2 || close(log) != 0)
            return 4;
        read_file(a, 1000);
        fputs("to the log\n", stderr);
        return 0;
    }
    if (strcmp(mode, "stdout_dup2_by_program") == 0 ||
        strcmp(mode, "stdout_raw_dup2_by_program") == 0) {
        /* The program's own file lands on the descriptor SEEKTRACE_OUTPUT
         * names (/dev/stdout), through dup2 or behind the library's back:
         * the report must not go into it. */
        puts("to the real stdout");
        fflush(stdout);
        int log = open("log.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int raw = strcmp(mode, "stdout_raw_dup2_by_program") == 0;
        if ((raw ? syscall(SYS_dup3, log, 1, 0) : dup2(log, 1)) != 1)
            return 4;
        close(log);
        puts("to the log");
        read_file(a, 1000);
        return 0;
    }
    fprintf(stderr, "rl_hostile: unknown mode %s\n", mode);
    return 2;
}
