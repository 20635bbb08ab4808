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
#include <features.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dynsym.h"
#include "env.h"

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

static const char *name_of(int id)
{
    return (const char *)&names + rows[id].name;
}

static void *keep(int id, void *p)
{
    if (p)
        __atomic_store_n((void **)((char *)&st_real + rows[id].slot), p, __ATOMIC_RELEASE);
    return p;
}

void *st_real_lookup(enum st_real_id id)
{
    return keep(id, dlsym(RTLD_NEXT, name_of(id)));
}

/* ---- The START names without a dlsym each ----
 *
 * dlsym(RTLD_NEXT, name) is the first definition of name in the objects
 * that follow ours in the program's search list: libc's, unless an object
 * between ours and libc defines the name too (another preloaded library,
 * a library the program links before libc). Those objects are the ones
 * between ours and libc in the loader's own list (link_map's l_next): it
 * keeps the objects loaded at start-up, libc among them, in the order of
 * the search list, and puts every object loaded later after them. So once
 * one dlsym has shown the search for a name to end in libc, a name none of
 * the objects between defines (their GNU hash tables say) is libc's own,
 * read from libc's table (dynsym.h): ~300 instructions against ~900. Any
 * other name, and every name where the loader may answer otherwise than
 * its tables say (audit libraries rewrite dlsym's answers, LD_DYNAMIC_WEAK
 * passes over weak definitions), is asked of dlsym. _dl_find_object
 * (glibc 2.35) names the link_map of an address; before it, dlsym answers
 * every name. */
#define MAX_BETWEEN 32
struct next_objects {
    int n;
    struct st_symbols between[MAX_BETWEEN]; /* the objects after ours, before libc */
    struct st_symbols next;                 /* libc's */
};

#if __GLIBC_PREREQ(2, 35)
static struct link_map *map_of(void *addr)
{
    struct dl_find_object found;
    return _dl_find_object(addr, &found) == 0 ? found.dlfo_link_map : NULL;
}

/* 1 when the other names may be looked up in the tables: `found`, dlsym's
 * answer for one name, lies in libc (the object that holds dlsym), which
 * follows ours, and every object between has a GNU hash table. */
static int next_objects(struct next_objects *w, void *found)
{
    const char *tunables = ST_ENV(GLIBC_TUNABLES);
    if (ST_ENV(LD_AUDIT) || ST_ENV(LD_DYNAMIC_WEAK) ||
        (tunables && strstr(tunables, "dynamic_weak")))
        return 0;
    struct link_map *self = map_of((void *)st_real_resolve), *libc = map_of((void *)dlsym);
    if (!self || !libc || map_of(found) != libc)
        return 0;
    for (struct link_map *m = self; m; m = m->l_prev) { /* the program's DT_AUDIT */
        struct st_symbols t;
        st_symbols_of_dynamic(m->l_addr, m->l_ld, &t);
        if (t.audit)
            return 0;
    }
    w->n = 0;
    struct link_map *m = self->l_next;
    for (; m && m != libc; m = m->l_next)
        if (w->n == MAX_BETWEEN || !st_symbols_of_dynamic(m->l_addr, m->l_ld, &w->between[w->n++]))
            return 0;
    return m == libc && st_symbols_of_dynamic(m->l_addr, m->l_ld, &w->next);
}
#else
static int next_objects(struct next_objects *w, void *found)
{
    (void)w;
    (void)found;
    return 0;
}
#endif

/* dlsym(RTLD_NEXT)'s answer for a name, from the tables where they give it. */
static void *next_lookup(const struct next_objects *w, int id)
{
    const char *name = name_of(id);
    for (int i = 0; i < w->n; i++)
        if (st_symbols_may_define(&w->between[i], name))
            return st_real_lookup((enum st_real_id)id);
    void *p = (void *)st_symbols_lookup(&w->next, name);
    return p ? keep(id, p) : st_real_lookup((enum st_real_id)id);
}

int st_real_resolve(void)
{
    struct next_objects w;
    int tables = -1; /* -1: no dlsym has answered yet; then 1 if the tables may */
    int missing = 0;
    for (int id = 0; id < ST_REAL_COUNT; id++) {
        if (rows[id].when != ST_REAL_START)
            continue;
        void *p;
        if (tables == 1) {
            p = next_lookup(&w, id);
        } else {
            p = st_real_lookup((enum st_real_id)id);
            if (p && tables < 0)
                tables = next_objects(&w, p);
        }
        if (!p)
            missing++;
    }
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
