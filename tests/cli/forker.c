/* forker — fork without exec, for the multi-process tests.
 *
 *   cli_forker FILE CHILDREN
 *
 * The parent freads 8 KiB, then forks CHILDREN children; child i preads
 * 4096 bytes (i + 1) times and leaves with exit(0) (odd i) or _exit(0)
 * (even i). The parent waits for all, freads 4 KiB more and exits. Each
 * process must report exactly its own reads. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int children = atoi(argv[2]);
    FILE *fp = fopen(argv[1], "r");
    if (!fp)
        return 2;
    static char buf[8192];
    if (fread(buf, 1, 8192, fp) != 8192)
        return 3;
    for (int i = 0; i < children; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return 4;
        if (pid == 0) {
            int fd = open(argv[1], O_RDONLY);
            for (int k = 0; k <= i; k++)
                if (pread(fd, buf, 4096, (off_t)k * 4096) != 4096)
                    _exit(3);
            close(fd);
            if (i % 2)
                exit(0);
            _exit(0);
        }
    }
    int status, bad = 0;
    while (wait(&status) > 0)
        bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (fread(buf, 1, 4096, fp) != 4096)
        return 3;
    fclose(fp);
    return bad ? 5 : 0;
}
