/* own_stack.c — see own_stack.h. */
#define _GNU_SOURCE 1
#include "own_stack.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "bulk.h"

/* What a report may need; also the size of the stack it gets. */
#define REPORT_STACK (256 * 1024)

/* The initial stack pointer, set by ld.so (glibc exports it). */
extern void *__libc_stack_end;

int st_stack_is_roomy(void)
{
    struct rlimit rl;
    if (syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &rl) != 0)
        return 0;
    /* Unlimited: the main stack may be far larger than any span we check. */
    uintptr_t limit = rl.rlim_cur == RLIM_INFINITY ? (uintptr_t)1 << 30 : (uintptr_t)rl.rlim_cur;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), top = (uintptr_t)__libc_stack_end;
    /* Threads' and coroutines' stacks are mmap'd below the main stack's
     * reserved span (at least its limit, and at least 128 MiB). */
    if (sp > top || top - sp >= limit)
        return 0;
    /* The arguments and environment above top take at most a quarter of
     * the limit (the kernel's ARG_MAX). */
    uintptr_t used = top - sp + limit / 4;
    return limit > used && limit - used >= REPORT_STACK;
}

static int busy;
static ucontext_t run_ctx ST_BULK, caller_ctx ST_BULK; /* only when a report needs them */
static void (*run_fn)(void);

static void trampoline(void)
{
    run_fn();
}

void st_run_on_own_stack(void (*fn)(void))
{
#if defined(__SANITIZE_ADDRESS__)
    fn(); /* ASan cannot follow swapcontext (it warns, and may misreport) */
    return;
#endif
    if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQ_REL)) {
        fn();
        return;
    }
    void *stack = mmap(NULL, REPORT_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    int ran = 0;
    if (stack != MAP_FAILED && getcontext(&run_ctx) == 0) {
        run_fn = fn;
        run_ctx.uc_stack.ss_sp = stack;
        run_ctx.uc_stack.ss_size = REPORT_STACK;
        run_ctx.uc_link = &caller_ctx; /* back here when fn returns */
        makecontext(&run_ctx, trampoline, 0);
        ran = swapcontext(&caller_ctx, &run_ctx) == 0;
    }
    if (stack != MAP_FAILED)
        munmap(stack, REPORT_STACK);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
    if (!ran)
        fn();
}
