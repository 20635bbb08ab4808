/* lifecycle.c — the process's life: start-up of the pieces below, and a
 * fork child's accounts emptied. See lifecycle.h. The descriptors a report
 * may use, and which process owns the accounts, are rt/own_fds.c's. */
#define _GNU_SOURCE 1
#include "lifecycle.h"

#include "attribution.h"
#include "cells.h"
#include "config.h"
#include "exit_report.h"
#include "files.h"
#include "fold.h"
#include "ledger.h"
#include "own_fds.h"
#include "registry_lock.h"
#include "streams.h"
#include "thread_state.h"

void st_lifecycle_init(void)
{
    st_own_fds_init(st_config.output_fd);
    st_detach_init();
    st_signals_init();
}

void st_lifecycle_child(void)
{
    /* A signal handler meanwhile meets the accounts half emptied: busy, it
     * only counts (record.h). */
    st_self.busy++;
    st_lock_reset_in_child(&st_registry);
    st_streams_fork_child();
    st_cells_new_epoch();
    st_pairs_forget();
    st_files_reset();
    st_fold_reset();
    st_streams_settle_marks();
    st_report_reset_in_child();
    st_own_fds_child();
    st_self.busy--;
}
