/* thread_state.h — what each thread knows about the call it is in.
 *
 * Initial-exec TLS: reaching it is one %fs-relative load, no call into the
 * loader, so it is safe on every path including the hooks glibc calls. */
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
    int in_call;
    enum st_call call;
    /* Nesting of hooked stdio jump-table slots: the delivered-bytes ledger
     * works at the outermost one only. That one's FILE and stream: the
     * slots and syscalls it runs into on the same FILE (a refill's read,
     * seekoff's lseek and read) need not look the stream up again. */
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
    /* One-entry caches: return address -> site; the last cell (which holds
     * its own owner and site: cells.h checks them with one load). */
    void *cached_ra;
    struct st_site *cached_ra_site;
    struct st_cell *cached_cell;
    /* One-entry cache FILE* -> stream, valid while the stream epoch
     * (staleness.h) matches. */
    FILE *cached_fp;
    struct st_stream *cached_stream;
    unsigned cached_epoch;
    /* The wrappers' fast path (wrap_stdio.c): what this thread's last call
     * on fp from return address ra found, its site and the cell it booked
     * on (which also primes the cell cache for the hooks inside the call),
     * valid while staleness.h's word is `staleness` (the stream was checked
     * current then: streams.h).
     * Only for sites the return address decides (st_site_decided_by_caller). */
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
     * take their lean path (stdio_slots.c). */
    const struct st_fast_call *lean;
    /* What lean points to in a refill outside any wrapped call whose
     * stream nothing traces or follows: its stream, site and cell, for the
     * read it makes; kept for the next refill on that FILE, valid while
     * staleness.h's word is the one it holds (stdio_slots.c). */
    struct st_fast_call refill;
    /* One-entry cache of st_stream_current (streams.c): the stream at
     * current_fp, checked against what its fd names, valid while neither
     * the stream epoch nor the fd table has moved (staleness.h). */
    FILE *current_fp;
    struct st_stream *current_stream;
    uint64_t current_staleness;
};

/* Which fast[] entry a return address uses: call sites next to each other
 * (an fseek and an fread in one loop) land in different entries. */
#define ST_FAST_SLOT(ra) ((((uintptr_t)(ra)) ^ ((uintptr_t)(ra) >> 5)) & 7)

extern __thread struct st_thread st_self __attribute__((tls_model("initial-exec")));

#endif
