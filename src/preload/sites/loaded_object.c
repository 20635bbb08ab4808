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

int st_loaded_object_symbols(const struct st_loaded_object *o, struct st_symbols *t)
{
    *t = (struct st_symbols){.base = o->base};
    for (int i = 0; i < o->phnum; i++) {
        if (o->phdr[i].p_type != PT_DYNAMIC)
            continue;
        for (const ElfW(Dyn) *dyn = (const void *)(o->base + o->phdr[i].p_vaddr);
             dyn->d_tag != DT_NULL; dyn++) {
            if (dyn->d_tag == DT_SYMTAB)
                t->sym = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
            else if (dyn->d_tag == DT_STRTAB)
                t->str = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
            else if (dyn->d_tag == DT_GNU_HASH)
                t->gnu_hash = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
            else if (dyn->d_tag == DT_VERSYM)
                t->versym = (const void *)dynamic_ptr(o, dyn->d_un.d_ptr);
        }
    }
    return t->sym && t->str && t->gnu_hash;
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
 * is only a shortcut for misses and is not consulted. Returns the first
 * defined symbol named `name` that want(t, symbol, arg) accepts, or NULL. */
typedef int wanted_fn(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg);
static const ElfW(Sym) *find_named(const struct st_symbols *t, const char *name, wanted_fn *want,
                                   const void *arg)
{
    uint32_t nbuckets = t->gnu_hash[0], symoffset = t->gnu_hash[1], bloom_words = t->gnu_hash[2];
    if (!nbuckets)
        return NULL;
    const uint32_t *buckets = t->gnu_hash + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name);
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset)
        return NULL;
    for (;; i++) {
        uint32_t hi = chain[i - symoffset];
        const ElfW(Sym) *s = &t->sym[i];
        if ((hi | 1) == (h | 1) && s->st_shndx != SHN_UNDEF &&
            strcmp(t->str + s->st_name, name) == 0 && want(t, s, arg))
            return s;
        if (hi & 1)
            return NULL;
    }
}

static int function_at(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg)
{
    uintptr_t addr = *(const uintptr_t *)arg;
    return ELF64_ST_TYPE(s->st_info) == STT_FUNC && addr - (t->base + s->st_value) < s->st_size;
}

int st_loaded_object_exports_at(const struct st_loaded_object *o, const char *name, uintptr_t addr)
{
    struct st_symbols t;
    return st_loaded_object_symbols(o, &t) && find_named(&t, name, function_at, &addr) != NULL;
}

/* What dlsym takes for a name without a version: a symbol of a version
 * that is not hidden (the default one), of a kind whose address is its
 * value (an IFUNC's is what its resolver returns: left to dlsym). */
static int default_version(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg)
{
    (void)arg;
    int type = ELF64_ST_TYPE(s->st_info);
    if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
        return 0;
    if (s->st_shndx == SHN_ABS || s->st_value == 0)
        return 0;
    if (!t->versym)
        return 1;
    ElfW(Versym) v = t->versym[s - t->sym];
    return (v & 0x8000) == 0 && (v & 0x7fff) != VER_NDX_LOCAL;
}

uintptr_t st_symbols_lookup(const struct st_symbols *t, const char *name)
{
    const ElfW(Sym) *s = find_named(t, name, default_version, NULL);
    return s ? t->base + s->st_value : 0;
}
