/* bench_fanout — start one program N times, one after the other, as a shell
 * loop would (fork, exec, wait), and fail if any run fails.
 *
 *   bench_fanout N PROGRAM [ARGS...]
 *
 * bench/procs times it to get a per-process cost: the whole run over N.
 * It makes no stdio call of its own, so under LD_PRELOAD it adds one
 * process with nothing to report. Exit status 0 when every run exited 0,
 * 1 when one did not (it stops there), 2 on a usage or fork error. */
#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *a, const char *b)
{
    /* write(2), not stdio: the launcher must stay free of stream calls. */
    if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0 || write(2, "\n", 1) < 0)
        _exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        say("usage: bench_fanout N PROGRAM [ARGS...]", "");
        return 2;
    }
    char *end;
    long n = strtol(argv[1], &end, 10);
    if (*end || n < 1) {
        say("bench_fanout: not a count: ", argv[1]);
        return 2;
    }
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            say("bench_fanout: fork failed", "");
            return 2;
        }
        if (pid == 0) {
            execv(argv[2], argv + 2);
            say("bench_fanout: cannot run ", argv[2]);
            _exit(127);
        }
        int status;
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            say("bench_fanout: a run failed: ", argv[2]);
            return 1;
        }
    }
    return 0;
}
