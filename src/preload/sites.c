/* sites.c — see sites.h. */
#define _GNU_SOURCE 1
#include "sites.h"

#include <dlfcn.h>
#include <unwind.h>
#include <link.h>
#include <string.h>

#include "arena.h"
#include "registry_lock.h"

#define BUCKETS 4096
#define MAX_RUNTIME 16

struct range {
    uintptr_t start, end;
};

static int depth;
static struct range runtime[MAX_RUNTIME];
static int nruntime;
static struct st_site *buckets[BUCKETS];
static struct st_site *all_sites;

/* The objects whose frames are never "the program's line". */
static int is_runtime_name(const char *path)
{
    static const char *const names[] = {"/libc.so", "/ld-linux", "/libstdc++.so", "/libgcc_s.so",
                                        "/libpthread.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(path, names[i]))
            return 1;
    return 0;
}

static int collect_runtime(struct dl_phdr_info *info, size_t size, void *self_base)
{
    (void)size;
    int ours = info->dlpi_addr == (uintptr_t)self_base;
    if (!ours && !(info->dlpi_name && is_runtime_name(info->dlpi_name)))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nruntime < MAX_RUNTIME; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            runtime[nruntime].start = info->dlpi_addr + ph->p_vaddr;
            runtime[nruntime].end = runtime[nruntime].start + ph->p_memsz;
            nruntime++;
        }
    }
    return 0;
}

void st_sites_init(int d)
{
    depth = d < 0 ? 0 : d > ST_MAX_FRAMES ? ST_MAX_FRAMES : d;
    if (!depth)
        return;
    Dl_info self;
    void *self_base = dladdr((void *)st_sites_init, &self) ? self.dli_fbase : NULL;
    dl_iterate_phdr(collect_runtime, self_base);
}

static int is_runtime(uintptr_t pc)
{
    for (int i = 0; i < nruntime; i++)
        if (pc >= runtime[i].start && pc < runtime[i].end)
            return 1;
    return 0;
}

static unsigned hash_frames(const uintptr_t *frames, int n)
{
    uint64_t h = 0;
    for (int i = 0; i < n; i++)
        h = (h ^ frames[i]) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 52) & (BUCKETS - 1);
}

static struct st_site *lookup(const uintptr_t *frames, int n, unsigned h)
{
    for (struct st_site *s = __atomic_load_n(&buckets[h], __ATOMIC_ACQUIRE); s; s = s->next_hash)
        if (s->nframes == n && memcmp(s->frames, frames, (size_t)n * sizeof *frames) == 0)
            return s;
    return NULL;
}

/* frames: the stack from the site outwards (frames[0] is the site); a site
 * is the whole recorded stack, so two callers of one line stay apart. */
static struct st_site *intern(const uintptr_t *frames, int n)
{
    if (n > depth)
        n = depth;
    unsigned h = hash_frames(frames, n);
    struct st_site *s = lookup(frames, n, h);
    if (s)
        return s;
    st_registry_lock();
    s = lookup(frames, n, h);
    if (!s && (s = st_alloc(sizeof *s)) != NULL) {
        s->pc = frames[0];
        s->nframes = n;
        memcpy(s->frames, frames, (size_t)n * sizeof *frames);
        s->next_hash = buckets[h];
        s->next_all = all_sites;
        __atomic_store_n(&buckets[h], s, __ATOMIC_RELEASE);
        __atomic_store_n(&all_sites, s, __ATOMIC_RELEASE);
    }
    st_registry_unlock();
    return s;
}

/* One walk up the stack: skips frames until `from` (when given), then the
 * runtime's; keeps the first frame outside the runtime and the callers above
 * it that are not the runtime's (libc's start-up code above main, qsort
 * between a comparator and its caller), and stops as soon as it has `want`:
 * the rest of the stack is never unwound. */
struct walk {
    uintptr_t *out;
    int n, want, visited;
    uintptr_t from;
};

#define MAX_WALK 64

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct walk *w = arg;
    uintptr_t pc = (uintptr_t)_Unwind_GetIP(ctx);
    if (++w->visited > MAX_WALK)
        return _URC_END_OF_STACK;
    if (w->n == 0) {
        if (w->from && pc == w->from)
            w->from = 0; /* the caller we were told about: look from here */
        if (w->from || is_runtime(pc))
            return _URC_NO_REASON;
    } else if (!pc || is_runtime(pc)) {
        return _URC_NO_REASON;
    }
    w->out[w->n++] = pc;
    return w->n >= w->want ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* libgcc's unwinder (the one glibc's backtrace() uses), not libunwind:
 * libunwind 1.6 validates addresses through a pipe it opens in the process,
 * which takes two descriptors the program would see and shows in strace as
 * reads and writes of ours. This one only reads .eh_frame.
 * Fills frames with the site and its callers; -1 if no frame outside the
 * runtime was found (at or after `from`, a known return address). */
static int unwind(uintptr_t *frames, int *n, uintptr_t from)
{
    struct walk w = {frames, 0, depth < 1 ? 1 : depth, 0, from};
    _Unwind_Backtrace(walk_frame, &w);
    if (w.n == 0)
        return -1;
    *n = w.n;
    return 0;
}

struct st_site *st_site_here(void)
{
    if (!depth)
        return NULL;
    uintptr_t frames[ST_MAX_FRAMES];
    int n;
    if (unwind(frames, &n, 0) != 0)
        return NULL;
    return intern(frames, n);
}

struct st_site *st_site_from_caller(void *ra)
{
    uintptr_t pc = (uintptr_t)ra;
    if (!depth)
        return NULL;
    if (is_runtime(pc))
        return st_site_here();
    uintptr_t frames[ST_MAX_FRAMES] = {pc};
    int n = 1;
    /* Callers above the site cost an unwind per call: only when asked. */
    if (depth > 1 && unwind(frames, &n, pc) != 0) {
        frames[0] = pc;
        n = 1;
    }
    return intern(frames, n);
}

int st_sites_depth(void)
{
    return depth;
}

struct st_site *st_sites_first(void)
{
    return __atomic_load_n(&all_sites, __ATOMIC_ACQUIRE);
}
