/* lifecycle_signals.c — fatal signals: write the report, then die exactly as
 * the program would have.
 *
 * For each signal below whose disposition is SIG_DFL (the default action
 * terminates the process), a handler of ours stands in for SIG_DFL. When it
 * runs it writes the report, puts SIG_DFL back, queues the same signal (with
 * its original siginfo) to the same thread and returns: the kernel then
 * delivers it at the interrupted instruction and the process terminates by
 * that signal, with a core dump where the default action makes one. Exit
 * status, termination signal and core are the program's own.
 *
 * Transparency: the program never sees our handler. sigaction, signal,
 * bsd_signal, ssignal, sysv_signal and sigset are wrapped (wrap/
 * wrap_signals.c, which calls st_signals_*: lifecycle.h): asking for
 * SIG_DFL installs ours instead (and remembers the flags and mask asked
 * for), asking for anything else installs that (ours is gone: the program's
 * handler decides, and if it exits we report on the exit path), and the old
 * disposition returned is SIG_DFL, with those flags and mask, wherever ours
 * is installed. SIG_IGN (nohup, background jobs) is never touched.
 *
 * Limits (docs/reliability.md): a program that sets dispositions with the
 * raw rt_sigaction syscall sees our handler; a handler installed with
 * SA_RESETHAND falls back to the real SIG_DFL after its first delivery, so
 * a second such signal ends the process without a report; a stack overflow
 * with no alternate signal stack kills before any handler can run; while
 * the report is written (typically well under a millisecond) the program's
 * other threads keep running; SIGKILL cannot be caught.
 *
 * SEEKTRACE_SIGNALS=0 (or "off") installs nothing. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "bulk.h"
#include "env.h"
#include "exit_report.h"
#include "lifecycle.h"
#include "real.h"
#include "warn.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* Every signal whose default action terminates the process, except SIGKILL
 * (cannot be caught), SIGTRAP (debuggers), and the real-time signals (glibc
 * keeps the first ones for itself). */
static const int fatal_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGABRT, SIGBUS,    SIGFPE,  SIGSEGV, SIGUSR1,
    SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,
};

#define NSIGS 65

static int enabled;
/* The signals above, by number. */
static unsigned char fatal[NSIGS];

/* What the program believes is installed wherever ours is: SIG_DFL with the
 * flags, mask and restorer the kernel would report back to it. A mask has
 * only the kernel's 64 signal bits (glibc's sigaction passes no more either
 * way): kept to those, the table takes 1.5 KiB, not three pages to touch at
 * start-up. */
struct belief {
    int flags;
    void (*restorer)(void);
    unsigned long mask;
};
static struct belief believed[NSIGS];
/* The restorer glibc's sigaction puts in every action it installs, as
 * the kernel reports it back: asked for the first time a program's SIG_DFL
 * is remembered, not at start-up (one rt_sigaction fewer in every
 * process). */
static void (*glibc_restorer)(void);

static int is_caught(int sig)
{
    return sig > 0 && sig < NSIGS && fatal[sig] && enabled;
}

static void on_fatal(int sig, siginfo_t *si, void *ucv);

static int is_ours(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_fatal;
}

static void our_action(int sig, struct sigaction *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sa_sigaction = on_fatal;
    sigfillset(&sa->sa_mask);
    sa->sa_flags = SA_SIGINFO;
    /* A stack overflow can only be reported from an alternate stack, if the
     * program has one; the report itself runs on a stack of ours. */
    if (sig == SIGSEGV || sig == SIGBUS)
        sa->sa_flags |= SA_ONSTACK;
}

static void note_handler(__sighandler_t h)
{
    if (h != SIG_DFL && h != SIG_IGN && h != SIG_ERR && h != SIG_HOLD)
        __atomic_store_n(&st_report_program_handlers, 1, __ATOMIC_RELEASE);
}

static void believe(int sig, const struct sigaction *sa)
{
    believed[sig].flags = sa->sa_flags;
    believed[sig].restorer = sa->sa_restorer;
    memcpy(&believed[sig].mask, &sa->sa_mask, sizeof(unsigned long));
}

/* What the kernel would hold had the program's SIG_DFL request gone in. */
static void remember_default(int sig, const struct sigaction *act)
{
    struct sigaction b;
    memset(&b, 0, sizeof b);
    b.sa_handler = SIG_DFL;
    b.sa_mask = act->sa_mask;
    sigdelset(&b.sa_mask, SIGKILL);
    sigdelset(&b.sa_mask, SIGSTOP);
    b.sa_flags = act->sa_flags | SA_RESTORER;
    struct sigaction now;
    if (!glibc_restorer && ST_REAL(sigaction)(sig, NULL, &now) == 0 && is_ours(&now))
        glibc_restorer = now.sa_restorer;
    b.sa_restorer = glibc_restorer;
    believe(sig, &b);
}

/* Replaces ours, in an old action the kernel reported, by what the program
 * believes. Only the kernel's 64 signal bits of the mask are written, as
 * glibc's sigaction does. */
static void disguise(int sig, struct sigaction *old)
{
    if (!is_ours(old))
        return;
    old->sa_handler = SIG_DFL;
    old->sa_flags = believed[sig].flags;
    old->sa_restorer = believed[sig].restorer;
    memcpy(&old->sa_mask, &believed[sig].mask, sizeof(unsigned long));
}

static int do_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (act)
        note_handler(act->sa_handler);
    if (!is_caught(sig))
        return ST_REAL(sigaction)(sig, act, old);
    struct sigaction mine, want;
    const struct sigaction *use = act;
    int to_default = act && act->sa_handler == SIG_DFL;
    if (to_default) {
        want = *act; /* act may be old itself: read it before the call */
        our_action(sig, &mine);
        use = &mine;
    }
    int r = ST_REAL(sigaction)(sig, use, old);
    if (r == 0) {
        int e = errno;
        if (old)
            disguise(sig, old);
        if (to_default)
            remember_default(sig, &want);
        errno = e;
    }
    return r;
}

int st_signals_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return do_sigaction(sig, act, old);
}

/* signal() and friends: SIG_DFL goes through do_sigaction with the flags
 * and mask glibc's own function would use; anything else goes to the real
 * function, whose answer is disguised. */
static __sighandler_t via_real(st_signal_fn real, int sig, __sighandler_t h)
{
    note_handler(h);
    __sighandler_t r = real(sig, h);
    if (is_caught(sig) && r == (__sighandler_t)(void *)on_fatal) {
        /* Our handler was installed: the program set SIG_DFL before. */
        return SIG_DFL;
    }
    return r;
}

static __sighandler_t default_via_sigaction(int sig, int flags, int self_in_mask)
{
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = SIG_DFL;
    sigemptyset(&act.sa_mask);
    if (self_in_mask)
        sigaddset(&act.sa_mask, sig);
    act.sa_flags = flags;
    if (do_sigaction(sig, &act, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}

__sighandler_t st_signals_signal(st_signal_fn real, int sig, __sighandler_t h, int flags,
                                 int self_in_mask)
{
    if (h == SIG_DFL && is_caught(sig))
        return default_via_sigaction(sig, flags, self_in_mask);
    return via_real(real, sig, h);
}

/* sigset(sig, SIG_DFL) also unblocks sig and answers SIG_HOLD if it was
 * blocked. */
__sighandler_t st_signals_sigset(st_signal_fn real, int sig, __sighandler_t h)
{
    if (h != SIG_DFL || !is_caught(sig))
        return via_real(real, sig, h);
    __sighandler_t old = default_via_sigaction(sig, 0, 0);
    if (old == SIG_ERR)
        return SIG_ERR;
    sigset_t set, oset;
    sigemptyset(&set);
    sigaddset(&set, sig);
    if (pthread_sigmask(SIG_UNBLOCK, &set, &oset) != 0)
        return SIG_ERR;
    return sigismember(&oset, sig) ? SIG_HOLD : old;
}

/* The signal again, to this thread, with its siginfo: blocked until the
 * handler returns, then delivered at the interrupted instruction under
 * whatever disposition is installed by then. */
static void deliver_again(int sig, siginfo_t *si)
{
    long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);
    if (!si || syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, si) != 0)
        syscall(SYS_tgkill, pid, tid, sig);
}

/* While st_signals_init puts ours in: the signal whose old disposition it
 * has just read back (0: none), and that disposition. */
static volatile sig_atomic_t swapping;
static struct sigaction swapped_out;

/* Puts an action back exactly as the kernel held it (glibc's sigaction
 * would add its SA_RESTORER and restorer to an ignored signal's zero flags,
 * which the program would then read back). */
static void put_back(int sig, const struct sigaction *was)
{
    struct {
        void *handler;
        unsigned long flags;
        void *restorer;
        unsigned long mask;
    } k = {(void *)was->sa_handler, (unsigned long)was->sa_flags, (void *)was->sa_restorer, 0};
    memcpy(&k.mask, &was->sa_mask, sizeof k.mask);
    syscall(SYS_rt_sigaction, sig, &k, NULL, sizeof k.mask);
}

static void on_fatal(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    if (sig == swapping && swapped_out.sa_handler != SIG_DFL) {
        /* Came between our install and the put-back of an ignored signal
         * or another library's handler: that disposition takes it. */
        put_back(sig, &swapped_out);
        deliver_again(sig, si);
        errno = saved_errno;
        return;
    }
    if (st_lifecycle_is_owner()) {
        st_report_from_signal = 1;
        st_report_at_exit(); /* on a stack of ours if this one is small (own_stack.h) */
        st_report_wait(2000); /* another thread may be writing it */
    }
    /* The program's own disposition, as it set it. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    dfl.sa_flags = believed[sig].flags & ~SA_RESTORER;
    memcpy(&dfl.sa_mask, &believed[sig].mask, sizeof(unsigned long));
    ST_REAL(sigaction)(sig, &dfl, NULL);

    /* Deliver it again to this thread, with its siginfo. It stays blocked
     * until this handler returns; then the kernel delivers it at the
     * interrupted instruction, whatever mask the interrupted code will have
     * (sigsuspend's saved mask may block it: unblock it there). */
    ucontext_t *uc = ucv;
    if (uc)
        sigdelset(&uc->uc_sigmask, sig);
    deliver_again(sig, si);
    errno = saved_errno;
}

static void read_setting(void)
{
    enabled = 1;
    const char *v = ST_ENV(SEEKTRACE_SIGNALS);
    if (!v || !*v)
        return;
    if (strcmp(v, "0") == 0 || strcmp(v, "off") == 0)
        enabled = 0;
    else if (strcmp(v, "1") != 0 && strcmp(v, "on") != 0)
        st_warn("SEEKTRACE_SIGNALS=%s is not 'on' or 'off'; using on", v);
}

void st_signals_init(void)
{
    read_setting();
    if (!enabled || !ST_REAL(sigaction)) {
        enabled = 0;
        return;
    }
    /* One rt_sigaction a signal: ours goes in and the old disposition
     * comes back in the same call; the rare one that was not SIG_DFL
     * (ignored, or another constructor's handler) is put back at once, and
     * should it come in between, on_fatal hands it to that disposition. */
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        int sig = fatal_signals[i];
        struct sigaction mine;
        our_action(sig, &mine);
        swapping = sig;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (ST_REAL(sigaction)(sig, &mine, &swapped_out) == 0) {
            fatal[sig] = 1;
            believe(sig, &swapped_out);
            if (swapped_out.sa_handler != SIG_DFL) {
                put_back(sig, &swapped_out);
                note_handler(swapped_out.sa_handler);
            }
        }
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        swapping = 0;
    }
}
