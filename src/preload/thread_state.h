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
    /* One-entry cache FILE* -> stream, valid while the epoch matches. */
    FILE *cached_fp;
    struct st_stream *cached_stream;
    unsigned cached_epoch;
};

extern __thread struct st_thread st_self __attribute__((tls_model("initial-exec")));

#endif
