/* init.c — bringing the library up inside someone else's process.
 *
 * Order matters: real functions first (everything else may call them),
 * then settings, then the stdio hook. Initialisation runs from our
 * constructor, or earlier from the first interposed call if another
 * library's constructor reads a file before ours runs. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "bulk.h"
#include "config.h"
#include "env.h"
#include "exit_report.h"
#include "infer.h"
#include "lifecycle.h"
#include "output.h"
#include "real.h"
#include "registry_lock.h"
#include "sites.h"
#include "staleness.h"
#include "stdio_hook.h"
#include "stdio_model.h"
#include "stdio_slots.h"
#include "storage.h"
#include "streams.h"
#include "symbolize.h"
#include "thread_state.h"
#include "trace_writer.h"
#include "warn.h"
#include "wrappers.h"

enum { UNINIT, INITIALISING, READY };
static int state ST_EARLY;

/* glibc's exit-time stdio cleanup begins (stdio_hook.h): what it does is
 * charged to "exit". */
static void stdio_cleanup_begins(void)
{
    st_in_exit_cleanup = 1;
}

/* ... and is over: every syscall the program's stdio will ever make has
 * been made. */
static void stdio_cleanup_ends(void)
{
    st_in_exit_cleanup = 0;
    st_report_at_exit();
}

/* The locks are held until after_fork_*, not taken: this thread's signal
 * handlers may book meanwhile (registry_lock.h). */
static void before_fork(void)
{
    st_real_resolve_before_fork();
    st_streams_fork_prepare();
    st_lock_hold_for_fork(&st_registry);
}
/* daemon's parent ends in glibc's internal _exit, out of our wrapper's
 * reach: its report is written now, before that. */
static void after_fork_parent(void)
{
    st_lock_release_after_fork(&st_registry);
    st_streams_fork_parent();
    if (st_lifecycle_in_daemon())
        st_report_at_exit();
}

/* glibc's version string (static storage in libc), or NULL for another C
 * library: looked up, so that the library still loads beside one. */
static const char *libc_version(void)
{
    const char *(*version)(void) = (const char *(*)(void))st_stdio_libc_symbol("gnu_get_libc_version");
    return version ? version() : NULL;
}

static void initialise(void)
{
    st_self.busy++;
    st_self.own_io++; /* dlsym, the hook's checks: whatever they read is ours */
    st_env_load();
    st_real_resolve();
    st_storage_start();
    st_config_load(st_trace_config_load, st_output_config_load);
    st_trace_init(); /* SEEKTRACE_TRACE */
    st_sites_init(st_config.stack);
    const char *forced = ST_ENV(SEEKTRACE_CAPTURE);
    static const char forced_reason[] = "SEEKTRACE_CAPTURE=inferred";
    const char *why = forced && strcmp(forced, "inferred") == 0
                          ? forced_reason
                          : st_stdio_hook_install(st_slot_patches, st_slot_patch_count);
    if (forced && *forced && strcmp(forced, "inferred") != 0 && strcmp(forced, "exact") != 0)
        st_warn("SEEKTRACE_CAPTURE=%s is not 'exact' or 'inferred'; using exact", forced);
    if (why) {
        st_capture_inferred = 1;
        st_staleness_streams_changed();
        if (why != forced_reason)
            st_warn("stdio syscalls will not be seen (%s); capture: inferred", why);
    }
    const char *version = libc_version();
    st_glibc_rules = st_model_glibc(version);
    st_report_set_capture(why, version);
    pthread_atfork(before_fork, after_fork_parent, st_lifecycle_child);
    st_lifecycle_init(); /* fork/exec/signal handling, after the settings */
    st_self.own_io--;
    st_self.busy--;
}

int st_init_done ST_EARLY; /* read by every entry point first (ensure_init.h) */

void st_ensure_init_slow(void)
{
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == READY)
        return;
    int expected = UNINIT;
    if (__atomic_compare_exchange_n(&state, &expected, INITIALISING, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        initialise();
        __atomic_store_n(&state, READY, __ATOMIC_RELEASE);
        __atomic_store_n(&st_init_done, 1, __ATOMIC_RELEASE);
        return;
    }
    /* Another thread is initialising; this thread's call goes through on
     * the real function meanwhile (wrappers resolve it on demand). */
}

/* glibc passes argc/argv/envp to constructors. */
__attribute__((constructor)) static void seektrace_constructor(int argc, char **argv, char **envp)
{
    (void)envp;
    st_ensure_init();
    st_report_set_argv(argc, argv);
    st_symbolize_set_argv(argv);
}

/* exit runs destructors before glibc's stdio cleanup: the report waits
 * for its end, unless that cannot be arranged. */
__attribute__((destructor)) static void seektrace_destructor(void)
{
    st_self.busy++;
    int armed = st_stdio_exit_arm(stdio_cleanup_begins, stdio_cleanup_ends);
    st_self.busy--;
    if (!armed)
        st_report_at_exit();
}
