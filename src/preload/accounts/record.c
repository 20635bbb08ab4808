/* record.c — see record.h. */
#include "record.h"

#include "fdtable.h"
#include "flush_cause.h"
#include "files.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_events.h"

void st_record_read_at(struct st_file *f, struct st_tally *c, struct st_call_cost *cc,
                       enum st_call call, int64_t offset, ssize_t result)
{
    st_self.reads++;
    if (!c)
        return;
    st_trace_read(c, call, offset, result);
    uint64_t again = st_record_read_counts(f, c, cc, offset, result);
    st_trace_reread(again); /* a macro: its argument is evaluated only when tracing */
}

void st_record_fstat(struct st_tally *c, enum st_call call)
{
    if (!c)
        return;
    st_trace_fstat(c, call);
    struct st_call_cost *cc = st_tally_cost(c, call);
    st_record_add(&c->fstat_syscalls, cc ? &cc->fstat_syscalls : NULL, 1);
}

void st_record_write_at(struct st_file *f, struct st_tally *c, struct st_call_cost *cc,
                        enum st_call call, int64_t offset, ssize_t result)
{
    st_trace_write_at(c, call, offset, result);
    st_record_write_counts(c, cc, result);
}

void st_record_flush(struct st_tally *c, int cause)
{
    if (!c)
        return;
    st_trace_flush_cause(c, cause);
    st_add(st_flush_counter(c, cause), 1);
}

/* The file fd names. One seektrace has not met yet is named now, as a
 * read anywhere else would name it, but not entered in the fd table: the
 * handler's own close, if it makes one, is not seen, and would leave the
 * number naming the file. NULL only when the name's record cannot be made
 * without waiting on this thread's own bookkeeping (registry_lock.h). */
static struct st_handler_counts *handler_counts(int fd)
{
    const struct st_fd *e = st_fd_peek(fd);
    struct st_file *f = e ? e->file : fd >= 0 ? st_file_of_fd(fd) : NULL;
    return f ? &f->in_handler : NULL;
}

/* Always atomic: a second signal may interrupt the first handler's add. */
void st_record_handler_read(int fd, ssize_t result)
{
    struct st_handler_counts *h = handler_counts(fd);
    if (!h)
        return;
    __atomic_fetch_add(&h->read_syscalls, 1, __ATOMIC_RELAXED);
    if (result > 0)
        __atomic_fetch_add(&h->kernel_read_bytes, (uint64_t)result, __ATOMIC_RELAXED);
}

void st_record_handler_write(int fd, ssize_t result)
{
    struct st_handler_counts *h = handler_counts(fd);
    if (!h)
        return;
    __atomic_fetch_add(&h->write_syscalls, 1, __ATOMIC_RELAXED);
    if (result > 0)
        __atomic_fetch_add(&h->kernel_write_bytes, (uint64_t)result, __ATOMIC_RELAXED);
}

void st_record_handler_lseek(int fd)
{
    struct st_handler_counts *h = handler_counts(fd);
    if (h)
        __atomic_fetch_add(&h->lseek_syscalls, 1, __ATOMIC_RELAXED);
}

void st_record_handler_totals(const struct st_file *f, struct st_counts *sum)
{
    sum->read_syscalls += __atomic_load_n(&f->in_handler.read_syscalls, __ATOMIC_RELAXED);
    sum->kernel_read_bytes += __atomic_load_n(&f->in_handler.kernel_read_bytes, __ATOMIC_RELAXED);
    sum->lseek_syscalls += __atomic_load_n(&f->in_handler.lseek_syscalls, __ATOMIC_RELAXED);
    sum->write_syscalls += __atomic_load_n(&f->in_handler.write_syscalls, __ATOMIC_RELAXED);
    sum->kernel_write_bytes +=
        __atomic_load_n(&f->in_handler.kernel_write_bytes, __ATOMIC_RELAXED);
}
