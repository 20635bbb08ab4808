/* dynsym.h — a loaded object's dynamic symbols, read in place through its
 * GNU hash table.
 *
 * What dlsym finds, for a caller that knows which object to ask: a lookup
 * costs ~200 instructions where a dlsym costs ~900 (its lock, its error
 * catching, the search of every object before the one that answers), and
 * start-up makes dozens. Where a table cannot answer exactly as dlsym
 * would (no GNU hash table, an IFUNC, a name under two default versions),
 * it says so and the caller asks dlsym. */
#ifndef SEEKTRACE_DYNSYM_H
#define SEEKTRACE_DYNSYM_H

#include <link.h>
#include <stdint.h>

struct st_symbols {
    uintptr_t base; /* load bias: run-time address = base + st_value */
    const ElfW(Sym) *sym;
    const char *str;
    const uint32_t *gnu_hash;
    const ElfW(Versym) *versym; /* NULL: the object has no symbol versions */
    int audit;                  /* it names audit libraries (DT_AUDIT, DT_DEPAUDIT) */
};

/* Reads the dynamic section of the object loaded at base with these
 * program headers: 1 when it has a GNU hash table, else 0. */
int st_symbols_of(uintptr_t base, const ElfW(Phdr) *phdr, int phnum, struct st_symbols *t);

/* The same from the dynamic section itself (a link_map's l_addr, l_ld). */
int st_symbols_of_dynamic(uintptr_t base, const ElfW(Dyn) *dynamic, struct st_symbols *t);

/* The first symbol named `name` the object defines that want(t, symbol,
 * arg) accepts, or NULL. */
typedef int st_symbol_wanted(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg);
const ElfW(Sym) *st_symbols_find(const struct st_symbols *t, const char *name,
                                 st_symbol_wanted *want, const void *arg);

/* The address of the object's definition of `name` as dlsym would take it
 * from this object (its default version, the only one not hidden); 0 when
 * it has none, or one dlsym would treat otherwise (an IFUNC, whose address
 * is its resolver's answer; two default versions; a local or unique
 * binding): ask dlsym then. */
uintptr_t st_symbols_lookup(const struct st_symbols *t, const char *name);

/* 0 only when the object certainly defines no symbol named `name` (its
 * bloom filter or its hash chain says so): a search that passes over it
 * cannot stop there. */
int st_symbols_may_define(const struct st_symbols *t, const char *name);

#endif
