/* dynsym.c — see dynsym.h. */
#define _GNU_SOURCE 1
#include "dynsym.h"

#include <string.h>

/* The dynamic section as it is in memory. glibc relocates its pointers in
 * place where the section is writable (x86-64 and most others) and leaves
 * them as offsets where it is not: an offset is below the load address. */
static uintptr_t dynamic_ptr(uintptr_t base, uintptr_t ptr)
{
    return ptr < base ? base + ptr : ptr;
}

int st_symbols_of_dynamic(uintptr_t base, const ElfW(Dyn) *dynamic, struct st_symbols *t)
{
    *t = (struct st_symbols){.base = base};
    for (const ElfW(Dyn) *dyn = dynamic; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB)
            t->sym = (const void *)dynamic_ptr(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_STRTAB)
            t->str = (const void *)dynamic_ptr(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_GNU_HASH)
            t->gnu_hash = (const void *)dynamic_ptr(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_VERSYM)
            t->versym = (const void *)dynamic_ptr(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_AUDIT || dyn->d_tag == DT_DEPAUDIT)
            t->audit = 1;
    }
    return t->sym && t->str && t->gnu_hash;
}

int st_symbols_of(uintptr_t base, const ElfW(Phdr) *phdr, int phnum, struct st_symbols *t)
{
    for (int i = 0; i < phnum; i++)
        if (phdr[i].p_type == PT_DYNAMIC)
            return st_symbols_of_dynamic(base, (const void *)(base + phdr[i].p_vaddr), t);
    return st_symbols_of_dynamic(base, NULL, t);
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
 * its low bit set on the last symbol of a bucket's chain. */
static const ElfW(Sym) *find_hashed(const struct st_symbols *t, const char *name, uint32_t h,
                                    st_symbol_wanted *want, const void *arg)
{
    uint32_t nbuckets = t->gnu_hash[0], symoffset = t->gnu_hash[1], bloom_words = t->gnu_hash[2];
    if (!nbuckets)
        return NULL;
    const uint32_t *buckets = t->gnu_hash + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
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

const ElfW(Sym) *st_symbols_find(const struct st_symbols *t, const char *name,
                                 st_symbol_wanted *want, const void *arg)
{
    return find_hashed(t, name, gnu_hash(name), want, arg);
}

static int any(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg)
{
    (void)t;
    (void)s;
    (void)arg;
    return 1;
}

int st_symbols_may_define(const struct st_symbols *t, const char *name)
{
    enum { BITS = 8 * sizeof(ElfW(Addr)) };
    uint32_t h = gnu_hash(name);
    uint32_t bloom_words = t->gnu_hash[2], shift = t->gnu_hash[3];
    if (bloom_words) {
        const ElfW(Addr) *bloom = (const void *)(t->gnu_hash + 4);
        ElfW(Addr) word = bloom[(h / BITS) % bloom_words];
        ElfW(Addr) mask = ((ElfW(Addr))1 << (h % BITS)) | ((ElfW(Addr))1 << ((h >> shift) % BITS));
        if ((word & mask) != mask)
            return 0;
    }
    return find_hashed(t, name, h, any, NULL) != NULL;
}

/* The definitions dlsym weighs when no version is asked for: every one
 * whose version is not hidden. */
struct candidates {
    int n;
    const ElfW(Sym) *first;
    int odd; /* one dlsym would take at once, or skip: ask it */
};

static int weigh(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg)
{
    struct candidates *c = (struct candidates *)arg;
    ElfW(Versym) v = t->versym ? t->versym[s - t->sym] : VER_NDX_GLOBAL;
    if (v & 0x8000)
        return 0;
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    if ((v & 0x7fff) == VER_NDX_LOCAL || s->st_shndx == SHN_ABS || s->st_value == 0 ||
        (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) ||
        (bind != STB_GLOBAL && bind != STB_WEAK))
        c->odd = 1;
    if (c->n++ == 0)
        c->first = s;
    return 0; /* all of them */
}

uintptr_t st_symbols_lookup(const struct st_symbols *t, const char *name)
{
    struct candidates c = {0, NULL, 0};
    st_symbols_find(t, name, weigh, &c);
    return c.n == 1 && !c.odd ? t->base + c.first->st_value : 0;
}
