/* hash_chains.h — the registries' hash tables: files by name, sites by
 * stack, cells by (owner, site).
 *
 * Entries are found without a lock and added under the registry lock
 * (registry_lock.h); each entry carries the link of its chain, a
 * `void *hash_next` at the offset the table is told.
 *
 * A table starts with ST_CHAINS_FIRST buckets and moves, once, to its full
 * size when it holds as many entries. Why: the first touch of each page of
 * buckets costs a page fault (bulk.h), and a hash spreads a process's
 * first few files, sites and cells over as many pages of a full-sized
 * table; the small ones share a page. A look-up that runs while its table
 * moves may miss an entry that is there. Callers look again under the lock
 * before adding, as they must anyway, and find it then. */
#ifndef SEEKTRACE_HASH_CHAINS_H
#define SEEKTRACE_HASH_CHAINS_H

#include <stddef.h>

#define ST_CHAINS_FIRST 64

struct st_chain_level {
    void **buckets;
    unsigned mask;
};

struct st_chains {
    struct st_chain_level *current;
    struct st_chain_level first, full;
    size_t link;                          /* offsetof(entry, hash_next) */
    unsigned (*hash)(const void *entry);  /* what it was added under */
    unsigned count;
};

/* A table `self` whose full size is the array full_buckets (best ST_BULK),
 * of entries of `type`, hashed again by hash_fn when the table moves. */
#define ST_CHAINS_INIT(self, first_buckets, full_buckets, type, hash_fn)             \
    {&(self).first,                                                                  \
     {first_buckets, ST_CHAINS_FIRST - 1},                                           \
     {full_buckets, sizeof full_buckets / sizeof *full_buckets - 1},                 \
     offsetof(type, hash_next),                                                      \
     hash_fn,                                                                        \
     0}

/* The first entry of the chain `hash` falls in; NULL for none. */
static inline void *st_chains_first(struct st_chains *t, unsigned hash)
{
    const struct st_chain_level *l = __atomic_load_n(&t->current, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&l->buckets[hash & l->mask], __ATOMIC_ACQUIRE);
}

/* The entry after `entry` in its chain. */
static inline void *st_chains_next(const struct st_chains *t, const void *entry)
{
    return __atomic_load_n((void *const *)((const char *)entry + t->link), __ATOMIC_ACQUIRE);
}

/* Adds entry under `hash`, which must be t->hash(entry). The caller holds
 * the registry lock and has made sure the entry is not there. */
void st_chains_add(struct st_chains *t, unsigned hash, void *entry);

#endif
