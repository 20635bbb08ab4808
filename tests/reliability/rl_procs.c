/* rl_procs.c — processes: every way a process makes another.
 *
 * usage: rl_procs MODE A B C [DIR FAULTS]
 *        rl_procs fork_handler_read[_known] COUNTS N
 *        rl_procs fork_thread_handler COUNTS N
 * Each mode reads A before the new process, B in the new process (or the
 * program it runs), C in the parent afterwards, so the driver can check
 * against strace that each process's report holds exactly what that process
 * read: a fork child's in the child, once. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void posix_read(const char *path, size_t n)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        _exit(90);
    while (n > 0) {
        ssize_t r = read(fd, buf, n < sizeof buf ? n : sizeof buf);
        if (r <= 0)
            break;
        n -= (size_t)r;
    }
    close(fd);
}

static void wait_all(void)
{
    int st;
    while (wait(&st) > 0 || errno == EINTR)
        ;
}

static const char *self_path;

static void read_through(const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (!f)
        _exit(90);
    while (fgets(line, sizeof line, f))
        ;
    fclose(f);
}

static const char *fold_path;
static volatile int fold_stop;

static void *fold_loop(void *arg)
{
    while (!fold_stop)
        read_through(fold_path);
    return arg;
}

static void *reopen_loop(void *arg)
{
    char block[4096];
    for (int i = 0; i < 10000; i++) {
        int fd = open(arg, O_RDONLY);
        if (fd < 0 || read(fd, block, sizeof block) != (ssize_t)sizeof block)
            _exit(91);
        close(fd);
    }
    return NULL;
}

static void *spin_loop(void *arg)
{
    while (!fold_stop)
        ;
    return arg;
}

/* fn handles sig, with SA_RESTART. */
static int handle(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = SA_RESTART;
    return sigaction(sig, &sa, NULL);
}

/* What a handler counted, to a file: stdout must not depend on timing. */
static int write_counts(const char *path, int all, int in_fork)
{
    FILE *out = fopen(path, "w");
    return out && fprintf(out, "%d %d\n", all, in_fork) > 0 && fclose(out) == 0 ? 0 : 4;
}

/* fork_handler_read: libuv's signal lock, which hung cmake. SIGCHLD's
 * handler takes a byte from a pipe and puts it back while main forks
 * children that exit at once, so the handler often runs inside fork(). */
static int lock_pipe[2];
static volatile sig_atomic_t in_fork, handler_reads, reads_in_fork;

static void on_child(int sig)
{
    int e = errno;
    char c;
    if (read(lock_pipe[0], &c, 1) == 1) {
        handler_reads++;
        reads_in_fork += in_fork;
        if (write(lock_pipe[1], &c, 1) != 1)
            _exit(91);
    }
    errno = e;
}

/* n children; known: main reads the pipe once first (then the handler's
 * read is on a descriptor the library knows, from a new call site). The
 * handler's reads, and those inside fork(), go to counts_path. */
static int fork_handler_read(const char *counts_path, int n, int known)
{
    char c = 'x';
    if (pipe(lock_pipe) != 0 || write(lock_pipe[1], &c, 1) != 1)
        return 2;
    if (known && (read(lock_pipe[0], &c, 1) != 1 || write(lock_pipe[1], &c, 1) != 1))
        return 2;
    if (handle(SIGCHLD, on_child) != 0)
        return 2;
    for (int i = 0; i < n; i++) {
        in_fork = 1;
        pid_t p = fork();
        in_fork = 0;
        if (p == 0)
            _exit(0);
        if (p < 0)
            return 3;
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
    wait_all();
    if (write_counts(counts_path, handler_reads, reads_in_fork) != 0)
        return 4;
    printf("forked %d\n", n);
    return 0;
}

/* fork_thread_handler: one thread forks, another allocates (malloc takes
 * its arena's lock: there is a second thread) and gets SIGUSR1 from main;
 * its handler passes a byte through a new pipe. glibc's fork waits for
 * that arena lock after the atfork prepare handlers have run. */
static volatile int forks_done;
static volatile unsigned fork_gen; /* odd while fork_loop is inside fork() */
static volatile sig_atomic_t usr1_reads, usr1_reads_in_fork;

static void on_usr1(int sig)
{
    int e = errno;
    int p[2];
    char c = 'x';
    if (pipe(p) == 0) {
        unsigned before = fork_gen;
        if (write(p[1], &c, 1) == 1 && read(p[0], &c, 1) == 1) {
            unsigned after = fork_gen;
            usr1_reads++;
            usr1_reads_in_fork += (before & 1) || after != before; /* a fork overlapped it */
        }
        close(p[0]);
        close(p[1]);
    }
    errno = e;
}

static void *allocate_loop(void *arg)
{
    void *held[64] = {0};
    for (unsigned long i = 0; !forks_done; i++) {
        free(held[i % 64]);
        held[i % 64] = malloc(16 + (i * 7919) % 4000);
    }
    return arg;
}

static void *fork_loop(void *arg)
{
    int n = *(int *)arg;
    for (int i = 0; i < n; i++) {
        __atomic_add_fetch(&fork_gen, 1, __ATOMIC_SEQ_CST);
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        __atomic_add_fetch(&fork_gen, 1, __ATOMIC_SEQ_CST);
        waitpid(p, NULL, 0);
    }
    forks_done = 1;
    return arg;
}

static int fork_thread_handler(const char *counts_path, int n)
{
    if (handle(SIGUSR1, on_usr1) != 0)
        return 2;
    pthread_t alloc, forker;
    if (pthread_create(&alloc, NULL, allocate_loop, NULL) != 0 ||
        pthread_create(&forker, NULL, fork_loop, &n) != 0)
        return 2;
    while (!forks_done) {
        pthread_kill(alloc, SIGUSR1);
        usleep(50);
    }
    pthread_join(forker, NULL);
    pthread_join(alloc, NULL);
    if (write_counts(counts_path, usr1_reads, usr1_reads_in_fork) != 0)
        return 4;
    printf("forked %d\n", n);
    return 0;
}

static int exec_stage(int stage, const char *a)
{
    char n[16];
    snprintf(n, sizeof n, "%d", stage + 1);
    char *argv[] = {(char *)self_path, "exec_chain", (char *)a, n, NULL};
    switch (stage) {
    case 0: return execl(self_path, self_path, "exec_chain", a, n, (char *)NULL);
    case 1: return execlp(self_path, self_path, "exec_chain", a, n, (char *)NULL);
    case 2: return execle(self_path, self_path, "exec_chain", a, n, (char *)NULL, environ);
    case 3: return execv(self_path, argv);
    case 4: return execvp(self_path, argv);
    case 5: return execvpe(self_path, argv, environ);
    case 6: return execve(self_path, argv, environ);
    case 7: {
        int fd = open(self_path, O_RDONLY | O_CLOEXEC);
        return fexecve(fd, argv, environ);
    }
    case 8: {
        int fd = open(self_path, O_PATH | O_CLOEXEC);
        return execveat(fd, "", argv, environ, AT_EMPTY_PATH);
    }
    default: return -2;
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rl_procs MODE A B [C [DIR FAULTS]]\n");
        return 2;
    }
    self_path = "/proc/self/exe";
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl > 0) {
        self[sl] = '\0';
        self_path = self;
    }
    const char *mode = argv[1], *a = argv[2], *b = argv[3], *c = argc > 4 ? argv[4] : argv[2];
    char buf[8192];

    if (strcmp(mode, "exec_chain") == 0) {
        /* argv[3] is the stage: read A at a stage-dependent length, go on. */
        int stage = atoi(b);
        posix_read(a, 1000 + (size_t)stage * 100);
        FILE *f = fopen(a, "r");
        if (!f || fread(buf, 1, 10 + (size_t)stage, f) == 0)
            return 91;
        if (stage >= 9) {
            printf("chain done at stage %d\n", stage);
            return 0;
        }
        fflush(stdout);
        exec_stage(stage, a);
        perror("exec");
        return 92;
    }

    if (strcmp(mode, "reopen_threads") == 0) {
        /* Three threads open, read 4 KiB of and close A, B and C, 10,000
         * times each: their descriptor numbers pass from thread to thread,
         * and every read after a file's first is a re-read. */
        pthread_t t[3];
        const char *files[3] = {a, b, c};
        for (int i = 0; i < 3; i++)
            if (pthread_create(&t[i], NULL, reopen_loop, (void *)files[i]) != 0)
                return 2;
        for (int i = 0; i < 3; i++)
            pthread_join(t[i], NULL);
        printf("reopened\n");
        return 0;
    }

    if (strcmp(mode, "fork_folding") == 0) {
        /* A thread opens, reads and closes A again and again (each fclose
         * folds its stream into an earlier one, under a lock of the
         * library's) while main forks children that do the same once. A
         * child forked with that lock held must not hang in its fclose. */
        fold_path = a;
        pthread_t th, busy[3];
        if (pthread_create(&th, NULL, fold_loop, NULL) != 0)
            return 2;
        /* More runnable threads than CPUs: the folding thread is preempted,
         * lock held, often enough for a fork to land there. */
        for (int i = 0; i < 3; i++)
            if (pthread_create(&busy[i], NULL, spin_loop, NULL) != 0)
                return 2;
        int hung = 0;
        for (int i = 0; i < 300; i++) {
            pid_t p = fork();
            if (p == 0) {
                read_through(a);
                _exit(0);
            }
            int st = 0, done = 0;
            for (int t = 0; t < 500 && !done; t++) {
                done = waitpid(p, &st, WNOHANG) == p;
                if (!done)
                    usleep(10000);
            }
            if (!done) {
                hung++;
                kill(p, SIGKILL);
                waitpid(p, &st, 0);
            }
        }
        fold_stop = 1;
        pthread_join(th, NULL);
        for (int i = 0; i < 3; i++)
            pthread_join(busy[i], NULL);
        printf("forks 300 hung %d\n", hung);
        return hung ? 1 : 0;
    }

    if (strcmp(mode, "fork_thread_handler") == 0)
        return fork_thread_handler(a, atoi(b));
    if (strcmp(mode, "fork_handler_read") == 0 || strcmp(mode, "fork_handler_read_known") == 0)
        return fork_handler_read(a, atoi(b), strcmp(mode, "fork_handler_read_known") == 0);

    /* Everything below starts by reading A through stdio, leaving the rest of
     * its buffer for whoever consumes it next. */
    FILE *fa = fopen(a, "r");
    if (!fa || fread(buf, 1, 100, fa) != 100)
        return 93;
    fflush(stdout);

    if (strcmp(mode, "fork_many") == 0) {
        /* argv[5]: a directory of many files, each read once; argv[6]: where
         * the child writes the page faults it took before its own reads
         * (a fork child must not copy the parent's accounts), nor book
         * what the parent consumed. */
        if (argc < 7)
            return 2;
        char path[4096];
        for (int i = 0;; i++) {
            snprintf(path, sizeof path, "%s/f%d", argv[5], i);
            int fd = open(path, O_RDONLY);
            if (fd < 0)
                break;
            while (read(fd, buf, sizeof buf) > 0)
                ;
            close(fd);
        }
        /* Consumed by the parent without a wrapped call: its ledger books
         * them later, and the child never. */
        for (int i = 0; i < 10; i++)
            if (!fgets(buf, sizeof buf, fa))
                return 96;
        /* A stream with a buffer above 4 KiB, whose 4 KiB what-if the
         * library follows: the child reads on from the parent's buffer. */
        static char cbuf[65536]; /* glibc ignores the size given with no buffer */
        FILE *fc = fopen(c, "r");
        if (!fc || setvbuf(fc, cbuf, _IOFBF, sizeof cbuf) != 0 || fread(buf, 1, 100, fc) != 100)
            return 97;
        pid_t p = fork();
        if (p == 0) {
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            if (fread(buf, 1, 100, fc) != 100)
                _exit(98);
            posix_read(b, 3000);
            FILE *out = fopen(argv[6], "w");
            if (!out || fprintf(out, "%ld\n", ru.ru_minflt) < 0 || fclose(out) != 0)
                _exit(95);
            exit(0);
        }
        waitpid(p, NULL, 0);
    } else if (strcmp(mode, "fork") == 0 || strcmp(mode, "_Fork") == 0) {
        pid_t p = strcmp(mode, "fork") == 0 ? fork() : _Fork();
        if (p == 0) {
            if (fread(buf, 1, 5000, fa) != 5000) /* the inherited buffer, then a refill */
                _exit(94);
            posix_read(b, 3000);
            exit(0);
        }
        waitpid(p, NULL, 0);
    } else if (strcmp(mode, "vfork") == 0) {
        pid_t p = vfork();
        if (p == 0)
            _exit(0);
        waitpid(p, NULL, 0);
    } else if (strcmp(mode, "vfork_dup2") == 0) {
        /* The child arranges its own descriptors before exec, as Python's
         * subprocess does: B onto the parent's descriptor of C. The child's
         * table is its own; the parent's descriptor still reads C. */
        int fc = open(c, O_RDONLY);
        if (fc < 0 || read(fc, buf, 700) != 700)
            return 93;
        pid_t p = vfork();
        if (p == 0) {
            int fb = open(b, O_RDONLY);
            if (fb < 0 || dup2(fb, fc) != fc || close(fb) != 0)
                _exit(94);
            _exit(0);
        }
        waitpid(p, NULL, 0);
        if (read(fc, buf, 900) != 900)
            return 93;
        close(fc);
    } else if (strcmp(mode, "vfork_exec") == 0) {
        pid_t p = vfork();
        if (p == 0) {
            char *cat[] = {"/bin/cat", (char *)b, NULL};
            execv(cat[0], cat);
            _exit(127);
        }
        waitpid(p, NULL, 0);
    } else if (strcmp(mode, "vfork_failed_exec") == 0) {
        pid_t p = vfork();
        if (p == 0) {
            char *none[] = {"/nonexistent/program", NULL};
            execv(none[0], none);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
        printf("child status %d\n", WEXITSTATUS(st));
    } else if (strcmp(mode, "posix_spawn") == 0) {
        char *cat[] = {"/bin/cat", (char *)b, NULL};
        pid_t p;
        if (posix_spawn(&p, cat[0], NULL, NULL, cat, environ) != 0)
            return 95;
        waitpid(p, NULL, 0);
    } else if (strcmp(mode, "system") == 0) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "cat '%s' > /dev/null; cat '%s' | wc -c", b, b);
        fflush(stdout);
        if (system(cmd) != 0)
            return 96;
    } else if (strcmp(mode, "popen") == 0) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "cat '%s'", b);
        FILE *p = popen(cmd, "r");
        size_t total = 0, n;
        while (p && (n = fread(buf, 1, sizeof buf, p)) > 0)
            total += n;
        printf("popen read %zu\n", total);
        if (!p || pclose(p) != 0)
            return 97;
    } else if (strcmp(mode, "exec_failed") == 0) {
        char *none[] = {"/nonexistent/program", NULL};
        int r = execv(none[0], none);
        printf("execv -> %d errno %d\n", r, errno);
        posix_read(b, 2000);
    } else if (strcmp(mode, "daemon") == 0) {
        /* The classic double fork; we stay the subreaper to wait for it. */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        pid_t p = fork();
        if (p == 0) {
            setsid();
            if (fork() == 0) {
                if (fread(buf, 1, 200, fa) != 200)
                    _exit(98);
                posix_read(b, 4000);
                exit(0);
            }
            _exit(0);
        }
        wait_all();
    } else if (strcmp(mode, "daemon_libc") == 0) {
        /* glibc's daemon(): its parent ends in glibc's own _exit, its child
         * finds /dev/null on 0-2 by glibc's own dup2 (stdin was C). The
         * child reads B before daemon() and stdin and B after it. */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        if (fork() == 0) {
            posix_read(b, 1000);
            if (daemon(1, 0) != 0)
                _exit(98);
            if (read(0, buf, 100) != 0) /* /dev/null now */
                _exit(99);
            posix_read(b, 4000);
            exit(0);
        }
        wait_all();
    } else {
        fprintf(stderr, "rl_procs: unknown mode %s\n", mode);
        return 2;
    }
    /* The parent goes on: C, and a little more of A. */
    posix_read(c, 1500);
    if (fread(buf, 1, 50, fa) != 50)
        return 99;
    printf("parent done\n");
    return 0;
}
