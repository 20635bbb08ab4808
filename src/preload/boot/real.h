/* real.h — the libc functions behind every interposed symbol.
 *
 * Generated from the same tables that generate the wrappers, so a wrapper
 * can never exist without its real function. Resolved with
 * dlsym(RTLD_NEXT) once, before anything else the library does; until then
 * wrappers must not be reached (st_real_ready() says whether they can). */
#ifndef SEEKTRACE_REAL_H
#define SEEKTRACE_REAL_H

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

struct st_real {
#define STDIO(call, ret, name, params, args, stream, op) ret (*name) params;
#define STDIO_VOID(call, name, params, args, stream, op) void (*name) params;
#include "wrap_stdio.def"
#undef STDIO
#undef STDIO_VOID
#define POSIX_READ(call, name, params, args, fd, req, off) ssize_t (*name) params;
#define POSIX_SEEK(name, ret, params, args, fd) ret (*name) params;
#define POSIX_DUP(name, params, args, fd, nfd) int (*name) params;
#include "wrap_posix.def"
#undef POSIX_READ
#undef POSIX_SEEK
#undef POSIX_DUP
#define OPEN(name, type, params, args, dir, path, flags) __typeof__(type) name;
#include "wrap_open.def"
#undef OPEN
#define OPEN2(name, params, args, dir, path) int (*name) params;
#include "wrap_open2.def"
#undef OPEN2
    /* The rest are interposed by hand (their bodies differ). */
    FILE *(*fopen)(const char *, const char *);
    FILE *(*fopen64)(const char *, const char *);
    FILE *(*fdopen)(int, const char *);
    FILE *(*freopen)(const char *, const char *, FILE *);
    FILE *(*freopen64)(const char *, const char *, FILE *);
    int (*ungetc)(int, FILE *);
    int (*fclose)(FILE *);
    int (*pclose)(FILE *);
    int (*setvbuf)(FILE *, char *, int, size_t);
    void (*setbuf)(FILE *, char *);
    void (*setbuffer)(FILE *, char *, size_t);
    void (*setlinebuf)(FILE *);
    int (*close)(int);
    int (*fcntl)(int, int, ...);
    int (*fcntl64)(int, int, ...);
    void (*_exit)(int);
    void (*_Exit)(int);
};

extern struct st_real st_real;

/* The real function behind an interposed name kept out of struct st_real
 * (its wrapper is rare or written by hand), resolved on first use: a call
 * can come from another library's constructor before ours has run.
 * get_<name>() returns it, NULL when libc has none. */
#define ST_REAL_LAZY(name, type)                                                     \
    static type real_##name;                                                         \
    static type get_##name(void)                                                     \
    {                                                                                \
        type f = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);                    \
        if (!f) {                                                                    \
            *(void **)&f = dlsym(RTLD_NEXT, #name);                                  \
            __atomic_store_n(&real_##name, f, __ATOMIC_RELEASE);                     \
        }                                                                            \
        return f;                                                                    \
    }

/* In a wrapper returning an int or a pid: `real` becomes get_<name>(), and
 * the wrapper fails with ENOSYS, as the call would, when libc has none. */
#define ST_REAL_OR_ENOSYS(name)                                                      \
    __typeof__(get_##name()) real = get_##name();                                    \
    if (!real) {                                                                     \
        errno = ENOSYS;                                                              \
        return -1;                                                                   \
    }

/* Resolves every pointer; safe to call more than once. Returns the number
 * of names libc does not have (older glibc: e.g. preadv64v2). */
int st_real_resolve(void);

/* True once st_real_resolve() has run. */
int st_real_ready(void);

#endif
