/* thread_state.h — what each thread knows about the call it is in.
 *
 * Initial-exec TLS: reaching it is one %fs-relative load, no call into the
 * loader, so it is safe on every path including the hooks glibc calls.
 *
 * "Which stream is this FILE*" is answered per thread by one cache and two
 * records that carry more than the stream. All three are valid while
 * staleness.h's word is the one they were made under (it moves when any
 * stream is unbound, any fd opened, closed or duplicated, and when capture
 * or tracing changes how streams are followed): a change elsewhere never
 * reaches into another thread's caches, it moves that word:
 *
 *   current_*   FILE* -> stream, checked against what its fd names
 *               (st_stream_current, streams.c; st_stream_of asks it with
 *               the streams' half of the word alone, as binding is all it
 *               needs). Every hook's general path asks it.
 *   fast[8]     a wrapper's call, keyed by (FILE*, return address, kind):
 *               stream, site, cell, where the cell counts the kind, the
 *               fd's description (wrap_stdio.c). One entry per return
 *               address, not per FILE: a loop calling fseek and fread on
 *               one stream alternates between two sites, and the current
 *               cache holds no site.
 *   refill      the same record for a getc or fgets refill no wrapper saw
 *               (glibc's macros), keyed by (FILE*, the site found up the
 *               stack) (stdio_slots.c). Apart from fast[]: it has no
 *               return address to be found by, and would evict a wrapper's.
 *
 * Two more hold an answer for the length of one call only, so they need
 * no rule: slot_fp (the outermost hooked slot's stream, for the slots and
 * syscalls it runs into) and lean (the fast[] or refill record of the call
 * in progress). Forgotten by st_cells_new_epoch (cells.c) in a fork child:
 * fast[] and refill, which name cells of the parent's epoch. */
#ifndef SEEKTRACE_THREAD_STATE_H
#define SEEKTRACE_THREAD_STATE_H

#include <stdint.h>
#include <stdio.h>

#include "counts.h"

struct st_stream;
struct st_site;
struct st_cell;
struct st_desc;
struct st_call_cost;

/* Which intercepted call is in progress on this thread (in_call). */
enum st_in_call {
    ST_IN_NONE = 0,
    /* A wrapper's (wrap_stdio.c: st_call_begin or the fast path), which
     * clears it when the call returns. */
    ST_IN_WRAPPER = 1,
    /* A buffer slot's, reached outside any wrapped call (a getc or fgets
     * refill, glibc's exit cleanup): set by the outermost slot and cleared
     * when it leaves (stdio_slots.c). */
    ST_IN_SLOT = 2,
};

/* How a wrapper's call began (wrap_stdio.c), which says how it ends. */
enum st_began {
    /* Not begun: seektrace busy, another call in progress, or (the fast
     * path's answer) no fast entry matched, nothing done yet. */
    ST_BEGAN_NOT = 0,
    /* Begun by st_call_begin (its 1); ends by st_call_end. */
    ST_BEGAN_SLOW = 1,
    /* A fast entry matched and nothing traces or follows the stream: the
     * hooks inside take their lean path (lean below), and the call ends
     * without touching errno. */
    ST_BEGAN_LEAN = 2,
    /* A fast entry matched but the stream's operations are traced or
     * followed (ops.h): they are told, and the call ends like a slow one. */
    ST_BEGAN_FAST_OPS = 3,
    /* A fast entry matched, but its site depends on more than the return
     * address: the stack above the wrapper is still to be compared. */
    ST_BEGAN_CHECK_STACK = 4,
};

struct st_thread {
    /* > 0 while seektrace's own code runs on this thread: whatever it calls,
     * or a signal handler interrupting it, must not be recorded again. */
    int busy;
    /* > 0 while that code may itself call a wrapped read or lseek (start-up,
     * symbolizing, the report). Busy without it, seektrace only updates its
     * accounts, which never reads a file: a read or lseek seen then is a
     * signal handler's (record.h). */
    int own_io;
    /* The intercepted stdio call in progress, if any: the syscalls glibc
     * makes inside it are charged to it. */
    enum st_in_call in_call;
    enum st_call call;
    /* Nesting of hooked stdio jump-table slots: the delivered-bytes ledger
     * works at the outermost one only. That one's FILE and stream: the
     * slots and syscalls it runs into on the same FILE (a refill's read,
     * seekoff's lseek and read) book on the stream its ledger works on,
     * without looking it up again. Valid while slot_depth > 0 (set by
     * slot_claim, stdio_slots.c; the depth returning to 0 ends it), whatever
     * another thread changes meanwhile: not a staleness-checked cache. */
    int slot_depth;
    FILE *slot_fp;
    struct st_stream *slot_stream;
    /* Read and lseek syscalls seen on this thread; a call compares them
     * before and after to know what it cost the kernel. */
    uint64_t reads;
    uint64_t lseeks;
    /* The call site of the call in progress: resolved only when an event
     * needs it (sites.h), from site_ra (a wrapper's return address) or, when
     * that is NULL, by unwinding. */
    struct st_site *site;
    void *site_ra;
    int site_pending;
    /* The canonical frame address of the wrapper that gave site_ra: a site
     * the return address alone does not decide is found up the stack from
     * the wrapper's frame (st_site_above), the key its fast path checks the
     * site by. */
    const void *site_cfa;
    /* One-entry caches: return address -> site (sites live until exit:
     * never stale); the last cell (which holds its own owner and site:
     * cells.h checks them with one load; forgotten with its epoch). */
    void *cached_ra;
    struct st_site *cached_ra_site;
    struct st_cell *cached_cell;
    /* The wrappers' fast path (wrap_stdio.c): what this thread's last call
     * on fp from return address ra found, its site and the cell it booked
     * on (which also primes the cell cache for the hooks inside the call),
     * valid while staleness.h's word is `staleness` (the stream was checked
     * current then: streams.h). Made by st_call_begin, read by
     * call_begin_fast; a signal handler's call cannot rewrite an entry
     * while it is read (in_call is set first). */
    struct st_fast_call {
        FILE *fp;
        void *ra;
        uint64_t staleness;
        struct st_site *site;
        struct st_stream *stream;
        struct st_cell *cell;
        /* Where the cell counts this call kind (tally.h): an indirect call
         * from one return address may reach another wrapper, so the kind is
         * checked too. */
        struct st_call_cost *cost;
        struct st_desc *desc; /* its fd's description (fdtable.h), or NULL */
        enum st_call call;
        /* The site depends on more than ra (SEEKTRACE_STACK > 1, or a
         * runtime caller): each call checks it up the stack (sites.h),
         * first where the unwind cache kept it (st_site_last_way). */
        unsigned short check_stack, way;
        /* The stream's calls were traced or followed when the entry was
         * made (st_ops_wanted). 0 holds until tracing starts, which makes
         * the entry stale; 1 is asked again, since a what-if stops once the
         * buffer proves no larger than 4 KiB. */
        unsigned short ops;
    } fast[8]; /* by ST_FAST_SLOT(ra) */
    /* The fast-path call in progress when nothing it does is traced or
     * followed (NULL otherwise): the hooks it runs into on its own FILE
     * take their lean path (stdio_slots.c). Points to a fast[] entry or to
     * refill; set when such a call begins, NULL again when it ends. */
    const struct st_fast_call *lean;
    /* What lean points to in a refill outside any wrapped call whose
     * stream nothing traces or follows: its stream, site and cell, for the
     * read it makes; kept for the next refill on that FILE, valid while
     * staleness.h's word is the one it holds. Made by lean_refill, read
     * by refill_again (stdio_slots.c). */
    struct st_fast_call refill;
    /* The one FILE* -> stream cache (st_stream_current, streams.c): the
     * stream at current_fp, checked against what its fd names, valid while
     * neither the stream epoch nor the fd table has moved (staleness.h).
     * st_stream_of, which needs fp bound and nothing of its fd, takes it
     * while the stream epoch (the word's low half) has not moved. Written
     * only by st_stream_current's slow half, once a stream is found
     * current; a rebound stream is not cached until found current again. */
    FILE *current_fp;
    struct st_stream *current_stream;
    uint64_t current_staleness;
};

/* Which fast[] entry a return address uses: call sites next to each other
 * (an fseek and an fread in one loop) land in different entries. */
#define ST_FAST_SLOT(ra) ((((uintptr_t)(ra)) ^ ((uintptr_t)(ra) >> 5)) & 7)

extern __thread struct st_thread st_self __attribute__((tls_model("initial-exec")));

#endif
