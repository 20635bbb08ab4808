/* real.h — the libc functions behind every interposed symbol, and the one
 * way to call them: ST_REAL(name).
 *
 * Generated from the tables that generate the wrappers (real_table.h lists
 * every row of every .def, the hand-written wrappers' in wrap_hand.def), so
 * a wrapper can never exist without its real function, nor a name be
 * listed twice. Each is what dlsym(RTLD_NEXT) finds, kept in struct
 * st_real: the names a table marks START all at once by st_real_resolve(),
 * first thing at start-up (wrap/init.c), most of them read from libc's
 * symbol table once one dlsym has shown where the search ends (real.c);
 * FIRST_USE ones on their first call, so that start-up does not pay for
 * rare calls; BEFORE_FORK ones on their first call or at the parent's
 * first fork, whichever is first.
 *
 * ST_REAL(name) can be called at any time, as libc's own would be: before
 * start-up (another library's constructor reads a file before ours runs),
 * while start-up runs in another thread, and from inside dlsym itself
 * (dlsym may call calloc, and the program's malloc may read a file: the
 * nested lookup is dlsym's own recursion, which glibc allows; nothing here
 * takes a lock). Until its name is resolved, a generated family's slot
 * holds a stand-in (real.c) that looks the name up, keeps it and calls it:
 * the wrappers that run on every call load the slot and call, with no test
 * (the stdio fast path has no register to spare for one). A hand-written
 * wrapper's slot starts out NULL, and ST_REAL tests it and looks the name
 * up there. A lookup is one atomic store of a pointer, the same whichever
 * thread makes it, so two early threads racing only look it up twice.
 *
 * When libc has no such function (an older glibc: preadv64v2, close_range,
 * _Fork), a hand-written wrapper's ST_REAL yields NULL (ST_REAL_OR_ENOSYS
 * turns that into the call's ENOSYS) and a stand-in fails with ENOSYS; both
 * look again at the next call. Once start-up is over, a START name never
 * calls dlsym again: a fatal-signal handler (sigaction), a fork child and a
 * vfork child (which shares its parent's memory, the slots included) only
 * load a pointer. A FIRST_USE name called first in one of those looks
 * itself up there, as a lazily bound PLT slot would. */
#ifndef SEEKTRACE_REAL_H
#define SEEKTRACE_REAL_H

#define _GNU_SOURCE 1
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

struct termios;
struct winsize;

struct st_real {
#define ST_REAL_ROW(name, type, when, how) __typeof__(type) name;
#include "real_table.h"
#undef ST_REAL_ROW
};

extern struct st_real st_real;

/* When a row's name is looked up (the `when` of real_table.h's rows). */
enum st_real_when { ST_REAL_FIRST_USE, ST_REAL_START, ST_REAL_BEFORE_FORK };

enum st_real_id {
#define ST_REAL_ROW(name, type, when, how) ST_REAL_ID_##name,
#include "real_table.h"
#undef ST_REAL_ROW
    ST_REAL_COUNT
};

/* Looks the real function up now (dlsym) and keeps it when libc has it;
 * returns it, or NULL. */
void *st_real_lookup(enum st_real_id id);

/* ST_REAL(name): the real function, by the row's `how` (real_table.h). */
#define ST_REAL_ACCESSOR_STANDIN(name)                                               \
    static inline __typeof__(st_real.name) st_real_get_##name(void)                  \
    {                                                                                \
        return st_real.name;                                                         \
    }
#define ST_REAL_ACCESSOR_CHECKED(name)                                               \
    static inline __typeof__(st_real.name) st_real_get_##name(void)                  \
    {                                                                                \
        __typeof__(st_real.name) f = __atomic_load_n(&st_real.name, __ATOMIC_ACQUIRE); \
        if (__builtin_expect(!f, 0))                                                 \
            *(void **)&f = st_real_lookup(ST_REAL_ID_##name);                        \
        return f;                                                                    \
    }
#define ST_REAL_ROW(name, type, when, how) ST_REAL_ACCESSOR_##how(name)
#include "real_table.h"
#undef ST_REAL_ROW
#undef ST_REAL_ACCESSOR_STANDIN
#undef ST_REAL_ACCESSOR_CHECKED
#define ST_REAL(name) (st_real_get_##name())

/* In a hand-written wrapper returning an int or a pid: `real` becomes
 * ST_REAL(name), and the wrapper fails with ENOSYS, as the call would, when
 * libc has none. */
#define ST_REAL_OR_ENOSYS(name)                                                      \
    __typeof__(st_real.name) real = ST_REAL(name);                                   \
    if (!real) {                                                                     \
        errno = ENOSYS;                                                              \
        return -1;                                                                   \
    }

/* Looks up every START name, as dlsym(RTLD_NEXT) would (real.c says how
 * most are read from libc's symbol table); safe to call more than once.
 * Returns the number libc does not have (older glibc: e.g. preadv64v2). */
int st_real_resolve(void);

/* Looks up every BEFORE_FORK name not found yet (the exec family), once a
 * process: called by a parent about to fork (wrap/init.c's atfork
 * handler), so that its children find them in their copy of the slots. */
void st_real_resolve_before_fork(void);

#endif
