/* wrap_process.c — the interposed calls that change the process: the exec
 * family, _Fork, vfork, daemon, login_tty, forkpty, and prctl.
 *
 * What each does around the real call is lifecycle/'s (lifecycle_exec.c:
 * the old image's report before exec; lifecycle_detach.c: what glibc does
 * inside daemon, login_tty and forkpty out of the wrappers' sight;
 * lifecycle_vfork.c: the child's calls leave the parent's accounts alone)
 * and trace/'s (trace_clock.c: prctl may forbid the TSC). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pty.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utmp.h>

#include "ensure_init.h"
#include "export.h"
#include "lifecycle.h"
#include "real.h"
#include "trace_clock.h"

/* ---- exec: the old image reports first ---------------------------------- */

#define EXEC_VECTOR(name, params, args)                                              \
    ST_EXPORT(int, name, params)                                                     \
    {                                                                                \
        int reported = st_lifecycle_exec_begins();                                   \
        int r = ST_REAL(name) args;                                                  \
        st_lifecycle_exec_failed(reported);                                          \
        return r;                                                                    \
    }
EXEC_VECTOR(execve, (const char *path, char *const argv[], char *const envp[]),
            (path, argv, envp))
EXEC_VECTOR(execv, (const char *path, char *const argv[]), (path, argv))
EXEC_VECTOR(execvp, (const char *file, char *const argv[]), (file, argv))
EXEC_VECTOR(execvpe, (const char *file, char *const argv[], char *const envp[]),
            (file, argv, envp))
EXEC_VECTOR(fexecve, (int fd, char *const argv[], char *const envp[]), (fd, argv, envp))
#undef EXEC_VECTOR

/* execveat (glibc 2.34) fails with ENOSYS, as the call would, where libc
 * has none. */
ST_EXPORT(int, execveat, (int dirfd, const char *path, char *const argv[], char *const envp[],
                          int flags))
{
    int reported = st_lifecycle_exec_begins();
    __typeof__(st_real.execveat) f = ST_REAL(execveat);
    int r;
    if (f) {
        r = f(dirfd, path, argv, envp, flags);
    } else {
        errno = ENOSYS;
        r = -1;
    }
    st_lifecycle_exec_failed(reported);
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

/* ---- fork without atfork handlers, and vfork ----------------------------- */

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

#if defined(__x86_64__)

/* vfork is assembly, and makes the syscall itself, as glibc's vfork does:
 * a C function's frame would lie on the stack the child returns through
 * and then reuses, and the parent, resumed later, would return through
 * whatever the child left there. So the return address waits in %rdi,
 * which the kernel keeps for each task across the syscall, and each task
 * pushes it back for itself after. Around the syscall,
 * st_lifecycle_vfork_enter and _leave (lifecycle.h). x86-64 only;
 * elsewhere vfork is not interposed (docs/reliability.md). */
#define ST_STR(x) #x
#define ST_XSTR(x) ST_STR(x)

/* On entry the stack is 8 off 16-byte alignment: each C call gets 8 more. */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "call st_lifecycle_vfork_enter\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_register rip, rdi\n"
        "movl $" ST_XSTR(__NR_vfork) ", %eax\n"
        "syscall\n"
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset rip, 0\n"
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "movq %rax, %rdi\n"
        "call st_lifecycle_vfork_leave\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");

#endif

/* ---- detaching: daemon, login_tty, forkpty ------------------------------- */

ST_EXPORT(int, daemon, (int nochdir, int noclose))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(daemon)
    st_lifecycle_set_in_daemon(1);
    int r = real(nochdir, noclose); /* only the child returns, or a failed fork */
    st_lifecycle_set_in_daemon(0);
    if (r == 0 && !noclose)
        st_lifecycle_std_replaced(-1);
    return r;
}

ST_EXPORT(int, login_tty, (int fd))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(login_tty)
    int r = real(fd);
    if (r == 0)
        st_lifecycle_std_replaced(fd);
    return r;
}

ST_EXPORT(pid_t, forkpty, (int *master, char *name, const struct termios *termp,
                           const struct winsize *winp))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(forkpty)
    pid_t r = real(master, name, termp, winp);
    if (r == 0)
        st_lifecycle_std_replaced(-1);
    return r;
}

/* ---- prctl: the trace clock first ---------------------------------------- */

#if defined(__x86_64__)
ST_EXPORT(int, prctl, (int option, ...))
{
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
    va_end(ap);
    st_trace_clock_prctl(option);
    /* glibc's prctl is this very syscall. Not dlsym'd: allocators call
     * prctl while they set up (naming their mappings), and dlsym may
     * allocate. */
    return (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
}
#endif
