/* lifecycle_exec.c — the exec family and _Fork.
 *
 * execve replaces the process image and with it every account this library
 * holds, so each exec function writes the old image's report first (when
 * it recorded anything) and then calls the real one. If the exec fails the
 * program goes on: the accounts start again from zero so that, summed, the
 * report already written and the one written at exit count every syscall
 * once. In a vfork child (same memory as the parent, which is suspended)
 * nothing is written or reset: the accounts are the parent's.
 *
 * glibc's own execs (posix_spawn, system, popen, and execvp's PATH walk)
 * call the syscall internally and never come here: posix_spawn's child is
 * a CLONE_VM child exactly like a vfork child, so that is what we want.
 *
 * _Fork (glibc 2.34) forks without running atfork handlers: the child is
 * made the owner of its accounts here instead. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "cells.h"
#include "ensure_init.h"
#include "exit_report.h"
#include "export.h"
#include "files.h"
#include "lifecycle.h"
#include "real.h"
#include "streams.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef pid_t (*fork_fn)(void);

ST_REAL_LAZY(execve, execve_fn)
ST_REAL_LAZY(execv, execv_fn)
ST_REAL_LAZY(execvp, execv_fn)
ST_REAL_LAZY(execvpe, execve_fn)
ST_REAL_LAZY(fexecve, fexecve_fn)
ST_REAL_LAZY(execveat, execveat_fn)
ST_REAL_LAZY(_Fork, fork_fn)

static int cells_any_activity(const struct st_cell *c)
{
    for (; c; c = c->next_of_owner) {
        const struct st_tally *live = st_cell_live(c);
        if (live && st_tally_any(live))
            return 1;
    }
    return 0;
}

/* Whether this image recorded anything a report would show. */
static int recorded_anything(void)
{
    for (struct st_file *f = st_files_first(); f; f = f->next_all) {
        if (cells_any_activity(__atomic_load_n(&f->direct_cells, __ATOMIC_ACQUIRE)) ||
            __atomic_load_n(&f->in_handler.read_syscalls, __ATOMIC_RELAXED) ||
            __atomic_load_n(&f->in_handler.lseek_syscalls, __ATOMIC_RELAXED))
            return 1;
        for (struct st_stream *s = f->streams; s; s = s->next_in_file)
            if (cells_any_activity(__atomic_load_n(&s->cells, __ATOMIC_ACQUIRE)))
                return 1;
    }
    return 0;
}

/* Returns whether a report was written (and must be undone if exec fails). */
static int before_exec(void)
{
    st_ensure_init();
    if (!st_lifecycle_is_owner() || !recorded_anything())
        return 0;
    st_report_at_exit();
    return 1;
}

static void exec_failed(int reported)
{
    if (!reported)
        return;
    int e = errno;
    st_files_zero_counts();
    st_report_reset_in_child(); /* the next report is a new one */
    errno = e;
}

ST_EXPORT(int, execve, (const char *path, char *const argv[], char *const envp[]))
{
    int reported = before_exec();
    int r = get_execve()(path, argv, envp);
    exec_failed(reported);
    return r;
}

ST_EXPORT(int, execv, (const char *path, char *const argv[]))
{
    int reported = before_exec();
    int r = get_execv()(path, argv);
    exec_failed(reported);
    return r;
}

ST_EXPORT(int, execvp, (const char *file, char *const argv[]))
{
    int reported = before_exec();
    int r = get_execvp()(file, argv);
    exec_failed(reported);
    return r;
}

ST_EXPORT(int, execvpe, (const char *file, char *const argv[], char *const envp[]))
{
    int reported = before_exec();
    int r = get_execvpe()(file, argv, envp);
    exec_failed(reported);
    return r;
}

ST_EXPORT(int, fexecve, (int fd, char *const argv[], char *const envp[]))
{
    int reported = before_exec();
    int r = get_fexecve()(fd, argv, envp);
    exec_failed(reported);
    return r;
}

ST_EXPORT(int, execveat, (int dirfd, const char *path, char *const argv[], char *const envp[],
                          int flags))
{
    int reported = before_exec();
    execveat_fn f = get_execveat();
    int r;
    if (f) {
        r = f(dirfd, path, argv, envp, flags);
    } else {
        errno = ENOSYS;
        r = -1;
    }
    exec_failed(reported);
    return r;
}

/* The list forms build argv on the stack exactly as glibc's do and go
 * through the vector form of the same search rules. */
static size_t count_args(const char *arg0, va_list ap)
{
    size_t n = 1;
    if (arg0)
        while (va_arg(ap, const char *))
            n++;
    return n;
}

#define COLLECT_ARGS(argv, n, arg0, ap)                                              \
    do {                                                                             \
        argv[0] = (char *)(arg0);                                                    \
        for (size_t i_ = 1; i_ < (n); i_++)                                          \
            argv[i_] = va_arg(ap, char *);                                           \
        argv[n] = NULL;                                                              \
    } while (0)

/* execl and execlp: the list becomes a vector (on the stack: exec may not
 * allocate after vfork), then their v twin does the work. */
#define EXEC_LIST(name, first, vname)                                                \
    ST_EXPORT(int, name, (const char *first, const char *arg, ...))                  \
    {                                                                                \
        va_list ap;                                                                  \
        va_start(ap, arg);                                                           \
        size_t n = count_args(arg, ap);                                              \
        va_end(ap);                                                                  \
        char *argv[n + 1];                                                           \
        va_start(ap, arg);                                                           \
        COLLECT_ARGS(argv, n, arg, ap);                                              \
        va_end(ap);                                                                  \
        if (!arg)                                                                    \
            argv[0] = NULL;                                                          \
        return vname(first, argv);                                                   \
    }
EXEC_LIST(execl, path, st_wrap_execv)
EXEC_LIST(execlp, file, st_wrap_execvp)
#undef EXEC_LIST

ST_EXPORT(int, execle, (const char *path, const char *arg, ...))
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    char *argv[n + 1];
    va_start(ap, arg);
    COLLECT_ARGS(argv, n, arg, ap);
    if (arg)
        (void)va_arg(ap, char *); /* the terminating NULL */
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    if (!arg)
        argv[0] = NULL;
    return st_wrap_execve(path, argv, envp);
}

/* glibc's fork runs our atfork child handlers; _Fork does not. */
ST_EXPORT(pid_t, _Fork, (void))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(_Fork)
    pid_t r = real();
    if (r == 0) {
        int e = errno;
        st_lifecycle_child();
        errno = e;
    }
    return r;
}
