/* arena.c — see arena.h. */
#include "arena.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK (1u << 20)

struct chunk {
    char *base;
    size_t used; /* advanced with compare-and-swap */
    size_t size;
};

static struct chunk *current;
static size_t mapped;

static struct chunk *new_chunk(size_t want)
{
    size_t size = want + sizeof(struct chunk) + 64 > CHUNK
                      ? (want + sizeof(struct chunk) + 4095 + 64) & ~(size_t)4095
                      : CHUNK;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
         * only wastes the mapping; the winner's chunk is used. */
        struct chunk *n = new_chunk(size);
        if (!n)
            return NULL;
        if (size > CHUNK / 2) {
            n->used = size; /* a big block gets a chunk of its own */
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
