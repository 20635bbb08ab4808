/* lifecycle_vfork.c — vfork.
 *
 * A vfork child runs on its parent's memory, and on the calling thread's
 * state, until it execs or _exits; that thread of the parent waits
 * meanwhile. The child has a descriptor table of its own, though (vfork
 * shares memory, not descriptors): a dup2, open or close it makes before
 * exec (Python's subprocess arranges the child's stdin and stdout that
 * way) must not move this library's fd table, which is the parent's, or
 * the parent's later reads on those descriptors would be charged to the
 * child's files. So the thread is made busy for the child's life, its own
 * I/O as seektrace's own is: whatever the child calls passes through
 * unrecorded (strace shows it under the child's pid, and the program the
 * child execs is traced by its own copy of the library). Busy is set before
 * the syscall and cleared when it returns in the parent.
 *
 * The wrapper itself is assembly, and makes the syscall itself, as
 * glibc's vfork does: a C function's frame would lie on the stack the child
 * returns through and then reuses, and the parent, resumed later, would
 * return through whatever the child left there. So the return address
 * waits in %rdi, which the kernel keeps for each task across the syscall,
 * and each task pushes it back for itself after. x86-64 only; elsewhere
 * vfork is not interposed (docs/reliability.md). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread_state.h"

#if defined(__x86_64__)

/* Before the syscall: the thread passes everything through until the
 * child is gone. */
__attribute__((used, noinline, noclone)) static void vfork_enter(void)
{
    st_self.busy++;
    st_self.own_io++;
}

/* After it, in the child (0) and in the parent: the parent's thread is
 * itself again. Returns what vfork returns, errno set on failure. */
__attribute__((used, noinline, noclone)) static long vfork_leave(long result)
{
    if (result == 0)
        return 0;
    st_self.own_io--;
    st_self.busy--;
    if (result < 0 && result > -4096) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

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
        "call vfork_enter\n"
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
        "call vfork_leave\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");

#endif
