/* rl_errno.c — errno across every interposed function.
 *
 * usage: rl_errno DATAFILE < DATAFILE   (run in a scratch directory)
 *
 * Each symbol libseektrace exports is looked up by name (dlsym, so the
 * exact symbol is called: __isoc99_fscanf, __read_chk, ...) and called once
 * so that it succeeds, with errno set to a sentinel first, and once so that
 * it fails. One line per call: the result and errno. The driver runs this
 * with and without the library and requires identical output, and that
 * every successful call left the sentinel. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define SENTINEL 12345

extern char **environ;

static void *sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p) {
        printf("%s missing\n", name);
        fflush(stdout);
    }
    return p;
}

static void line(const char *name, const char *how, long r, int e)
{
    printf("%-22s %-4s ret=%-4s errno=%d\n", name, how, r < 0 ? "neg" : r == 0 ? "0" : "pos", e);
}

/* Calls EXPR (an integer result) through symbol NAME bound to F of type T. */
#define INT_CALL(how, name, T, expr)                                                 \
    do {                                                                             \
        T F = (T)sym(name);                                                          \
        if (!F)                                                                      \
            break;                                                                   \
        errno = SENTINEL;                                                            \
        long r_ = (long)(expr);                                                      \
        int e_ = errno;                                                              \
        line(name, how, r_, e_);                                                     \
    } while (0)

#define PTR_CALL(how, name, T, expr, keep)                                           \
    do {                                                                             \
        T F = (T)sym(name);                                                          \
        if (!F)                                                                      \
            break;                                                                   \
        errno = SENTINEL;                                                            \
        void *p_ = (void *)(expr);                                                   \
        int e_ = errno;                                                              \
        line(name, how, p_ ? 1 : -1, e_);                                            \
        keep = p_;                                                                   \
    } while (0)

typedef ssize_t (*read_t)(int, void *, size_t);
typedef ssize_t (*read_chk_t)(int, void *, size_t, size_t);
typedef ssize_t (*pread_t)(int, void *, size_t, off_t);
typedef ssize_t (*pread_chk_t)(int, void *, size_t, off_t, size_t);
typedef ssize_t (*readv_t)(int, const struct iovec *, int);
typedef ssize_t (*preadv_t)(int, const struct iovec *, int, off_t);
typedef ssize_t (*preadv2_t)(int, const struct iovec *, int, off_t, int);
typedef off_t (*lseek_t)(int, off_t, int);
typedef int (*dup_t)(int);
typedef int (*dup2_t)(int, int);
typedef int (*dup3_t)(int, int, int);
typedef int (*open_t)(const char *, int, ...);
typedef int (*openat_t)(int, const char *, int, ...);
typedef int (*open2_t)(const char *, int);
typedef int (*openat2_t)(int, const char *, int);
typedef int (*creat_t)(const char *, mode_t);
typedef int (*close_t)(int);
typedef int (*fcntl_t)(int, int, ...);
typedef FILE *(*fopen_t)(const char *, const char *);
typedef FILE *(*fdopen_t)(int, const char *);
typedef FILE *(*freopen_t)(const char *, const char *, FILE *);
typedef int (*setvbuf_t)(FILE *, char *, int, size_t);
typedef void (*setbuf_t)(FILE *, char *);
typedef void (*setbuffer_t)(FILE *, char *, size_t);
typedef void (*setlinebuf_t)(FILE *);
typedef size_t (*fread_t)(void *, size_t, size_t, FILE *);
typedef size_t (*fread_chk_t)(void *, size_t, size_t, size_t, FILE *);
typedef char *(*fgets_t)(char *, int, FILE *);
typedef char *(*fgets_chk_t)(char *, size_t, int, FILE *);
typedef ssize_t (*getline_t)(char **, size_t *, FILE *);
typedef ssize_t (*getdelim_t)(char **, size_t *, int, FILE *);
typedef int (*ungetc_t)(int, FILE *);
typedef int (*fseek_t)(FILE *, long, int);
typedef int (*fseeko_t)(FILE *, off_t, int);
typedef int (*fsetpos_t)(FILE *, const fpos_t *);
typedef void (*rewind_t)(FILE *);
typedef long (*ftell_t)(FILE *);
typedef int (*fgetpos_t)(FILE *, fpos_t *);
typedef int (*fflush_t)(FILE *);
typedef int (*fclose_t)(FILE *);
typedef int (*vfscanf_t)(FILE *, const char *, va_list);
typedef int (*vscanf_t)(const char *, va_list);
typedef int (*fscanf_t)(FILE *, const char *, ...);
typedef int (*scanf_t)(const char *, ...);
typedef int (*fgetc_t)(FILE *);
typedef int (*sigaction_t)(int, const struct sigaction *, struct sigaction *);
typedef __sighandler_t (*signal_t)(int, __sighandler_t);
typedef int (*close_range_t)(unsigned, unsigned, int);
typedef void (*closefrom_t)(int);
typedef int (*execve_t)(const char *, char *const[], char *const[]);
typedef int (*execv_t)(const char *, char *const[]);
typedef int (*execl_t)(const char *, const char *, ...);
typedef int (*fexecve_t)(int, char *const[], char *const[]);
typedef int (*execveat_t)(int, const char *, char *const[], char *const[], int);
typedef pid_t (*fork_t)(void);

static int via_v(vfscanf_t f, FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = f(fp, fmt, ap);
    va_end(ap);
    return r;
}

static int via_vs(vscanf_t f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = f(fmt, ap);
    va_end(ap);
    return r;
}

static void on_usr(int sig) { (void)sig; }

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    const char *path = argv[1];
    char b[4096];
    struct iovec iov[2] = {{b, 10}, {b + 10, 20}};
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 3;

    /* POSIX reads */
    INT_CALL("ok", "read", read_t, F(fd, b, 10));
    INT_CALL("fail", "read", read_t, F(-1, b, 10));
    INT_CALL("ok", "__read_chk", read_chk_t, F(fd, b, 10, sizeof b));
    INT_CALL("fail", "__read_chk", read_chk_t, F(-1, b, 10, sizeof b));
    const char *preads[] = {"pread", "pread64"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", preads[i], pread_t, F(fd, b, 10, 100));
        INT_CALL("fail", preads[i], pread_t, F(fd, b, 10, -5));
    }
    const char *pchk[] = {"__pread_chk", "__pread64_chk"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", pchk[i], pread_chk_t, F(fd, b, 10, 100, sizeof b));
        INT_CALL("fail", pchk[i], pread_chk_t, F(-1, b, 10, 100, sizeof b));
    }
    INT_CALL("ok", "readv", readv_t, F(fd, iov, 2));
    INT_CALL("fail", "readv", readv_t, F(-1, iov, 2));
    const char *pv[] = {"preadv", "preadv64"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", pv[i], preadv_t, F(fd, iov, 2, 10));
        INT_CALL("fail", pv[i], preadv_t, F(fd, iov, 2, -10));
    }
    const char *pv2[] = {"preadv2", "preadv64v2"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", pv2[i], preadv2_t, F(fd, iov, 2, 10, 0));
        INT_CALL("fail", pv2[i], preadv2_t, F(fd, iov, 2, 10, 0x7fff0000));
    }
    const char *ls[] = {"lseek", "lseek64"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", ls[i], lseek_t, F(fd, 5, SEEK_SET));
        INT_CALL("fail", ls[i], lseek_t, F(fd, -5, SEEK_SET));
    }

    /* descriptors */
    int d = -1;
    INT_CALL("ok", "dup", dup_t, (d = F(fd)));
    INT_CALL("fail", "dup", dup_t, F(-1));
    INT_CALL("ok", "dup2", dup2_t, F(fd, 50));
    INT_CALL("fail", "dup2", dup2_t, F(-1, 51));
    INT_CALL("ok", "dup3", dup3_t, F(fd, 52, O_CLOEXEC));
    INT_CALL("fail", "dup3", dup3_t, F(fd, fd, 0));
    INT_CALL("ok", "close", close_t, F(d));
    INT_CALL("fail", "close", close_t, F(-1));
    INT_CALL("ok", "fcntl", fcntl_t, F(fd, F_GETFL));
    INT_CALL("fail", "fcntl", fcntl_t, F(-1, F_GETFL));
    INT_CALL("ok", "fcntl64", fcntl_t, F(fd, F_DUPFD, 60));
    INT_CALL("fail", "fcntl64", fcntl_t, F(-1, F_DUPFD, 60));
    const char *opens[] = {"open", "open64"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", opens[i], open_t, (d = F(path, O_RDONLY)));
        close(d);
        INT_CALL("ok", opens[i], open_t, (d = F("created", O_WRONLY | O_CREAT, 0600)));
        close(d);
        INT_CALL("fail", opens[i], open_t, F("/nonexistent/x", O_RDONLY));
    }
    const char *openats[] = {"openat", "openat64"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", openats[i], openat_t, (d = F(AT_FDCWD, path, O_RDONLY)));
        close(d);
        INT_CALL("fail", openats[i], openat_t, F(AT_FDCWD, "/nonexistent/x", O_RDONLY));
    }
    const char *open2s[] = {"__open_2", "__open64_2"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", open2s[i], open2_t, (d = F(path, O_RDONLY)));
        close(d);
        INT_CALL("fail", open2s[i], open2_t, F("/nonexistent/x", O_RDONLY));
    }
    const char *openat2s[] = {"__openat_2", "__openat64_2"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", openat2s[i], openat2_t, (d = F(AT_FDCWD, path, O_RDONLY)));
        close(d);
        INT_CALL("fail", openat2s[i], openat2_t, F(AT_FDCWD, "/nonexistent/x", O_RDONLY));
    }
    const char *creats[] = {"creat", "creat64"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", creats[i], creat_t, (d = F("created2", 0600)));
        close(d);
        INT_CALL("fail", creats[i], creat_t, F("/nonexistent/x", 0600));
    }

    /* streams */
    FILE *f = NULL, *g = NULL;
    const char *fopens[] = {"fopen", "fopen64"};
    for (int i = 0; i < 2; i++) {
        PTR_CALL("ok", fopens[i], fopen_t, F(path, "r"), g);
        fclose(g);
        PTR_CALL("fail", fopens[i], fopen_t, F("/nonexistent/x", "r"), g);
    }
    PTR_CALL("ok", "fdopen", fdopen_t, F(dup(fd), "r"), g);
    fclose(g);
    PTR_CALL("fail", "fdopen", fdopen_t, F(-1, "r"), g);
    f = fopen(path, "r");
    PTR_CALL("ok", "freopen", freopen_t, F(path, "r", f), f);
    PTR_CALL("ok", "freopen64", freopen_t, F(path, "r", f), f);
    g = fopen(path, "r");
    PTR_CALL("fail", "freopen", freopen_t, F("/nonexistent/x", "r", g), g);
    static char ubuf[8192];
    INT_CALL("ok", "setvbuf", setvbuf_t, F(f, ubuf, _IOFBF, sizeof ubuf));
    INT_CALL("fail", "setvbuf", setvbuf_t, F(f, NULL, 12345, 10));
    FILE *h = fopen(path, "r");
    INT_CALL("ok", "setbuf", setbuf_t, (F(h, NULL), 0));
    INT_CALL("ok", "setbuffer", setbuffer_t, (F(h, NULL, 0), 0));
    INT_CALL("ok", "setlinebuf", setlinebuf_t, (F(h), 0));
    fclose(h);
    const char *freads[] = {"fread", "fread_unlocked"};
    for (int i = 0; i < 2; i++) {
        INT_CALL("ok", freads[i], fread_t, F(b, 1, 100, f));
        FILE *w = fopen("created", "w");
        INT_CALL("fail", freads[i], fread_t, F(b, 1, 100, w));
        fclose(w);
    }
    const char *fchk[] = {"__fread_chk", "__fread_unlocked_chk"};
    for (int i = 0; i < 2; i++)
        INT_CALL("ok", fchk[i], fread_chk_t, F(b, sizeof b, 1, 100, f));
    const char *fgetss[] = {"fgets", "fgets_unlocked"};
    for (int i = 0; i < 2; i++)
        INT_CALL("ok", fgetss[i], fgets_t, F(b, 50, f) ? 1 : -1);
    const char *fgchk[] = {"__fgets_chk", "__fgets_unlocked_chk"};
    for (int i = 0; i < 2; i++)
        INT_CALL("ok", fgchk[i], fgets_chk_t, F(b, sizeof b, 50, f) ? 1 : -1);
    char *lp = NULL;
    size_t ln = 0;
    INT_CALL("ok", "getline", getline_t, F(&lp, &ln, f));
    INT_CALL("ok", "getdelim", getdelim_t, F(&lp, &ln, 'x', f));
    INT_CALL("ok", "__getdelim", getdelim_t, F(&lp, &ln, 'y', f));
    INT_CALL("fail", "getline", getline_t, F(NULL, &ln, f));
    INT_CALL("ok", "ungetc", ungetc_t, F('Q', f));
    INT_CALL("fail", "ungetc", ungetc_t, F(EOF, f));
    INT_CALL("ok", "fgetc", fgetc_t, F(f));
    INT_CALL("ok", "getc", fgetc_t, F(f));
    INT_CALL("ok", "fseek", fseek_t, F(f, 100000, SEEK_SET));
    INT_CALL("fail", "fseek", fseek_t, F(f, -100, SEEK_SET));
    INT_CALL("ok", "fseeko", fseeko_t, F(f, 100, SEEK_CUR));
    INT_CALL("ok", "fseeko64", fseeko_t, F(f, -100, SEEK_END));
    INT_CALL("fail", "fseeko64", fseeko_t, F(f, -100, 99));
    fpos_t pos;
    INT_CALL("ok", "fgetpos", fgetpos_t, F(f, &pos));
    INT_CALL("ok", "fgetpos64", fgetpos_t, F(f, &pos));
    INT_CALL("ok", "fsetpos", fsetpos_t, F(f, &pos));
    INT_CALL("ok", "fsetpos64", fsetpos_t, F(f, &pos));
    INT_CALL("ok", "rewind", rewind_t, (F(f), 0));
    INT_CALL("ok", "ftell", ftell_t, F(f));
    INT_CALL("ok", "ftello", ftell_t, F(f));
    INT_CALL("ok", "ftello64", ftell_t, F(f));
    INT_CALL("ok", "fflush", fflush_t, F(f));
    INT_CALL("ok", "fflush_unlocked", fflush_t, F(f));
    INT_CALL("ok", "fflush", fflush_t, F(NULL));
    int x = 0;
    INT_CALL("ok", "fscanf", fscanf_t, F(f, "%*c%n", &x));
    INT_CALL("ok", "__isoc99_fscanf", fscanf_t, F(f, "%*c%n", &x));
    INT_CALL("ok", "vfscanf", vfscanf_t, via_v(F, f, "%*c%n", &x));
    INT_CALL("ok", "__isoc99_vfscanf", vfscanf_t, via_v(F, f, "%*c%n", &x));
    INT_CALL("ok", "scanf", scanf_t, F("%*c%n", &x));
    INT_CALL("ok", "__isoc99_scanf", scanf_t, F("%*c%n", &x));
    INT_CALL("ok", "vscanf", vscanf_t, via_vs(F, "%*c%n", &x));
    INT_CALL("ok", "__isoc99_vscanf", vscanf_t, via_vs(F, "%*c%n", &x));
    INT_CALL("ok", "fclose", fclose_t, F(f));
    FILE *w = fopen("/dev/full", "w");
    fputs("x", w);
    INT_CALL("fail", "fclose", fclose_t, F(w));

    /* signals */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr;
    INT_CALL("ok", "sigaction", sigaction_t, F(SIGUSR1, &sa, &old));
    INT_CALL("ok", "__sigaction", sigaction_t, F(SIGUSR1, NULL, &old));
    sa.sa_handler = SIG_DFL;
    INT_CALL("ok", "sigaction", sigaction_t, F(SIGTERM, &sa, &old));
    INT_CALL("fail", "sigaction", sigaction_t, F(SIGKILL, &sa, &old));
    INT_CALL("fail", "sigaction", sigaction_t, F(0, &sa, &old));
    const char *sigs[] = {"signal", "bsd_signal", "ssignal", "sysv_signal", "__sysv_signal", "sigset"};
    for (int i = 0; i < 6; i++) {
        INT_CALL("ok", sigs[i], signal_t, F(SIGUSR2, on_usr) == SIG_ERR ? -1 : 1);
        INT_CALL("ok", sigs[i], signal_t, F(SIGUSR2, SIG_DFL) == SIG_ERR ? -1 : 1);
        INT_CALL("ok", sigs[i], signal_t, F(SIGINT, SIG_DFL) == SIG_ERR ? -1 : 1);
        INT_CALL("fail", sigs[i], signal_t, F(SIGKILL, on_usr) == SIG_ERR ? -1 : 1);
        INT_CALL("fail", sigs[i], signal_t, F(-3, SIG_DFL) == SIG_ERR ? -1 : 1);
    }

    /* whole ranges of descriptors */
    dup2(fd, 70);
    dup2(fd, 71);
    INT_CALL("ok", "close_range", close_range_t, F(70, 71, 0));
    INT_CALL("fail", "close_range", close_range_t, F(10, 5, 0));
    dup2(fd, 80);
    INT_CALL("ok", "closefrom", closefrom_t, (F(80), 0));

    /* exec: only failures return */
    char *args[] = {"nothing", NULL};
    INT_CALL("fail", "execve", execve_t, F("/nonexistent/x", args, environ));
    INT_CALL("fail", "execv", execv_t, F("/nonexistent/x", args));
    INT_CALL("fail", "execvp", execv_t, F("rl-no-such-program", args));
    INT_CALL("fail", "execvpe", execve_t, F("rl-no-such-program", args, environ));
    INT_CALL("fail", "execl", execl_t, F("/nonexistent/x", "x", (char *)NULL));
    INT_CALL("fail", "execlp", execl_t, F("rl-no-such-program", "x", (char *)NULL));
    INT_CALL("fail", "execle", execl_t, F("/nonexistent/x", "x", (char *)NULL, environ));
    INT_CALL("fail", "fexecve", fexecve_t, F(-1, args, environ));
    INT_CALL("fail", "execveat", execveat_t, F(AT_FDCWD, "/nonexistent/x", args, environ, 0));

    /* _Fork: the parent's errno after a fork that worked */
    fork_t fk = (fork_t)sym("_Fork");
    if (fk) {
        errno = SENTINEL;
        pid_t p = fk();
        if (p == 0)
            _exit(errno == SENTINEL ? 0 : 1);
        int e = errno, st = 0;
        waitpid(p, &st, 0);
        line("_Fork", "ok", p > 0 ? 1 : -1, e);
        printf("_Fork child errno kept: %s\n", WEXITSTATUS(st) == 0 ? "yes" : "no");
    }
    fflush(stdout);
    return 0;
}
