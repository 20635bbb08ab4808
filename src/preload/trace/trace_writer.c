/* trace_writer.c — see trace_writer.h; the format is in
 * include/seektrace/trace_format.h. This piece owns the writer's settings
 * and life (start, restart after fork or a failed exec), the state its
 * pieces share, and the small steps they all take when recording stops or
 * an event is lost. The pieces and the writer's shape:
 * trace_writer_internal.h. */
#define _GNU_SOURCE 1
#include "trace_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "bulk.h"
#include "config.h"
#include "env.h"
#include "proc_self.h"
#include "staleness.h"
#include "trace_clock.h"
#include "trace_writer_internal.h"
#include "units.h"
#include "warn.h"

_Static_assert(sizeof(struct st_trace_header) == ST_TRACE_FIXED_HEADER, "header layout");
_Static_assert(sizeof(struct st_trace_chunk) == ST_TRACE_CHUNK_HEADER, "chunk header layout");
_Static_assert(ST_CALL_COUNT < 255, "call kinds fit a byte");
_Static_assert(offsetof(struct st_trace_header, stop_reason) == 36, "stop_reason at byte 36");

int st_trace_on;

struct st_tw_state st_tw;
struct window st_tw_windows[MAX_WINDOWS] ST_BULK;
struct st_tw_paths st_tw_paths ST_BULK;
/* Apart from st_tw, so that st_tw stays in .bss (no initialised data to map
 * and fault in); 1, so that a thread's zeroed state starts stale too. */
unsigned st_tw_epoch = 1;
__thread struct st_tw_thread st_tw_self __attribute__((tls_model("initial-exec")));

/* ---- small helpers --------------------------------------------------- */

size_t st_tw_bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

void st_tw_copy_str(char *dst, size_t size, const char *src)
{
    size_t n = st_tw_bounded_len(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

const char *st_tw_exe(void)
{
    /* The process's file does not change, nor does a fork child's. */
    if (!st_tw_paths.exe[0]) {
        long n = st_proc_readlink("exe", st_tw_paths.exe, sizeof st_tw_paths.exe - 1);
        st_tw_paths.exe[n > 0 ? n : 0] = '\0';
    }
    return st_tw_paths.exe;
}

void st_tw_mark_live(uint32_t flag)
{
    if (st_tw.hdr)
        __atomic_fetch_or(&st_tw.hdr->live_flags, flag, __ATOMIC_RELEASE);
}

void st_tw_stop_recording(uint32_t reason)
{
    uint32_t none = ST_TRACE_STOP_NONE;
    if (st_tw.hdr)
        __atomic_compare_exchange_n(&st_tw.hdr->stop_reason, &none, reason, 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED);
}

void st_tw_lost(void)
{
    /* After the footer nothing counts: the accounts were written whole. */
    if (st_tw.hdr && !__atomic_load_n(&st_tw.finished, __ATOMIC_ACQUIRE)) {
        __atomic_fetch_add(&st_tw.hdr->events_lost, 1, __ATOMIC_RELAXED);
        st_tw_mark_live(ST_TRACE_LIVE_LOST);
    }
}

/* ---- settings and life cycle ----------------------------------------- */

#define DEFAULT_CAP (256ull << 20)
#define MIN_CAP (64ull << 10)

void st_trace_config_load(void)
{
    st_config.trace_dir = NULL;
    st_config.trace_max = DEFAULT_CAP;
    const char *v = ST_ENV(SEEKTRACE_TRACE_MAX);
    uint64_t size;
    if (v && *v) {
        if (st_parse_size(v, &size) != 0 || size < MIN_CAP)
            st_warn("SEEKTRACE_TRACE_MAX=%s is not a size of at least 64k; using 256M", v);
        else
            st_config.trace_max = size;
    }
    st_config.trace_tsc = 1;
    v = ST_ENV(SEEKTRACE_TRACE_CLOCK);
    if (v && *v) {
        if (strcmp(v, "monotonic") == 0)
            st_config.trace_tsc = 0;
        else if (strcmp(v, "auto") != 0)
            st_warn("SEEKTRACE_TRACE_CLOCK=%s is not 'auto' or 'monotonic'; using auto", v);
    }
    v = ST_ENV(SEEKTRACE_TRACE);
    if (!v || !*v)
        return;
    char dir[MAX_PATH];
    size_t n = 0;
    if (v[0] != '/') {
        /* Programs chdir; the directory is fixed now. */
        if (syscall(SYS_getcwd, dir, sizeof dir) <= 0) {
            st_warn("SEEKTRACE_TRACE=%s is relative and the working directory is unknown; "
                    "not recording", v);
            return;
        }
        n = strlen(dir);
        if (n > 1)
            dir[n++] = '/';
        else
            n = 1;
    }
    size_t len = strlen(v);
    if (n + len >= sizeof dir - 128) {
        st_warn("SEEKTRACE_TRACE is too long a path; not recording");
        return;
    }
    memcpy(dir + n, v, len + 1);
    st_config.trace_dir = st_strdup(dir);
}

/* Tracing starts or stops: the wrappers' fast entries, which know whether
 * their stream's calls are traced (wrap_stdio.c), go stale. */
void st_tw_set_on(int on)
{
    __atomic_store_n(&st_trace_on, on, __ATOMIC_RELEASE);
    st_staleness_streams_changed();
}

void st_trace_init(void)
{
    if (!st_config.trace_dir)
        return;
    st_tw_copy_str(st_tw_paths.dir, sizeof st_tw_paths.dir, st_config.trace_dir);
    st_tw.cap = st_config.trace_max;
    st_trace_clock_init(st_config.trace_tsc);
    st_tw_set_on(1);
}

void st_trace_restart(void)
{
    /* After fork the mappings are shared with the parent: never write to
     * them again. After a failed exec the old trace is finished. Either way
     * the next event starts a trace of its own. */
    if (st_tw.state == READY)
        st_tw_copy_str(st_tw_paths.parent_path, sizeof st_tw_paths.parent_path, st_tw_paths.path);
    st_tw_unmap_all();
    st_tw_ids_restart();
    st_tw_rows_restart();
    st_tw_sites_restart();
    st_tw.next_chunk = 0;
    st_tw.file_size = 0;
    st_tw.grow_lock.locked = 0;
    st_tw.finished = 0;
    __atomic_add_fetch(&st_tw_epoch, 1, __ATOMIC_ACQ_REL);
    if (st_tw.state != FAILED && st_config.trace_dir) {
        st_tw.state = IDLE;
        st_tw_set_on(1);
    }
}
