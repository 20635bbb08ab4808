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

struct st_thread {
    /* > 0 while seektrace's own code runs on this thread: whatever it calls,
     * or a signal handler interrupting it, must not be recorded again. */
    int busy;
    /* The intercepted stdio call in progress, if any: the syscalls glibc
     * makes inside it are charged to it. */
    int in_call;
    enum st_call call;
    /* Nesting of hooked stdio jump-table slots: the delivered-bytes ledger
     * works at the outermost one only. */
    int slot_depth;
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
    /* One-entry caches: return address -> site, (owner, site) -> cell. */
    void *cached_ra;
    struct st_site *cached_ra_site;
    const void *cached_owner;
    struct st_site *cached_site;
    struct st_cell *cached_cell;
    /* One-entry cache FILE* -> stream, valid while the epoch matches. */
    FILE *cached_fp;
    struct st_stream *cached_stream;
    unsigned cached_epoch;
};

extern __thread struct st_thread st_self __attribute__((tls_model("initial-exec")));

#endif
