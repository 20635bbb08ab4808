/* record.h — charging one syscall to the accounts it belongs to.
 *
 * Every syscall seektrace sees, whether glibc's stdio made it inside a hook
 * or the program made it through a wrapper, ends up here: counted on the
 * stream or file, and on the call that caused it. */
#ifndef SEEKTRACE_RECORD_H
#define SEEKTRACE_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "files.h"
#include "tally.h"
#include "thread_state.h"

/* The call to charge: the interposed call in progress, else `fallback`
 * (what the outermost stdio hook implies, e.g. getc for a refill in uflow). */
static inline enum st_call st_charge(enum st_call fallback)
{
    return st_self.in_call ? st_self.call : fallback;
}

/* A read-family syscall that returned `result` at file offset `offset`
 * (-1 if unknown: then re-reads cannot be placed and are not counted),
 * booked on c (NULL: counted on the thread only) and charged to `call`,
 * whose costs c keeps at cc (st_tally_cost; NULL: not kept). The _at forms
 * are for callers that know cc already (a fast entry: thread_state.h). */
void st_record_read_at(struct st_file *f, struct st_tally *c, struct st_call_cost *cc,
                       enum st_call call, int64_t offset, ssize_t result);

/* n more of a figure a cell keeps (own) and its call kind's record keeps
 * too (of_call: NULL when that kind's costs are not kept). */
static inline void st_record_add(uint64_t *own, uint64_t *of_call, uint64_t n)
{
    if (__builtin_expect(of_call != NULL, 1))
        st_add2(own, n, of_call, n);
    else
        st_add(own, n);
}

/* What st_record_read_at books on c and cc, less the thread's count and
 * the trace: inline for the wrappers' lean path (stdio_slots.c), which
 * nothing traces. Returns the bytes read again. The caller is busy. */
static inline uint64_t st_record_read_counts(struct st_file *f, struct st_tally *c,
                                             struct st_call_cost *cc, int64_t offset,
                                             ssize_t result)
{
    uint64_t bytes = result > 0 ? (uint64_t)result : 0;
    st_record_add(&c->read_syscalls, cc ? &cc->read_syscalls : NULL, 1);
    if (bytes)
        st_record_add(&c->kernel_read_bytes, cc ? &cc->kernel_read_bytes : NULL, bytes);
    if (!bytes || !f || offset < 0)
        return 0;
    uint64_t again = st_file_note_range(f, (uint64_t)offset, bytes);
    if (again)
        st_add(&c->reread_bytes, again);
    return again;
}

static inline void st_record_read(struct st_file *f, struct st_tally *c, enum st_call call,
                                  int64_t offset, ssize_t result)
{
    st_record_read_at(f, c, c ? st_tally_cost(c, call) : NULL, call, offset, result);
}

/* An lseek syscall, booked on c (NULL: counted on the thread only) and
 * at cc (NULL: not kept). */
static inline void st_record_lseek_at(struct st_tally *c, struct st_call_cost *cc)
{
    st_self.lseeks++;
    if (c)
        st_record_add(&c->lseek_syscalls, cc ? &cc->lseek_syscalls : NULL, 1);
}
static inline void st_record_lseek(struct st_tally *c, enum st_call call)
{
    st_record_lseek_at(c, c ? st_tally_cost(c, call) : NULL);
}
void st_record_fstat(struct st_tally *c, enum st_call call);
/* The stdio write syscall about to be recorded (st_record_write_at) had
 * `cause` (enum st_flush_cause), booked on c (NULL: nowhere). */
void st_record_flush(struct st_tally *c, int cause);

/* What a write-family syscall that returned `result` costs, booked on c
 * and at cc (NULL: that kind's costs not kept). */
static inline void st_record_write_counts(struct st_tally *c, struct st_call_cost *cc,
                                          ssize_t result)
{
    st_record_add(&c->write_syscalls, cc ? &cc->write_syscalls : NULL, 1);
    if (result > 0)
        st_record_add(&c->kernel_write_bytes, cc ? &cc->kernel_write_bytes : NULL,
                      (uint64_t)result);
}

/* A write-family syscall charged to `call`, at file offset `offset` (-1
 * unknown), booked on c (not NULL) and at cc as st_record_write_counts
 * does, and traced. f: c's file, to name it in the trace. */
void st_record_write_at(struct st_file *f, struct st_tally *c, struct st_call_cost *cc,
                        enum st_call call, int64_t offset, ssize_t result);

/* Signal handlers. A read, write or lseek seen while this thread is busy in
 * seektrace's bookkeeping (busy without own_io: thread_state.h) is a signal
 * handler's that interrupted it. That code may be half-way through an
 * update of a cache or a registry, so the syscall is counted with atomic
 * adds on the file fd names (named now if seektrace has not met fd yet;
 * not when that needs a record made while this thread's bookkeeping holds
 * the registry lock: registry_lock.h), and nowhere else: no call, site,
 * stream, re-read range or trace event (the trace's footer has it, its
 * events do not). */
static inline int st_record_in_handler(void)
{
    return st_self.busy && !st_self.own_io;
}
void st_record_handler_read(int fd, ssize_t result);
void st_record_handler_write(int fd, ssize_t result);
void st_record_handler_lseek(int fd);

/* Adds f's handler counts to a report's totals for f. */
void st_record_handler_totals(const struct st_file *f, struct st_counts *sum);

#endif
