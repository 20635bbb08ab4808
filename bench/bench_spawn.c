/* bench_spawn — run one command and report its wall time and rusage.
 *
 *   bench_spawn RESULT [NAME=VALUE ...] -- PROGRAM [ARGS...]
 *
 * Sets the NAME=VALUE pairs in PROGRAM's environment only (so LD_PRELOAD
 * never applies to the launcher itself), fork()s, execvp()s PROGRAM, and
 * writes one line to RESULT:
 *     wall_ns user_us sys_us maxrss_kib exit_code
 * exit_code is 128+N when PROGRAM died of signal N, 127 when it could not
 * be started.
 *
 * Why a launcher: a child's ru_maxrss starts at the resident size of the
 * process it was forked (or vfork-spawned) from, so a child of the Python
 * runner would never show less than the runner's own ~20-150 MiB. Forked
 * from this 1 MiB process, the figure is the workload's own. The timer also
 * starts and stops right around fork and wait4. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_spawn RESULT [NAME=VALUE ...] -- PROGRAM [ARGS...]\n");
        return 2;
    }
    const char *result = argv[1];
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strchr(argv[i], '=')) {
            fprintf(stderr, "bench_spawn: %s is not NAME=VALUE\n", argv[i]);
            return 2;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "bench_spawn: no command after --\n");
        return 2;
    }
    char **cmd = argv + i + 1;
    int nassign = i - 2;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_spawn: fork");
        return 2;
    }
    if (pid == 0) {
        for (int k = 0; k < nassign; k++)
            putenv(argv[2 + k]);
        execvp(cmd[0], cmd);
        perror(cmd[0]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("bench_spawn: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long wall = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *out = fopen(result, "w");
    if (!out) {
        perror(result);
        return 2;
    }
    fprintf(out, "%lld %lld %lld %ld %d\n", wall,
            (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
            (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec, ru.ru_maxrss, code);
    return fclose(out) == 0 ? 0 : 2;
}
