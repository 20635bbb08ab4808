/* proc_self.c — see proc_self.h. */
#define _GNU_SOURCE 1
#include "proc_self.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const roots[] = {"/proc/thread-self", "/proc/self"};

long st_proc_readlink(const char *rest, char *buf, size_t size)
{
    char path[64];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", roots[i], rest);
        long n = syscall(SYS_readlink, path, buf, size);
        if (n >= 0)
            return n;
    }
    return -1;
}

int st_proc_open(const char *rest, int flags)
{
    char path[64];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", roots[i], rest);
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
