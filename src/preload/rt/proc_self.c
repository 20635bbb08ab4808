/* proc_self.c — see proc_self.h. */
#define _GNU_SOURCE 1
#include "proc_self.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const roots[] = {"/proc/thread-self/", "/proc/self/"};

/* root and rest in path (64 bytes); 0 when they do not fit. Without
 * snprintf: a descriptor's name is read for every file a program opens. */
static int join(char path[64], const char *root, const char *rest)
{
    size_t a = strlen(root), b = strlen(rest);
    if (a + b >= 64)
        return 0;
    stpcpy(stpcpy(path, root), rest);
    return 1;
}

long st_proc_readlink(const char *rest, char *buf, size_t size)
{
    char path[64];
    for (int i = 0; i < 2; i++) {
        if (!join(path, roots[i], rest))
            return -1;
        long n = syscall(SYS_readlink, path, buf, size);
        if (n >= 0)
            return n;
    }
    return -1;
}

long st_proc_readlink_fd(int fd, char *buf, size_t size)
{
    char rest[16] = "fd/", digits[12];
    unsigned v = (unsigned)fd;
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (int i = 0; i < n; i++)
        rest[3 + i] = digits[n - 1 - i];
    rest[3 + n] = '\0';
    return st_proc_readlink(rest, buf, size);
}

int st_proc_open(const char *rest, int flags)
{
    char path[64];
    for (int i = 0; i < 2; i++) {
        if (!join(path, roots[i], rest))
            return -1;
        long fd = syscall(SYS_openat, AT_FDCWD, path, flags);
        if (fd >= 0)
            return (int)fd;
    }
    return -1;
}

const char *st_proc_exe(void)
{
    /* Whether the kernel has /proc/thread-self does not change: asked once. */
    static const char *exe;
    const char *e = __atomic_load_n(&exe, __ATOMIC_ACQUIRE);
    if (!e) {
        e = syscall(SYS_faccessat, AT_FDCWD, "/proc/thread-self/exe", F_OK, 0) == 0
                ? "/proc/thread-self/exe"
                : "/proc/self/exe";
        __atomic_store_n(&exe, e, __ATOMIC_RELEASE);
    }
    return e;
}
