/* rl_pty — login_tty and forkpty move a terminal onto descriptors 0-2
 * through glibc's internal dup2, which no wrapper sees.
 *
 *   rl_pty login_tty|forkpty < FILE
 *
 * The child reads one byte of FILE from descriptor 0, then takes a new
 * terminal as 0-2 (login_tty on an openpty pair, or forkpty's own) and reads
 * the two lines the parent writes into its master: two read syscalls of 6
 * bytes each on /dev/pts/N, not on FILE. The parent exits with the child's
 * status. Prints nothing of its own. */
#define _GNU_SOURCE 1
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <utmp.h>

static const char LINES[] = "line1\nline2\n";

static int child_reads(void)
{
    char buf[64];
    for (int lines = 0; lines < 2; lines++) {
        ssize_t n = read(0, buf, sizeof buf); /* canonical mode: one line each */
        if (n != 6)
            return 3;
    }
    return 0;
}

static int parent_feeds(int master, pid_t child)
{
    if (write(master, LINES, strlen(LINES)) != (ssize_t)strlen(LINES))
        return 4;
    int status;
    if (waitpid(child, &status, 0) != child)
        return 5;
    close(master);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 6;
}

int main(int argc, char **argv)
{
    char first;
    if (argc != 2 || read(0, &first, 1) != 1)
        return 2;
    int master;
    pid_t pid;
    if (strcmp(argv[1], "forkpty") == 0) {
        pid = forkpty(&master, NULL, NULL, NULL);
        if (pid == 0)
            _exit(child_reads());
    } else {
        int slave;
        if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
            return 2;
        pid = fork();
        if (pid == 0) {
            close(master);
            if (login_tty(slave) != 0)
                _exit(7);
            exit(child_reads());
        }
        close(slave);
    }
    if (pid < 0)
        return 2;
    return parent_feeds(master, pid);
}
