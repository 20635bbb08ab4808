/* loaded_object.c — see loaded_object.h. */
#define _GNU_SOURCE 1
#include "loaded_object.h"

#include <string.h>

struct query {
    uintptr_t addr;
    struct st_loaded_object found;
};

static int holds(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct query *q = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && q->addr - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz) {
            q->found = (struct st_loaded_object){info->dlpi_addr, info->dlpi_name,
                                                 info->dlpi_phdr, info->dlpi_phnum};
            return 1;
        }
    }
    return 0;
}

int st_loaded_object(uintptr_t addr, struct st_loaded_object *out)
{
    struct query q = {.addr = addr};
    if (!dl_iterate_phdr(holds, &q))
        return 0;
    *out = q.found;
    return 1;
}

/* The dynamic section as it is in memory. glibc relocates its pointers in
 * place where the section is writable (x86-64 and most others) and leaves
 * them as offsets where it is not: an offset is below the load address. */
static uintptr_t dynamic_ptr(const struct st_loaded_object *o, uintptr_t ptr)
{
    return ptr < o->base ? o->base + ptr : ptr;
}

struct dynsym {
    const ElfW(Sym) *sym;
    const char *str;
    const uint32_t *gnu_hash;
};

static int find_dynsym(const struct st_loaded_object *o, struct dynsym *d)
{
    *d = (struct dynsym){0};
    for (int i = 0; i < o->phnum; i++) {
        if (o->phdr[i].p_type != PT_DYNAMIC)
            continue;
        for (const ElfW(Dyn) *dyn = (const void *)(o->base + o->phdr[i].p_vaddr);
             dyn->d_tag != DT_NULL; dyn++) {
            if (dyn->d_tag == DT_SYMTAB)
                d->sym = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
            else if (dyn->d_tag == DT_STRTAB)
                d->str = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
            else if (dyn->d_tag == DT_GNU_HASH)
                d->gnu_hash = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
        }
    }
    return d->sym && d->str && d->gnu_hash;
}

static uint32_t gnu_hash(const char *name)
{
    uint32_t h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = h * 33 + *c;
    return h;
}

/* The GNU hash table: nbuckets, symoffset, bloom words, bloom shift, the
 * bloom filter, the buckets, then one hash per symbol from symoffset on,
 * its low bit set on the last symbol of a bucket's chain. The bloom filter
 * is only a shortcut for misses and is not consulted. */
int st_loaded_object_exports_at(const struct st_loaded_object *o, const char *name, uintptr_t addr)
{
    struct dynsym d;
    if (!find_dynsym(o, &d))
        return 0;
    uint32_t nbuckets = d.gnu_hash[0], symoffset = d.gnu_hash[1], bloom_words = d.gnu_hash[2];
    if (!nbuckets)
        return 0;
    const uint32_t *buckets = d.gnu_hash + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name);
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset)
        return 0;
    for (;; i++) {
        uint32_t hi = chain[i - symoffset];
        const ElfW(Sym) *s = &d.sym[i];
        if ((hi | 1) == (h | 1) && s->st_shndx != SHN_UNDEF &&
            ELF64_ST_TYPE(s->st_info) == STT_FUNC && strcmp(d.str + s->st_name, name) == 0 &&
            addr - (o->base + s->st_value) < s->st_size)
            return 1;
        if (hi & 1)
            return 0;
    }
}
