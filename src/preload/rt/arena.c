/* arena.c — see arena.h. */
#include "arena.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Chunks start small and double with what is mapped so far, up to
 * MAX_CHUNK: a program that keeps a few records costs 64 KiB of address
 * space, not a megabyte (`ulimit -v` counts every mapped byte, touched or
 * not), and one that keeps many maps a chunk per megabyte, as before. */
#define FIRST_CHUNK (64u << 10)
#define MAX_CHUNK (1u << 20)

/* Past BIG_AFTER bytes the program keeps many records (tens of thousands of
 * files), and every page we touch first costs a fault: 13-38 µs under some
 * hypervisors, ~35 µs a file for `grep -r` (docs/benchmarks.md). From then
 * on chunks are whole huge pages, and the kernel is asked to back them so
 * (one fault per 2 MiB where transparent huge pages are allowed; nothing
 * changes where they are not). Small programs never get there. */
#define HUGE_PAGE (2u << 20)
#define BIG_AFTER (8u << 20)

struct chunk {
    char *base;
    size_t used; /* advanced with compare-and-swap */
    size_t size;
};

static struct chunk *current;
static size_t mapped;

/* size bytes from a 2 MiB boundary (size a multiple of 2 MiB), which the
 * kernel may back with huge pages. */
static void *map_huge(size_t size)
{
    size_t len = size + HUGE_PAGE;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return p;
    char *a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    munmap(a + size, (size_t)(p + len - (a + size)));
    madvise(a, size, MADV_HUGEPAGE);
    return a;
}

/* The size of the next chunk to share, for `so_far` bytes mapped. */
static size_t shared_chunk_size(size_t so_far)
{
    if (so_far >= BIG_AFTER)
        return 2 * HUGE_PAGE;
    size_t size = FIRST_CHUNK;
    while (size < so_far && size < MAX_CHUNK)
        size *= 2;
    return size;
}

/* A chunk to share, or (own) one that holds just a block of `want` bytes. */
static struct chunk *new_chunk(size_t want, int own)
{
    size_t so_far = __atomic_load_n(&mapped, __ATOMIC_RELAXED);
    int big = so_far >= BIG_AFTER;
    size_t unit = big ? HUGE_PAGE : 4096;
    size_t size = own ? (want + sizeof(struct chunk) + 64 + unit - 1) & ~(unit - 1)
                      : shared_chunk_size(so_far);
    void *p = big ? map_huge(size)
                  : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    __atomic_fetch_add(&mapped, size, __ATOMIC_RELAXED);
    struct chunk *c = p;
    c->base = (char *)p + ((sizeof *c + 15) & ~(size_t)15);
    c->size = size - (size_t)(c->base - (char *)p);
    c->used = 0;
    return c;
}

void *st_alloc(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    for (;;) {
        struct chunk *c = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
        if (c) {
            size_t used = __atomic_load_n(&c->used, __ATOMIC_RELAXED);
            while (used + size <= c->size) {
                if (__atomic_compare_exchange_n(&c->used, &used, used + size, 1,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                    return c->base + used; /* fresh mmap pages are zero */
            }
        }
        /* Full (or none yet): map another. Losing the race to install it
         * only wastes the mapping; the winner's chunk is used. errno is the
         * program's: a failed mmap must not change it under a hook. */
        /* A block bigger than half the next chunk gets a chunk of its own. */
        int own = size > shared_chunk_size(__atomic_load_n(&mapped, __ATOMIC_RELAXED)) / 2;
        int e = errno;
        struct chunk *n = new_chunk(size, own);
        errno = e;
        if (!n)
            return NULL;
        if (own) {
            n->used = size;
            return n->base;
        }
        __atomic_compare_exchange_n(&current, &c, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
}

char *st_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = st_alloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

size_t st_arena_mapped(void)
{
    return __atomic_load_n(&mapped, __ATOMIC_RELAXED);
}
