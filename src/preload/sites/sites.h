/* sites.h — where in the program a call came from.
 *
 * A site is the first frame outside the runtime (libc, the loader,
 * libstdc++, libgcc and seektrace itself): the program's own line that made
 * the call. A wrapper knows it for free — its return address — unless the
 * caller is itself part of the runtime (an ifstream reading through
 * libstdc++); then, and for work glibc does outside any wrapped call (a getc
 * refill), the stack is unwound (libgcc's unwinder), on those slow paths only.
 * With SEEKTRACE_STACK=N > 1 a site is the N frames from the program's line
 * outwards (two callers of one line are two sites), found up the stack for
 * every interposed call that records something: a cost paid only when asked
 * for. Each thread remembers its last walks and the return addresses they
 * passed (sites.c), so the same chain of calls is not unwound twice: a
 * wrapper's fast path checks those return addresses and nothing more.
 * Symbols are looked up at report time (symbolize.h), never here. */
#ifndef SEEKTRACE_SITES_H
#define SEEKTRACE_SITES_H

#include <stdint.h>

#include "counts.h"
#include "report_model.h"

#define ST_MAX_FRAMES 16

struct st_site {
    uintptr_t pc; /* return address at the site */
    int nframes;  /* frames[0] == pc, then its callers */
    uintptr_t frames[ST_MAX_FRAMES];
    struct st_report_frame *symbols; /* filled at report time */
    /* The stdio call the program made at the site, as far as a walk up the
     * stack has told (the library function below the site: fgets, getc,
     * ...); ST_CALL_OTHER until one has, or when it is none we know. */
    enum st_call via;
    /* Its id in the process's trace, given and read by the writer alone
     * (trace/trace_sites.c). */
    uint64_t trace_id;
    struct st_site *next_all;
    void *hash_next; /* hash_chains.h */
};

/* depth: SEEKTRACE_STACK (0 turns attribution off). Call once at start-up. */
void st_sites_init(int depth);

/* A frame on the current stack: its canonical frame address (the stack
 * pointer before the call that made it) and its return address. */
struct st_frame {
    const void *cfa, *ra;
};

/* The calling function's own frame. */
#define ST_FRAME_HERE ((struct st_frame){__builtin_dwarf_cfa(), __builtin_return_address(0)})

/* The site of a call made to a wrapper whose frame is `caller` (live until
 * this returns): its return address, or up the stack from it; NULL when
 * attribution is off or memory ran out. */
struct st_site *st_site_from_caller(struct st_frame caller);

/* The site of the current stack (unwinds). */
struct st_site *st_site_here(void);

/* st_site_here, for a caller that names a frame of its own, live until
 * this returns (ST_FRAME_HERE): only the stack above that frame is unwound
 * or, when it was seen before, checked. A hook that finds a refill's site
 * from its own frame checks none of the frames of ours below it. */
struct st_site *st_site_above(struct st_frame key);

/* Where the last look-up through the unwind cache found its walk, or left
 * the walk it made; and st_site_above trying that place first. A wrapper's
 * fast entry keeps it: the two lines of an fseek + fread loop hit two
 * places in turn, and each look-up would scan the others first. */
unsigned st_site_last_way(void);
struct st_site *st_site_above_from(struct st_frame key, unsigned way);

/* The stdio call made at a site found by st_site_here, or `fallback` when
 * no walk has named it (wrapped calls' sites are never walked for this). */
static inline enum st_call st_site_via(const struct st_site *s, enum st_call fallback)
{
    enum st_call via = s ? __atomic_load_n(&s->via, __ATOMIC_RELAXED) : ST_CALL_OTHER;
    return via != ST_CALL_OTHER ? via : fallback;
}

struct st_site *st_sites_first(void);

/* SEEKTRACE_STACK as applied (0 when attribution is off); set once by
 * st_sites_init. */
extern int st_site_depth;
static inline int st_sites_depth(void)
{
    return st_site_depth;
}

#endif
