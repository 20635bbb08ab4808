/* real_table.h — every real function, from every table, as one list.
 *
 * No include guard: include it with ST_REAL_ROW(name, type, when, how)
 * defined, once for each thing the list generates (real.h: the struct, the
 * ids and the accessors; real.c: the names, the slots' first values, what
 * start-up resolves). Each row of the .def tables becomes one
 * ST_REAL_ROW; the scanf tables have none (their wrappers forward to the
 * v-functions'). how: STANDIN for the generated families, whose slot
 * starts out holding a stand-in generated from the row (real.c), so that
 * calling it needs no test; CHECKED for the hand-written wrappers' (no
 * parameter names in their rows to generate one from), whose slot starts
 * out NULL and is tested at each call.
 *
 * when: the stdio family's are looked up on first use, by their stand-ins:
 * most processes call a few of its 26 names, and none of them is safe in a
 * signal handler, so start-up need not spare a handler the dlsym (26 of
 * them cost every process ~25,000 instructions). The POSIX and open
 * families' are START: read, lseek, open and dup are async-signal-safe,
 * and a handler that calls one first must not be the one to look it up. */
#define STDIO(call, ret, name, params, args, stream, op) ST_REAL_ROW(name, ret (*) params, FIRST_USE, STANDIN)
#define STDIO_VOID(call, name, params, args, stream, op) ST_REAL_ROW(name, void (*) params, FIRST_USE, STANDIN)
#include "wrap_stdio.def"
#undef STDIO
#undef STDIO_VOID
#define POSIX_READ(call, name, params, args, fd, req, off) ST_REAL_ROW(name, ssize_t (*) params, START, STANDIN)
#define POSIX_WRITE(call, name, params, args, fd, handed, off, app) ST_REAL_ROW(name, ssize_t (*) params, START, STANDIN)
#define POSIX_SEEK(name, ret, params, args, fd) ST_REAL_ROW(name, ret (*) params, START, STANDIN)
#define POSIX_DUP(name, params, args, fd, nfd) ST_REAL_ROW(name, int (*) params, START, STANDIN)
#include "wrap_posix.def"
#undef POSIX_READ
#undef POSIX_WRITE
#undef POSIX_SEEK
#undef POSIX_DUP
#define OPEN(name, type, params, args, dir, path, flags) ST_REAL_ROW(name, type, START, STANDIN)
#include "wrap_open.def"
#undef OPEN
#define OPEN2(name, params, args, dir, path, flags) ST_REAL_ROW(name, int (*) params, START, STANDIN)
#include "wrap_open2.def"
#undef OPEN2
#define HAND(name, type, when) ST_REAL_ROW(name, type, when, CHECKED)
#include "wrap_hand.def"
#undef HAND
