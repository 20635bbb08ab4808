/* real.c — looking the real functions up (see real.h), and the stand-ins
 * their slots hold until then.
 *
 * The names are kept as one block of characters, each found by its offset,
 * and the slots by theirs: tables of numbers, which the dynamic loader
 * need not relocate at start-up as it would an array of string pointers. */
#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>

static const struct names {
#define ST_REAL_ROW(name, type, when, how) char name[sizeof #name];
#include "real_table.h"
#undef ST_REAL_ROW
} names = {
#define ST_REAL_ROW(name, type, when, how) #name,
#include "real_table.h"
#undef ST_REAL_ROW
};

static const struct row {
    unsigned short name;
    unsigned short slot;
    unsigned char when;
} rows[ST_REAL_COUNT] = {
#define ST_REAL_ROW(name, type, when, how)                                          \
    {offsetof(struct names, name), offsetof(struct st_real, name), ST_REAL_##when},
#include "real_table.h"
#undef ST_REAL_ROW
};

void *st_real_lookup(enum st_real_id id)
{
    void *p = dlsym(RTLD_NEXT, (const char *)&names + rows[id].name);
    if (p)
        __atomic_store_n((void **)((char *)&st_real + rows[id].slot), p, __ATOMIC_RELEASE);
    return p;
}

int st_real_resolve(void)
{
    int missing = 0;
    for (int id = 0; id < ST_REAL_COUNT; id++)
        if (rows[id].when == ST_REAL_START && !st_real_lookup((enum st_real_id)id))
            missing++;
    return missing;
}

void st_real_resolve_before_fork(void)
{
    static int done; /* a child inherits it with the slots it stands for */
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        return;
    for (int id = 0; id < ST_REAL_COUNT; id++) {
        void *slot = __atomic_load_n((void **)((char *)&st_real + rows[id].slot), __ATOMIC_ACQUIRE);
        if (rows[id].when == ST_REAL_BEFORE_FORK && !slot)
            st_real_lookup((enum st_real_id)id);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* ---- the stand-ins ------------------------------------------------------- */

/* A stand-in looks its name up (which replaces it in the slot) and makes
 * the call. Where libc has no such function it fails as the call does when
 * the kernel lacks one: ENOSYS, and `fails`, the call's failure value. */
#define STANDIN(ret, name, params, args, fails)                                     \
    static ret first_##name params                                                  \
    {                                                                               \
        __typeof__(st_real.name) real_;                                             \
        *(void **)&real_ = st_real_lookup(ST_REAL_ID_##name);                       \
        if (!real_) {                                                               \
            errno = ENOSYS;                                                         \
            return fails;                                                           \
        }                                                                           \
        return real_ args;                                                          \
    }

/* The stdio calls fail with EOF or -1, except fread's family: 0 items. */
#define FAILS_FREAD 0
#define FAILS_GETLINE -1
#define FAILS_FSEEK -1
#define FAILS_FSETPOS -1
#define FAILS_FTELL -1
#define FAILS_FGETPOS -1
#define FAILS_FFLUSH EOF
#define FAILS_FSCANF EOF
#define FAILS_FWRITE 0
#define FAILS_FPUTS EOF
#define FAILS_FPRINTF -1
#define FAILS_PUTS EOF
#define STDIO(call, ret, name, params, args, stream, op)                            \
    STANDIN(ret, name, params, args, (ret)FAILS_##call)
#define STDIO_VOID(call, name, params, args, stream, op)                            \
    static void first_##name params                                                 \
    {                                                                               \
        __typeof__(st_real.name) real_;                                             \
        *(void **)&real_ = st_real_lookup(ST_REAL_ID_##name);                       \
        if (real_)                                                                  \
            real_ args;                                                             \
    }
#include "wrap_stdio.def"
#undef STDIO
#undef STDIO_VOID
#define POSIX_READ(call, name, params, args, fd, req, off) STANDIN(ssize_t, name, params, args, -1)
#define POSIX_WRITE(call, name, params, args, fd, handed, off, app)                  \
    STANDIN(ssize_t, name, params, args, -1)
#define POSIX_SEEK(name, ret, params, args, fd) STANDIN(ret, name, params, args, -1)
#define POSIX_DUP(name, params, args, fd, nfd) STANDIN(int, name, params, args, -1)
#include "wrap_posix.def"
#undef POSIX_READ
#undef POSIX_WRITE
#undef POSIX_SEEK
#undef POSIX_DUP
/* The open family's wrappers always pass a mode (0 when the flags create
 * nothing), so the stand-in always takes one. */
#define STRIP(...) __VA_ARGS__
#define OPEN(name, type, params, args, dir, path, flags)                            \
    static int first_##name(STRIP params, ...)                                      \
    {                                                                               \
        va_list ap;                                                                 \
        va_start(ap, flags);                                                        \
        mode_t mode = va_arg(ap, mode_t);                                           \
        va_end(ap);                                                                 \
        __typeof__(st_real.name) real_;                                             \
        *(void **)&real_ = st_real_lookup(ST_REAL_ID_##name);                       \
        if (!real_) {                                                               \
            errno = ENOSYS;                                                         \
            return -1;                                                              \
        }                                                                           \
        return real_(STRIP args, mode);                                             \
    }
#include "wrap_open.def"
#undef OPEN
#define OPEN2(name, params, args, dir, path, flags) STANDIN(int, name, params, args, -1)
#include "wrap_open2.def"
#undef OPEN2

/* Every STANDIN slot starts out holding its stand-in; CHECKED ones NULL. */
#define ST_REAL_FIRST_STANDIN(name) .name = first_##name,
#define ST_REAL_FIRST_CHECKED(name)
struct st_real st_real = {
#define ST_REAL_ROW(name, type, when, how) ST_REAL_FIRST_##how(name)
#include "real_table.h"
#undef ST_REAL_ROW
};
