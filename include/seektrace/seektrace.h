/* seektrace/seektrace.h — an optional API for programs traced by seektrace.
 *
 *     #include <seektrace/seektrace.h>
 *
 *     seektrace_mark("load index");   // tag a phase in the trace
 *     ...
 *     seektrace_flush();              // make the trace durable now
 *
 * Header only: nothing to link. The calls find libseektrace at run time
 * (dlsym, once per translation unit) and do nothing when it is not loaded,
 * so the same binary runs with and without seektrace. Calls cost a
 * function-pointer test when the library is absent.
 *
 *   seektrace_mark(label)  records a MARK event (time, thread, label of at
 *                          most 1024 bytes) in the trace when tracing is on
 *                          (SEEKTRACE_TRACE): exports show it as an instant
 *                          on the thread's track. No effect otherwise.
 *   seektrace_flush()      forces what the process recorded so far to disk
 *                          (fdatasync). Traces survive a crash of the process
 *                          without it; this is for surviving the machine.
 *                          Returns 0, or -1 when the sync failed.
 *   seektrace_active()     non-zero when libseektrace is loaded.
 *
 * Thread-safe; async-signal-safe once each function has been called once
 * (the first call looks the library up with dlsym). Needs glibc 2.34 or
 * later, or linking with -ldl. */
#ifndef SEEKTRACE_SEEKTRACE_H
#define SEEKTRACE_SEEKTRACE_H

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

/* glibc's RTLD_DEFAULT, without needing _GNU_SOURCE. */
#define SEEKTRACE_RTLD_DEFAULT_ ((void *)0)

static inline void *seektrace_lookup_(const char *name)
{
    return dlsym(SEEKTRACE_RTLD_DEFAULT_, name);
}

static inline int seektrace_active(void)
{
    static int state; /* 0 unknown, 1 loaded, 2 absent */
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (!s) {
        s = seektrace_lookup_("seektrace_mark_v1") ? 1 : 2;
        __atomic_store_n(&state, s, __ATOMIC_RELAXED);
    }
    return s == 1;
}

static inline void seektrace_mark(const char *label)
{
    typedef void (*fn_t)(const char *);
    static fn_t fn;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        union { void *p; fn_t f; } u; /* object to function pointer, portably */
        u.p = seektrace_lookup_("seektrace_mark_v1");
        __atomic_store_n(&fn, u.f, __ATOMIC_RELAXED);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    fn_t f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
    if (f)
        f(label);
}

static inline int seektrace_flush(void)
{
    typedef int (*fn_t)(void);
    static fn_t fn;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        union { void *p; fn_t f; } u;
        u.p = seektrace_lookup_("seektrace_flush_v1");
        __atomic_store_n(&fn, u.f, __ATOMIC_RELAXED);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    fn_t f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
    return f ? f() : 0;
}

#ifdef __cplusplus
}
#endif

#endif
