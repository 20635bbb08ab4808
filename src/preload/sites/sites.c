/* sites.c — see sites.h. */
#define _GNU_SOURCE 1
#include "sites.h"

#include <unwind.h>
#include <link.h>
#include <string.h>

#include "arena.h"
#include "hash_chains.h"
#include "libc_entry.h"
#include "loaded_object.h"
#include "registry_lock.h"
#include "thread_state.h"

#define MAX_RUNTIME 16

struct range {
    uintptr_t start, end;
};

int st_site_depth;
static struct range runtime[MAX_RUNTIME];
static int nruntime;
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
    st_site_depth = d < 0 ? 0 : d > ST_MAX_FRAMES ? ST_MAX_FRAMES : d;
    if (!st_site_depth)
        return;
    struct st_loaded_object self;
    void *self_base = st_loaded_object((uintptr_t)st_sites_init, &self) ? (void *)self.base : NULL;
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
    return (unsigned)(h >> 32);
}

static unsigned hash_of_site(const void *entry)
{
    const struct st_site *s = entry;
    return hash_frames(s->frames, s->nframes);
}

ST_CHAINS_DEFINE(sites, 1u << 16, struct st_site, hash_of_site);

static struct st_site *lookup(const uintptr_t *frames, int n, unsigned h)
{
    for (struct st_site *s = st_chains_first(&sites, h); s; s = st_chains_next(&sites, s))
        if (s->nframes == n && memcmp(s->frames, frames, (size_t)n * sizeof *frames) == 0)
            return s;
    return NULL;
}

/* frames: the stack from the site outwards (frames[0] is the site); a site
 * is the whole recorded stack, so two callers of one line stay apart. */
static struct st_site *intern(const uintptr_t *frames, int n)
{
    if (n > st_site_depth)
        n = st_site_depth;
    unsigned h = hash_frames(frames, n);
    struct st_site *s = lookup(frames, n, h);
    if (s)
        return s;
    if (!st_registry_lock())
        return NULL;
    s = lookup(frames, n, h);
    if (!s && (s = st_alloc(sizeof *s)) != NULL) {
        s->pc = frames[0];
        s->nframes = n;
        s->via = ST_CALL_OTHER;
        memcpy(s->frames, frames, (size_t)n * sizeof *frames);
        s->next_all = all_sites;
        st_chains_add(&sites, h, s);
        __atomic_store_n(&all_sites, s, __ATOMIC_RELEASE);
    }
    st_registry_unlock();
    return s;
}

/* One walk up the stack: skips the runtime's frames; keeps the first frame
 * outside the runtime and the callers above it that are not the runtime's
 * (libc's start-up code above main, qsort between a comparator and its
 * caller), and stops as soon as it has `want`: the rest of the stack is
 * never unwound. */
struct walk {
    uintptr_t *out;
    int n, want, visited;
    uintptr_t entry; /* the last runtime frame below the site */
    struct chain *chain; /* when set: the walk is recorded for the cache */
    int keyed;           /* the chain's key frame has been visited */
};

#define MAX_WALK 64

/* The unwind cache.
 *
 * An unwind costs ~20,000 instructions (libgcc parses .eh_frame for every
 * frame), and a getc loop refills from the same line of the program every
 * 4 KiB, a SEEKTRACE_STACK=4 program calls fread from the same few stacks
 * again and again. So each thread remembers its last walks.
 *
 * A walk is remembered from one frame of ours up, the key frame, whose
 * canonical frame address (cfa: the stack pointer before the call that
 * made it) and return address (ra) key the entry: site_of_stack's own, or
 * a caller's that stays live meanwhile (st_site_above). In
 * _Unwind_Backtrace's callback a frame's IP is a return address and its
 * CFA the stack pointer just above it: on x86-64 the IP was read from
 * CFA - 8. The entry keeps, for every frame the walk visited above the key
 * frame, that slot's address and the return address it held. The unwinder
 * finds each frame from the IP and stack pointer of the one below it, so
 * when the key frame is at the same address with the same return address
 * and every recorded slot still holds the same return address, the stack
 * above is the same chain of calls and the walk would find the same
 * frames: the entry's site is returned without unwinding. Slots are
 * checked from the key frame up, each only once the ones below it matched,
 * so each is the live return-address slot of a frame the unwinder would
 * read too. (A frame of variable size, alloca or a VLA, between the key
 * frame and the last frame visited could in principle move its callers
 * while leaving their old slots' values in place; the frames of libc's
 * stdio and of this library have fixed sizes.) Checking an entry reads a
 * word per frame above the key: the higher the key, the fewer.
 *
 * Per thread, so no lock; busy while it is read and written, so a signal
 * handler's stdio (not recorded while busy) never sees it half written. */
#if defined(__x86_64__)
#define ST_UNWIND_CACHE 1
#define CHAIN_MAX 24
#define CACHE_WAYS 8

struct chain {
    uintptr_t cfa, ra;       /* the key */
    struct st_site *site;    /* NULL: an empty entry */
    int n;                   /* return-address slots recorded (-1: too many) */
    uint32_t off[CHAIN_MAX]; /* their addresses, less cfa */
    uintptr_t value[CHAIN_MAX];
};

static __thread struct {
    uintptr_t tag[CACHE_WAYS]; /* each entry's key_tag, 0 while empty */
    struct chain way[CACHE_WAYS];
    unsigned last, next; /* the entry that hit last; the next to replace */
} cache __attribute__((tls_model("initial-exec")));

/* A word standing for a key, never 0: a look-up compares the tags, one
 * cache line, and checks an entry's stack only where its tag matches (a
 * wrapper's fast path asks for its site on every call, and the two lines
 * of an fseek + fread loop share a frame address). */
static inline uintptr_t key_tag(uintptr_t cfa, uintptr_t ra)
{
    return (cfa ^ ra) | 1;
}

/* During a recorded walk: the key frame is the one whose return address is
 * ra, read from cfa - 8; every frame above it is recorded. */
static void record_frame(struct walk *w, uintptr_t pc, uintptr_t cfa)
{
    struct chain *c = w->chain;
    if (!w->keyed) {
        w->keyed = pc == c->ra && cfa == c->cfa;
        return;
    }
    if (c->n < 0 || pc == 0) /* pc 0: the end of the stack */
        return;
    uintptr_t slot = cfa - 8;
    if (c->n == CHAIN_MAX || slot < c->cfa || slot - c->cfa > UINT32_MAX ||
        *(const uintptr_t *)slot != pc) {
        c->n = -1; /* too long, or not the layout assumed: not cached */
        return;
    }
    c->off[c->n] = (uint32_t)(slot - c->cfa);
    c->value[c->n++] = pc;
}

static int chain_holds(const struct chain *c)
{
    for (int i = 0; i < c->n; i++)
        if (*(const volatile uintptr_t *)(c->cfa + c->off[i]) != c->value[i])
            return 0;
    return 1;
}
#endif

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct walk *w = arg;
    uintptr_t pc = (uintptr_t)_Unwind_GetIP(ctx);
    if (++w->visited > MAX_WALK)
        return _URC_END_OF_STACK;
#ifdef ST_UNWIND_CACHE
    if (w->chain)
        record_frame(w, pc, (uintptr_t)_Unwind_GetCFA(ctx));
#endif
    if (w->n == 0) {
        if (is_runtime(pc)) {
            w->entry = pc;
            return _URC_NO_REASON;
        }
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
 * The site of the current stack: its first frame outside the runtime and
 * the callers above it; NULL if there is none. When rec is given, the walk
 * is recorded into it and, if it can be, remembered. */
__attribute__((noinline)) static struct st_site *walk_stack(struct chain *rec)
{
    uintptr_t frames[ST_MAX_FRAMES];
    struct walk w = {frames, 0, st_site_depth < 1 ? 1 : st_site_depth, 0, 0, rec, 0};
    _Unwind_Backtrace(walk_frame, &w);
    struct st_site *s = w.n ? intern(frames, w.n) : NULL;
    if (s && w.entry && __atomic_load_n(&s->via, __ATOMIC_RELAXED) == ST_CALL_OTHER)
        /* On the walk's slow path: the library function the program called
         * there (libc_entry names it from libc's hash table of exports). */
        __atomic_store_n(&s->via, st_libc_entry_call(w.entry), __ATOMIC_RELAXED);
#ifdef ST_UNWIND_CACHE
    /* Remembered only when the key frame was found, the walk was recorded
     * whole and ended where the stack or the wanted frames did. */
    if (rec && s && w.keyed && rec->n >= 0 && w.visited <= MAX_WALK) {
        rec->site = s;
        cache.way[cache.next] = *rec;
        cache.tag[cache.next] = key_tag(rec->cfa, rec->ra);
        cache.last = cache.next;
        cache.next = (cache.next + 1) % CACHE_WAYS;
    }
#endif
    return s;
}

#ifdef ST_UNWIND_CACHE
static inline int chain_matches(const struct chain *c, uintptr_t cfa, uintptr_t ra)
{
    return c->cfa == cfa && c->ra == ra && c->site && chain_holds(c);
}

/* The other entries, then the walk, recorded. Out of line, so that a hit
 * on the last entry (every refill of a getc loop) saves only the registers
 * it uses, and needs no room for a record. */
__attribute__((noinline)) static struct st_site *cached_walk_rest(uintptr_t cfa, uintptr_t ra)
{
    uintptr_t tag = key_tag(cfa, ra);
    for (unsigned i = 0; i < CACHE_WAYS; i++) {
        if (cache.tag[i] == tag && chain_matches(&cache.way[i], cfa, ra)) {
            cache.last = i;
            return cache.way[i].site;
        }
    }
    struct chain rec = {.cfa = cfa, .ra = ra};
    return walk_stack(&rec);
}

/* walk_stack through the cache, keyed by a frame that stays live until
 * this returns. Entry `first` is tried first: the one that hit last (a
 * loop refills from one line), or the one a wrapper's fast entry kept.
 * Busy meanwhile (see the cache). */
static inline struct st_site *cached_walk(uintptr_t cfa, uintptr_t ra, unsigned first)
{
    st_self.busy++;
    const struct chain *c = &cache.way[first];
    struct st_site *s;
    if (chain_matches(c, cfa, ra)) {
        cache.last = first;
        s = c->site;
    } else {
        s = cached_walk_rest(cfa, ra);
    }
    st_self.busy--;
    return s;
}
#endif

/* walk_stack through the cache keyed by `key`, a frame that stays live
 * until this returns. */
static inline struct st_site *site_keyed(struct st_frame key)
{
#ifdef ST_UNWIND_CACHE
    return cached_walk((uintptr_t)key.cfa, (uintptr_t)key.ra, cache.last);
#else
    (void)key;
    return walk_stack(NULL);
#endif
}

/* Noinline: its own frame keys the cache, and stays live while walk_stack
 * records a miss. */
__attribute__((noinline)) static struct st_site *site_of_stack(void)
{
    return site_keyed(ST_FRAME_HERE);
}

struct st_site *st_site_here(void)
{
    return st_site_depth ? site_of_stack() : NULL;
}

struct st_site *st_site_above(struct st_frame key)
{
    return st_site_depth ? site_keyed(key) : NULL;
}

unsigned st_site_last_way(void)
{
#ifdef ST_UNWIND_CACHE
    return cache.last;
#else
    return 0;
#endif
}

struct st_site *st_site_above_from(struct st_frame key, unsigned way)
{
    if (!st_site_depth)
        return NULL;
#ifdef ST_UNWIND_CACHE
    return cached_walk((uintptr_t)key.cfa, (uintptr_t)key.ra, way % CACHE_WAYS);
#else
    (void)way;
    return walk_stack(NULL);
#endif
}

struct st_site *st_site_from_caller(struct st_frame caller)
{
    uintptr_t pc = (uintptr_t)caller.ra;
    if (!st_site_depth)
        return NULL;
    int runtime = is_runtime(pc);
    if (!runtime && st_site_depth == 1)
        return intern(&pc, 1);
    /* A runtime caller's site, or callers above the site: a walk up the
     * stack from the caller's frame (the key the wrappers' fast path checks
     * the site by). */
    struct st_site *s = site_keyed(caller);
    return s || runtime ? s : intern(&pc, 1);
}

struct st_site *st_sites_first(void)
{
    return __atomic_load_n(&all_sites, __ATOMIC_ACQUIRE);
}
