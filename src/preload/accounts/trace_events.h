/* trace_events.h — the facts the library records in a trace as it counts
 * them.
 *
 * Each st_trace_X(...) sits next to the place that counts something (the
 * accounts here, the stdio hooks, the wrappers above), one line each. The
 * trace writer (trace/trace_events.c and its neighbours, a layer above the
 * accounts: it reads them to name files, streams, cells and sites)
 * implements the out-of-line halves; this header is the interface between the two, placed at the
 * lowest layer that calls it, so that the accounts need not include the
 * writer. trace_writer.h's promises hold for every call here: off, one load
 * and a branch, the arguments not evaluated; on, no lock, malloc or syscall
 * on the hot path, safe from any thread and from a signal handler. */
#ifndef SEEKTRACE_TRACE_EVENTS_H
#define SEEKTRACE_TRACE_EVENTS_H

#include <stdint.h>
#include <sys/types.h>

#include "tally.h"

struct st_file;
struct st_report_file;
struct st_stream;

/* Non-zero while events are recorded (set by st_trace_init). */
extern int st_trace_on;

#define ST_TRACE_LIKELY_OFF(x) __builtin_expect(!!(x), 0)

/* Out-of-line halves of the inline wrappers below. */
void st_trace_call_begin_(struct st_tally *c, enum st_call call);
void st_trace_call_end_(void);
void st_trace_slot_begin_(enum st_call call);
void st_trace_count_(struct st_tally *c, enum st_call call);
void st_trace_buffer_(struct st_stream *s);
void st_trace_deliver_(struct st_tally *c, uint64_t requested, uint64_t delivered);
void st_trace_seek_(struct st_tally *c, int kept, uint64_t resync);
void st_trace_written_(struct st_tally *c, uint64_t n);
void st_trace_flush_cause_(struct st_tally *c, int cause);
void st_trace_sys_begin_(void);
void st_trace_read_(struct st_tally *c, enum st_call call, int64_t offset, ssize_t result);
void st_trace_reread_(uint64_t again);
void st_trace_lseek_(struct st_tally *c, enum st_call call, int64_t result);
void st_trace_fstat_(struct st_tally *c, enum st_call call);
void st_trace_write_at_(struct st_tally *c, enum st_call call, int64_t offset, ssize_t result);
void st_trace_close_(struct st_stream *s);
void st_trace_op_(struct st_stream *s, unsigned op, int flag, uint64_t n, int64_t x,
                  int ends_call);
void st_trace_posix_read_(struct st_tally *c, enum st_call call, uint64_t requested,
                          ssize_t result);
void st_trace_posix_lseek_(struct st_tally *c, int64_t result);
void st_trace_posix_write_(struct st_tally *c, enum st_call call, uint64_t handed, ssize_t result);

/* Each st_trace_X(...) below is a macro: when recording is off it costs a
 * load and a branch, and its arguments are not even evaluated. */
#define ST_TRACE_FORWARD(name, params, args) /* documentation only */
#define ST_TRACE_CALL(fn, ...)                                                       \
    do {                                                                             \
        if (ST_TRACE_LIKELY_OFF(st_trace_on))                                        \
            fn(__VA_ARGS__);                                                         \
    } while (0)
#define st_trace_call_begin(...) ST_TRACE_CALL(st_trace_call_begin_, __VA_ARGS__)
#define st_trace_call_end() ST_TRACE_CALL(st_trace_call_end_)
#define st_trace_slot_begin(...) ST_TRACE_CALL(st_trace_slot_begin_, __VA_ARGS__)
#define st_trace_count(...) ST_TRACE_CALL(st_trace_count_, __VA_ARGS__)
#define st_trace_buffer(...) ST_TRACE_CALL(st_trace_buffer_, __VA_ARGS__)
#define st_trace_deliver(...) ST_TRACE_CALL(st_trace_deliver_, __VA_ARGS__)
#define st_trace_seek(...) ST_TRACE_CALL(st_trace_seek_, __VA_ARGS__)
#define st_trace_written(...) ST_TRACE_CALL(st_trace_written_, __VA_ARGS__)
#define st_trace_flush_cause(...) ST_TRACE_CALL(st_trace_flush_cause_, __VA_ARGS__)
#define st_trace_sys_begin() ST_TRACE_CALL(st_trace_sys_begin_)
#define st_trace_read(...) ST_TRACE_CALL(st_trace_read_, __VA_ARGS__)
#define st_trace_reread(...) ST_TRACE_CALL(st_trace_reread_, __VA_ARGS__)
#define st_trace_lseek(...) ST_TRACE_CALL(st_trace_lseek_, __VA_ARGS__)
#define st_trace_fstat(...) ST_TRACE_CALL(st_trace_fstat_, __VA_ARGS__)
#define st_trace_write_at(...) ST_TRACE_CALL(st_trace_write_at_, __VA_ARGS__)
#define st_trace_close(...) ST_TRACE_CALL(st_trace_close_, __VA_ARGS__)
#define st_trace_op(...) ST_TRACE_CALL(st_trace_op_, __VA_ARGS__)
#define st_trace_posix_read(...) ST_TRACE_CALL(st_trace_posix_read_, __VA_ARGS__)
#define st_trace_posix_lseek(...) ST_TRACE_CALL(st_trace_posix_lseek_, __VA_ARGS__)
#define st_trace_posix_write(...) ST_TRACE_CALL(st_trace_posix_write_, __VA_ARGS__)

/* Counting events take the counts they were booked on, `c`: a cell
 * (cells.h), which names its owner and site. NULL c: nothing was counted,
 * nothing is recorded. */

/* A wrapped stdio call begins, its call counted on c / the call ends. */
ST_TRACE_FORWARD(call_begin, (struct st_tally *c, enum st_call call), (c, call))
ST_TRACE_FORWARD(call_end, (void), ())
/* A hooked stdio slot runs outside any wrapped call (a getc refill, exit
 * cleanup): an uncounted span charged to `call`, ended by st_trace_call_end. */
ST_TRACE_FORWARD(slot_begin, (enum st_call call), (call))
/* calls[call] += 1 on c, without a span (fopen once its stream exists, open). */
ST_TRACE_FORWARD(count, (struct st_tally *c, enum st_call call), (c, call))
/* s's buffer size, mode or origin may have changed. */
ST_TRACE_FORWARD(buffer, (struct st_stream *s), (s))
/* requested/delivered bytes booked on c. */
ST_TRACE_FORWARD(deliver, (struct st_tally *c, uint64_t requested, uint64_t delivered),
                 (c, requested, delivered))
/* An fseek-family call kept (with `resync` lseeks) or discarded the buffer. */
ST_TRACE_FORWARD(seek, (struct st_tally *c, int kept, uint64_t resync), (c, kept, resync))
/* n bytes handed over to be written, booked on c. */
ST_TRACE_FORWARD(written, (struct st_tally *c, uint64_t n), (c, n))
/* The stdio write syscall about to be recorded had `cause` (ST_FLUSH_*,
 * flush_cause.h), booked on c. */
ST_TRACE_FORWARD(flush_cause, (struct st_tally *c, int cause), (c, cause))
/* A syscall is about to be made: the next syscall event's start time. */
ST_TRACE_FORWARD(sys_begin, (void), ())
/* st_record_read's arguments (but the file: the cell names it). */
ST_TRACE_FORWARD(read, (struct st_tally *c, enum st_call call, int64_t offset, ssize_t result),
                 (c, call, offset, result))
/* The read just recorded re-read `again` bytes. */
ST_TRACE_FORWARD(reread, (uint64_t again), (again))
/* An lseek syscall (st_record_lseek) that returned result. */
ST_TRACE_FORWARD(lseek, (struct st_tally *c, enum st_call call, int64_t result),
                 (c, call, result))
ST_TRACE_FORWARD(fstat, (struct st_tally *c, enum st_call call), (c, call))
/* st_record_write_at's arguments (but the file: the cell names it): a
 * write-family syscall charged to call. */
ST_TRACE_FORWARD(write_at, (struct st_tally *c, enum st_call call, int64_t offset,
                            ssize_t result),
                 (c, call, offset, result))
ST_TRACE_FORWARD(close, (struct st_stream *s), (s))
/* A stream operation (ST_OP_*, trace_format.h) for `seektrace whatif`:
 * flag is its F1; n its unsigned field (FSEEK: whence; OTHER: the call);
 * x its signed one (OPEN, FSEEK: offset). ends_call: the op of a wrapped
 * call whose st_trace_call_end comes next with nothing recorded between;
 * the op records the call's end, and that st_trace_call_end nothing. */
ST_TRACE_FORWARD(op, (struct st_stream *s, unsigned op, int flag, uint64_t n, int64_t x,
                      int ends_call),
                 (s, op, flag, n, x, ends_call))
/* The program's own read-family call: calls += 1, and requested/delivered
 * as note_read books them (the syscall follows via st_trace_read). */
ST_TRACE_FORWARD(posix_read, (struct st_tally *c, enum st_call call, uint64_t requested,
                              ssize_t result),
                 (c, call, requested, result))
/* The program's own lseek: calls["lseek"] += 1 and the syscall. */
ST_TRACE_FORWARD(posix_lseek, (struct st_tally *c, int64_t result), (c, result))
/* The program's own write-family call: calls += 1, and written_bytes +=
 * handed as note_write books it (the syscall follows via
 * st_trace_write_at). */
ST_TRACE_FORWARD(posix_write, (struct st_tally *c, enum st_call call, uint64_t handed,
                               ssize_t result),
                 (c, call, handed, result))

#undef ST_TRACE_FORWARD

/* A closed file about to be folded away while events are recorded
 * (fold.h), where the footer can no longer list it: its row (rf: its
 * counts and streams, file_row.h; the writer adds its sites) is staged in
 * the trace's rows chunks as the footer's FILE record (trace_format.h),
 * and the last word on its streams recorded. 0, or -1 when there is no
 * room for it (the file must then stay). Not on the hot path: called only
 * while the process has one thread, busy, when nothing is open on f. */
int st_trace_fold_row(struct st_file *f, const struct st_report_file *rf);
/* After st_trace_fold_row: f folded (its staged row kept) or not (the row
 * dropped, f lists in the footer). Either way the writer's caches of
 * records by address are forgotten: a folded file's records become the
 * next files' and get new ids, so no later event names the old file. */
void st_trace_fold_done(int folded);

#endif
