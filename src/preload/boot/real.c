/* real.c — resolving the real functions (see real.h).
 *
 * dlsym may call calloc, and a program's own malloc may read a file: none of
 * that can reach our wrappers before the pointers exist, because the
 * wrappers check st_real_ready() and fall through to raw syscalls (POSIX) or
 * resolve on demand. Resolution is idempotent, so a race between two early
 * threads only resolves twice. */
#include "real.h"

#include <dlfcn.h>

struct st_real st_real;
static int ready;

static void *next(const char *name, int *missing)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p)
        (*missing)++;
    return p;
}

int st_real_resolve(void)
{
    int missing = 0;
#define RESOLVE(name) *(void **)&st_real.name = next(#name, &missing);
#define STDIO(call, ret, name, params, args, stream, op) RESOLVE(name)
#define STDIO_VOID(call, name, params, args, stream, op) RESOLVE(name)
#include "wrap_stdio.def"
#undef STDIO
#undef STDIO_VOID
#define POSIX_READ(call, name, params, args, fd, req, off) RESOLVE(name)
#define POSIX_SEEK(name, ret, params, args, fd) RESOLVE(name)
#define POSIX_DUP(name, params, args, fd, nfd) RESOLVE(name)
#include "wrap_posix.def"
#undef POSIX_READ
#undef POSIX_SEEK
#undef POSIX_DUP
#define OPEN(name, type, params, args, dir, path, flags) RESOLVE(name)
#include "wrap_open.def"
#undef OPEN
#define OPEN2(name, params, args, dir, path) RESOLVE(name)
#include "wrap_open2.def"
#undef OPEN2
    RESOLVE(fopen) RESOLVE(fopen64) RESOLVE(fdopen) RESOLVE(freopen) RESOLVE(freopen64)
    RESOLVE(ungetc) RESOLVE(fclose) RESOLVE(pclose) RESOLVE(setvbuf) RESOLVE(setbuf) RESOLVE(setbuffer) RESOLVE(setlinebuf)
    RESOLVE(close) RESOLVE(fcntl) RESOLVE(fcntl64) RESOLVE(_exit) RESOLVE(_Exit)
#undef RESOLVE
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    return missing;
}

int st_real_ready(void)
{
    return __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
}
