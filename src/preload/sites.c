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
static struct st_site *_Atomic all_sites;

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

static unsigned hash_pc(uintptr_t pc)
{
    return (unsigned)((pc * 0x9E3779B97F4A7C15ull) >> 52) & (BUCKETS - 1);
}

static struct st_site *lookup(uintptr_t pc, unsigned h)
{
    for (struct st_site *s = __atomic_load_n(&buckets[h], __ATOMIC_ACQUIRE); s; s = s->next_hash)
        if (s->pc == pc)
            return s;
    return NULL;
}

/* frames: the stack from the site outwards (frames[0] is the site). */
static struct st_site *intern(const uintptr_t *frames, int n)
{
    unsigned h = hash_pc(frames[0]);
    struct st_site *s = lookup(frames[0], h);
    if (s)
        return s;
    st_registry_lock();
    s = lookup(frames[0], h);
    if (!s && (s = st_alloc(sizeof *s)) != NULL) {
        s->pc = frames[0];
        s->nframes = n < depth ? n : depth;
        memcpy(s->frames, frames, (size_t)s->nframes * sizeof *frames);
        s->next_hash = buckets[h];
        s->next_all = all_sites;
        __atomic_store_n(&buckets[h], s, __ATOMIC_RELEASE);
        __atomic_store_n(&all_sites, s, __ATOMIC_RELEASE);
    }
    st_registry_unlock();
    return s;
}

struct trace {
    void **frames;
    int n, max;
};

static _Unwind_Reason_Code collect_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct trace *t = arg;
    if (t->n >= t->max)
        return _URC_END_OF_STACK;
    t->frames[t->n++] = (void *)_Unwind_GetIP(ctx);
    return _URC_NO_REASON;
}

/* libgcc's unwinder (the one glibc's backtrace() uses), not libunwind:
 * libunwind 1.6 validates addresses through a pipe it opens in the process,
 * which takes two descriptors the program would see and shows in strace as
 * reads and writes of ours. This one only reads .eh_frame. */
static int backtrace_here(void **frames, int max)
{
    struct trace t = {frames, 0, max};
    _Unwind_Backtrace(collect_frame, &t);
    return t.n;
}

/* Unwinds and returns the index of the first frame outside the runtime
 * at or after `from` (a known return address), or -1. */
static int unwind(uintptr_t *frames, int *n, uintptr_t from)
{
    void *raw[64];
    int got = backtrace_here(raw, 64);
    int start = -1;
    for (int i = 0; i < got; i++) {
        uintptr_t pc = (uintptr_t)raw[i];
        if (from && pc == from)
            from = 0; /* found the caller we were told about; look from here */
        if (from || is_runtime(pc))
            continue;
        start = i;
        break;
    }
    if (start < 0)
        return -1;
    *n = 0;
    for (int i = start; i < got && *n < ST_MAX_FRAMES; i++)
        frames[(*n)++] = (uintptr_t)raw[i];
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
    struct st_site *s = lookup(pc, hash_pc(pc));
    if (s)
        return s;
    uintptr_t frames[ST_MAX_FRAMES] = {pc};
    int n = 1;
    if (depth > 1)
        unwind(frames, &n, pc);
    return intern(frames, n);
}

struct st_site *st_sites_first(void)
{
    return __atomic_load_n(&all_sites, __ATOMIC_ACQUIRE);
}
