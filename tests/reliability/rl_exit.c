/* rl_exit.c — reads a file in mixed ways, then ends in the way named.
 *
 * usage: rl_exit MODE FILE [SCRATCH]
 * The reads leave a stdio stream and a descriptor open with unread data
 * (glibc's exit-time cleanup then lseeks back), so the report must carry
 * everything up to the very end. Modes: return exit _exit _Exit abort segv
 * bus fpe sigterm sigint sigterm_external sigpipe own_handler ignored
 * sigsuspend stack_overflow threads_sigterm handler_exit_malloc quick_exit
 * small_thread small_coroutine query. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

static const char *file;

static void read_some(void)
{
    char buf[2000];
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        exit(2);
    }
    if (fread(buf, 1, 100, f) != 100 || fseek(f, 50000, SEEK_SET) != 0 || !fgets(buf, 50, f))
        exit(2);
    int fd = open(file, O_RDONLY);
    if (fd < 0 || read(fd, buf, 1000) != 1000 || lseek(fd, 9000, SEEK_SET) != 9000 ||
        pread(fd, buf, 500, 777) != 500 || read(fd, buf, 10) != 10)
        exit(2);
    /* f and fd stay open. */
}

/* The program's own at_quick_exit handler reads more: the report, written
 * at quick_exit too, must hold it. */
static void read_at_quick_exit(void)
{
    char b[300];
    int fd = open(file, O_RDONLY);
    if (fd >= 0 && pread(fd, b, sizeof b, 4096) != sizeof b)
        _exit(2);
}

/* Old interfaces, still exported and still used: exercised on purpose. */
extern __sighandler_t bsd_signal(int, __sighandler_t);
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static volatile sig_atomic_t got;
static void on_term(int sig) { got = sig; }

#pragma GCC diagnostic ignored "-Winfinite-recursion"
#pragma GCC diagnostic ignored "-Warray-bounds"
static int recurse(int n)
{
    volatile char pad[512];
    pad[0] = (char)n;
    return recurse(n + 1) + pad[0];
}

/* threads_sigterm: reads made so far by all reader threads; the signal
 * comes only once there are READS_BEFORE_SIGNAL, whatever the machine's load
 * (a fixed sleep was not enough at a load of 6). */
enum { READS_BEFORE_SIGNAL = 32 };
static int reads_done;

static void *reader(void *arg)
{
    char buf[64];
    int fd = open(file, O_RDONLY);
    for (;;) {
        if (pread(fd, buf, sizeof buf, 0) < 0)
            break;
        __atomic_add_fetch(&reads_done, 1, __ATOMIC_RELEASE);
    }
    return arg;
}

/* Every signal's disposition as sigaction reports it, then the same after a
 * series of changes through every interface: identical with and without
 * seektrace (the driver compares). */
static void (*restorer)(void);
static void show(const char *what, int sig)
{
    struct sigaction old;
    memset(&old, 0xA5, sizeof old);
    if (sigaction(sig, NULL, &old) != 0) {
        printf("%s %d: error %d\n", what, sig, errno);
        return;
    }
    const char *h = old.sa_handler == SIG_DFL ? "DFL" : old.sa_handler == SIG_IGN ? "IGN" : "fn";
    /* Only the kernel's 64 bits of the mask: glibc (2.36) fills the rest of
     * sa_mask from its own uninitialised stack, different from run to run. */
    unsigned long long mask0;
    memcpy(&mask0, &old.sa_mask, sizeof mask0);
    printf("%s %d: %s flags=%#x mask=%#llx restorer=%s\n", what, sig, h,
           (unsigned)old.sa_flags, mask0,
           !old.sa_restorer ? "none" : old.sa_restorer == restorer ? "glibc" : "other");
}

static void handler_fn(int sig) { (void)sig; }

static void query(void)
{
    struct sigaction probe, old;
    memset(&probe, 0, sizeof probe);
    probe.sa_handler = handler_fn;
    sigaction(SIGURG, &probe, NULL);
    sigaction(SIGURG, NULL, &old);
    restorer = old.sa_restorer;
    for (int sig = 1; sig < 65; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig > 33))
            show("start", sig);
    printf("signal(TERM,DFL) -> %s\n", signal(SIGTERM, SIG_DFL) == SIG_DFL ? "DFL" : "?");
    show("after signal", SIGTERM);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = SIG_DFL;
    act.sa_flags = SA_RESTART | SA_NODEFER;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, SIGUSR1);
    sigaddset(&act.sa_mask, SIGKILL);
    sigaction(SIGINT, &act, &old);
    printf("sigaction(INT,DFL) old=%s\n", old.sa_handler == SIG_DFL ? "DFL" : "?");
    show("after sigaction", SIGINT);
    act.sa_handler = handler_fn;
    sigaction(SIGINT, &act, &old);
    show("handler", SIGINT);
    printf("signal(INT,DFL) -> %s\n", signal(SIGINT, SIG_DFL) == handler_fn ? "fn" : "?");
    show("back to DFL", SIGINT);
    printf("sysv_signal(HUP,fn) -> %s\n", sysv_signal(SIGHUP, handler_fn) == SIG_DFL ? "DFL" : "?");
    printf("sysv_signal(HUP,DFL) -> %s\n", sysv_signal(SIGHUP, SIG_DFL) == handler_fn ? "fn" : "?");
    show("sysv", SIGHUP);
    printf("bsd_signal(QUIT,IGN) -> %s\n", bsd_signal(SIGQUIT, SIG_IGN) == SIG_DFL ? "DFL" : "?");
    show("ign", SIGQUIT);
    printf("sigset(USR1,HOLD) -> %s\n", sigset(SIGUSR1, SIG_HOLD) == SIG_DFL ? "DFL" : "?");
    printf("sigset(USR1,DFL) -> %s\n", sigset(SIGUSR1, SIG_DFL) == SIG_HOLD ? "HOLD" : "?");
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("USR1 blocked after sigset DFL: %d\n", sigismember(&now, SIGUSR1));
    show("sigset", SIGUSR1);
    printf("ssignal(ALRM,DFL) -> %s\n", ssignal(SIGALRM, SIG_DFL) == SIG_DFL ? "DFL" : "?");
    struct sigaction same; /* act and oldact the same object */
    memset(&same, 0, sizeof same);
    same.sa_handler = SIG_DFL;
    same.sa_flags = SA_RESTART;
    sigaddset(&same.sa_mask, SIGHUP);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
    sigaction(SIGUSR2, &same, &same); /* aliasing on purpose: programs do it */
#pragma GCC diagnostic pop
    printf("same pointer old: %s flags=%#x\n", same.sa_handler == SIG_DFL ? "DFL" : "?",
           (unsigned)same.sa_flags);
    show("same pointer", SIGUSR2);
    errno = 4242;
    sigaction(SIGTERM, NULL, &old);
    printf("errno after sigaction: %d\n", errno);
    errno = 4242;
    printf("sigaction(KILL) -> %d errno %d\n", sigaction(SIGKILL, &act, NULL), errno);
    errno = 4242;
    printf("signal(0) -> %s errno %d\n", signal(0, SIG_DFL) == SIG_ERR ? "ERR" : "?", errno);
    for (int sig = 1; sig < 65; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig > 33))
            show("end", sig);
}

/* handler_exit_malloc: a handler that calls _exit (async-signal-safe)
 * while main is inside malloc, with a second thread so that malloc locks:
 * the report must not wait for the lock the interrupted malloc holds. */
static void exit_now(int sig)
{
    (void)sig;
    _exit(11);
}

static void *idle(void *arg)
{
    pause();
    return arg;
}

static void exit_inside_malloc(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) != 0)
        exit(2);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = exit_now;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 0}, {0, 2000}};
    setitimer(ITIMER_REAL, &it, NULL);
    void *held[64] = {0};
    for (unsigned long i = 0;; i++) {
        free(held[i % 64]);
        held[i % 64] = malloc(16 + (i * 7919) % 4000);
    }
}

/* small_thread, small_coroutine: more reads, on a stack of 16 KiB, and
 * exit from there. The report at exit must not need that stack. */
enum { SMALL_STACK = 16 * 1024 };

static void read_and_exit_small(void)
{
    char line[100];
    FILE *f = fopen(file, "r");
    int n = 0;
    while (f && n < 50 && fgets(line, sizeof line, f))
        n++;
    exit(n == 50 ? 12 : 2);
}

static void *small_thread(void *arg)
{
    read_and_exit_small();
    return arg;
}

static void exit_on_small_stack(int coroutine)
{
    if (coroutine) {
        static char stack[SMALL_STACK] __attribute__((aligned(16)));
        static ucontext_t main_ctx, small_ctx;
        if (getcontext(&small_ctx) != 0)
            exit(2);
        small_ctx.uc_stack.ss_sp = stack;
        small_ctx.uc_stack.ss_size = sizeof stack;
        small_ctx.uc_link = &main_ctx;
        makecontext(&small_ctx, read_and_exit_small, 0);
        swapcontext(&main_ctx, &small_ctx);
        exit(2);
    }
    pthread_attr_t attr;
    pthread_t t;
    long least = sysconf(_SC_THREAD_STACK_MIN);
    if (pthread_attr_init(&attr) != 0 ||
        pthread_attr_setstacksize(&attr, least > SMALL_STACK ? (size_t)least : SMALL_STACK) != 0 ||
        pthread_create(&t, &attr, small_thread, NULL) != 0)
        exit(2);
    pthread_join(t, NULL);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rl_exit MODE FILE [SCRATCH]\n");
        return 2;
    }
    const char *mode = argv[1];
    file = argv[2];
    if (strcmp(mode, "query") == 0) {
        query();
        return 0;
    }
    read_some();
    printf("read\n");
    fflush(stdout);

    if (strcmp(mode, "return") == 0)
        return 3;
    if (strcmp(mode, "exit") == 0)
        exit(4);
    if (strcmp(mode, "_exit") == 0)
        _exit(5);
    if (strcmp(mode, "_Exit") == 0)
        _Exit(6);
    if (strcmp(mode, "quick_exit") == 0) {
        at_quick_exit(read_at_quick_exit);
        quick_exit(7);
    }
    if (strcmp(mode, "abort") == 0)
        abort();
    if (strcmp(mode, "segv") == 0)
        *(volatile int *)(uintptr_t)8 = 1;
    if (strcmp(mode, "bus") == 0 && argc > 3) {
        int fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ftruncate(fd, 4096) != 0)
            return 2;
        volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
            return 2;
        return p[100];
    }
    if (strcmp(mode, "fpe") == 0) {
        volatile int zero = 0;
        return 10 / zero;
    }
    if (strcmp(mode, "sigterm") == 0)
        raise(SIGTERM);
    if (strcmp(mode, "sigint") == 0)
        raise(SIGINT);
    if (strcmp(mode, "sigterm_external") == 0) {
        printf("ready\n");
        fflush(stdout);
        char c;
        while (read(0, &c, 1) != 0) /* the driver keeps stdin open */
            ;
        return 7;
    }
    if (strcmp(mode, "sigpipe") == 0) {
        int p[2];
        if (pipe(p) != 0)
            return 2;
        close(p[0]);
        return write(p[1], "x", 1) < 0 ? 8 : 9;
    }
    if (strcmp(mode, "own_handler") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigaction(SIGTERM, &sa, NULL);
        raise(SIGTERM);
        printf("handled %d\n", got);
        exit(42);
    }
    if (strcmp(mode, "ignored") == 0) {
        signal(SIGTERM, SIG_IGN);
        raise(SIGTERM);
        printf("survived\n");
        return 0;
    }
    if (strcmp(mode, "sigsuspend") == 0) {
        sigset_t block, empty;
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigprocmask(SIG_BLOCK, &block, NULL);
        raise(SIGTERM); /* pending */
        sigemptyset(&empty);
        sigsuspend(&empty);
        printf("sigsuspend returned\n");
        return 10;
    }
    if (strcmp(mode, "stack_overflow") == 0) {
        static char alt[64 * 1024];
        stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
        sigaltstack(&ss, NULL);
        return recurse(0);
    }
    if (strcmp(mode, "handler_exit_malloc") == 0)
        exit_inside_malloc();
    if (strcmp(mode, "threads_sigterm") == 0) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, reader, NULL);
        while (__atomic_load_n(&reads_done, __ATOMIC_ACQUIRE) < READS_BEFORE_SIGNAL)
            sched_yield();
        raise(SIGTERM);
        pause();
    }
    if (strcmp(mode, "small_thread") == 0 || strcmp(mode, "small_coroutine") == 0)
        exit_on_small_stack(strcmp(mode, "small_coroutine") == 0);
    fprintf(stderr, "rl_exit: unknown mode %s\n", mode);
    return 2;
}
