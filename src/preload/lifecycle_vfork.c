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
 * the real vfork and cleared when it returns in the parent.
 *
 * The wrapper itself is assembly. A C function's frame would lie on the
 * stack the child returns through and then reuses, and the parent, resumed
 * later, would return through whatever the child left there. This one
 * keeps the caller's return address in the thread's state and nothing on
 * the stack across the real call, as glibc's own vfork does. x86-64 only;
 * elsewhere vfork is not interposed (docs/reliability.md). */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include "thread_state.h"
#include "wrappers.h"

#if defined(__x86_64__)

typedef pid_t (*vfork_fn)(void);

static pid_t no_vfork(void)
{
    errno = ENOSYS;
    return -1;
}

/* Before the real vfork: returns it, with the caller's return address
 * kept and the thread busy. */
__attribute__((used, noinline, noclone)) static vfork_fn vfork_enter(void *return_address)
{
    static vfork_fn real;
    st_ensure_init();
    vfork_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!f) {
        *(void **)&f = dlsym(RTLD_NEXT, "vfork");
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    struct st_thread *t = &st_self;
    t->vfork_return = return_address;
    t->busy++;
    t->own_io++;
    return f ? f : no_vfork;
}

/* After it, in the child (0) and in the parent: where to return, with
 * what. The parent's thread is itself again. Leaves errno as vfork set it. */
struct vfork_return {
    void *to;
    long result;
};

__attribute__((used, noinline, noclone)) static struct vfork_return vfork_leave(long result)
{
    struct st_thread *t = &st_self;
    if (result != 0) {
        t->own_io--;
        t->busy--;
    }
    return (struct vfork_return){t->vfork_return, result};
}

/* On entry the stack pointer is 8 off 16-byte alignment: the C call before
 * the real vfork needs 8 more, and after the return address is popped the
 * stack is aligned for the calls that follow. vfork_leave's two words come
 * back in rax (where to) and rdx (the result). */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "movq (%rsp), %rdi\n"
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "call vfork_enter\n"
        "addq $16, %rsp\n" /* and the return address, kept by vfork_enter */
        ".cfi_adjust_cfa_offset -16\n"
        ".cfi_undefined rip\n"
        "call *%rax\n"
        "movq %rax, %rdi\n"
        "call vfork_leave\n"
        "movq %rax, %rcx\n"
        "movq %rdx, %rax\n"
        "jmp *%rcx\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");

#endif
