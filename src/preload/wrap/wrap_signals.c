/* wrap_signals.c — the interposed calls that set a signal's disposition:
 * sigaction, __sigaction, signal, bsd_signal, ssignal, sysv_signal,
 * __sysv_signal, sigset.
 *
 * Wherever the library's fatal-signal handler stands in for SIG_DFL, the
 * program must never see it: lifecycle/lifecycle_signals.c does what each
 * does around the real function (its opening comment says how). */
#define _GNU_SOURCE 1
#include <signal.h>

#include "ensure_init.h"
#include "export.h"
#include "lifecycle.h"
#include "real.h"

ST_EXPORT(int, sigaction, (int sig, const struct sigaction *act, struct sigaction *old))
{
    st_ensure_init();
    return st_signals_sigaction(sig, act, old);
}

ST_EXPORT(int, __sigaction, (int sig, const struct sigaction *act, struct sigaction *old))
{
    st_ensure_init();
    return st_signals_sigaction(sig, act, old);
}

/* signal() and friends: SIG_DFL stands for an action with the flags and
 * mask glibc's own function would use. */
#define SIGNAL_LIKE(name, flags, self_in_mask)                                       \
    ST_EXPORT(__sighandler_t, name, (int sig, __sighandler_t h))                     \
    {                                                                                \
        st_ensure_init();                                                            \
        return st_signals_signal(ST_REAL(name), sig, h, flags, self_in_mask);        \
    }
/* BSD semantics: restart, the signal blocked in its handler. */
SIGNAL_LIKE(signal, SA_RESTART, 1)
SIGNAL_LIKE(bsd_signal, SA_RESTART, 1)
SIGNAL_LIKE(ssignal, SA_RESTART, 1)
/* System V semantics: one shot, not blocked, interrupting. */
SIGNAL_LIKE(sysv_signal, SA_RESETHAND | SA_NODEFER, 0)
SIGNAL_LIKE(__sysv_signal, SA_RESETHAND | SA_NODEFER, 0)
#undef SIGNAL_LIKE

ST_EXPORT(__sighandler_t, sigset, (int sig, __sighandler_t h))
{
    st_ensure_init();
    return st_signals_sigset(ST_REAL(sigset), sig, h);
}
