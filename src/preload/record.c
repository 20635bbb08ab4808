/* record.c — see record.h. */
#include "record.h"

#include "files.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_writer.h"

enum st_call st_charge(enum st_call fallback)
{
    return st_self.in_call ? st_self.call : fallback;
}

void st_record_read(struct st_file *f, struct st_counts *c, enum st_call call,
                    int64_t offset, ssize_t result)
{
    st_self.reads++;
    if (!c)
        return;
    st_trace_read(f, c, call, offset, result);
    st_add(&c->read_syscalls, 1);
    st_add(&c->by_call[call].read_syscalls, 1);
    if (result <= 0)
        return;
    st_add(&c->kernel_read_bytes, (uint64_t)result);
    st_add(&c->by_call[call].kernel_read_bytes, (uint64_t)result);
    if (f && offset >= 0) {
        uint64_t again = st_file_note_range(f, (uint64_t)offset, (uint64_t)result);
        st_trace_reread(again);
        if (again)
            st_add(&c->reread_bytes, again);
    }
}

void st_record_lseek(struct st_counts *c, enum st_call call)
{
    st_self.lseeks++;
    if (!c)
        return;
    st_add(&c->lseek_syscalls, 1);
    st_add(&c->by_call[call].lseek_syscalls, 1);
}

void st_record_fstat(struct st_counts *c, enum st_call call)
{
    if (!c)
        return;
    st_trace_fstat(c, call);
    st_add(&c->fstat_syscalls, 1);
    st_add(&c->by_call[call].fstat_syscalls, 1);
}

void st_record_write(struct st_counts *c, ssize_t result)
{
    if (!c)
        return;
    st_trace_write(c, result);
    st_add(&c->write_syscalls, 1);
    if (result > 0)
        st_add(&c->kernel_write_bytes, (uint64_t)result);
}
