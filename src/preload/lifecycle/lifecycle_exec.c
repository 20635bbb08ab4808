/* lifecycle_exec.c — what the exec family does around the real call (the
 * wrappers, and _Fork's, are wrap/wrap_process.c's).
 *
 * execve replaces the process image and with it every account this library
 * holds, so each exec function writes the old image's report first (when
 * it recorded anything) and then calls the real one. If the exec fails the
 * program goes on: the accounts start again from zero so that, summed, the
 * report already written and the one written at exit count every syscall
 * once. In a vfork child (same memory as the parent, which is suspended)
 * nothing is written or reset: the accounts are the parent's.
 *
 * glibc's own execs (posix_spawn, system, popen, and execvp's PATH walk)
 * call the syscall internally and never come here: posix_spawn's child is
 * a CLONE_VM child exactly like a vfork child, so that is what we want.
 *
 * _Fork (glibc 2.34) forks without running atfork handlers: its wrapper
 * makes the child the owner of its accounts (st_lifecycle_child). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "cells.h"
#include "ensure_init.h"
#include "exit_report.h"
#include "files.h"
#include "fold.h"
#include "lifecycle.h"
#include "streams.h"

static int cells_any_activity(const struct st_cell *c)
{
    for (; c; c = c->next_of_owner) {
        const struct st_tally *live = st_cell_live(c);
        if (live && st_tally_any(live))
            return 1;
    }
    return 0;
}

/* Whether this image recorded anything a report would show. */
static int recorded_anything(void)
{
    for (struct st_file *f = st_files_first(); f; f = f->next_all) {
        if (cells_any_activity(__atomic_load_n(&f->direct_cells, __ATOMIC_ACQUIRE)) ||
            __atomic_load_n(&f->in_handler.read_syscalls, __ATOMIC_RELAXED) ||
            __atomic_load_n(&f->in_handler.lseek_syscalls, __ATOMIC_RELAXED) ||
            __atomic_load_n(&f->in_handler.write_syscalls, __ATOMIC_RELAXED))
            return 1;
        for (struct st_stream *s = f->streams; s; s = s->next_in_file)
            if (cells_any_activity(__atomic_load_n(&s->cells, __ATOMIC_ACQUIRE)))
                return 1;
    }
    return 0;
}

int st_lifecycle_exec_begins(void)
{
    st_ensure_init();
    if (!st_lifecycle_is_owner() || !recorded_anything())
        return 0;
    st_report_at_exit();
    return 1;
}

void st_lifecycle_exec_failed(int reported)
{
    if (!reported)
        return;
    int e = errno;
    st_files_zero_counts();
    st_fold_reset();
    st_report_reset_in_child(); /* the next report is a new one */
    errno = e;
}
