/* hash_chains.h — the registries' hash tables: files by name, sites by
 * stack, cells by (owner, site), streams by FILE*.
 *
 * Entries are found without a lock and added under the registry lock
 * (registry_lock.h); each entry carries the link of its chain, a
 * `void *hash_next` at the offset the table is told.
 *
 * A table starts with ST_CHAINS_FIRST buckets of its own and, each time it
 * holds as many entries as it has buckets, moves to eight times as many
 * (from the arena), up to the size it was given. Why: the first touch of
 * each page of buckets costs a page fault (bulk.h), and a hash spreads a
 * table's entries over all of its pages, so a table sized for a large
 * program would cost a small one a fault per entry. A look-up that runs
 * while its table moves may miss an entry that is there. Callers look
 * again under the lock before adding, as they must anyway, and find it
 * then. */
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
    struct st_chain_level first, larger[4];
    unsigned max_buckets;                 /* a power of two */
    size_t link;                          /* offsetof(entry, hash_next) */
    unsigned (*hash)(const void *entry);  /* what it was added under */
    unsigned count;
    int nlarger;
};

/* A table `self` of at most max_buckets buckets (a power of two), whose
 * first ST_CHAINS_FIRST are first_buckets, of entries of `type`, hashed
 * again by hash_fn when the table moves. */
#define ST_CHAINS_INIT(self, first_buckets, max_buckets_, type, hash_fn)             \
    {.current = &(self).first,                                                       \
     .first = {first_buckets, ST_CHAINS_FIRST - 1},                                  \
     .max_buckets = max_buckets_,                                                    \
     .link = offsetof(type, hash_next),                                              \
     .hash = hash_fn}

/* Defines the table `name`, with first buckets of its own. */
#define ST_CHAINS_DEFINE(name, max_buckets, type, hash_fn)                           \
    static void *name##_first_buckets[ST_CHAINS_FIRST];                              \
    static struct st_chains name =                                                   \
        ST_CHAINS_INIT(name, name##_first_buckets, max_buckets, type, hash_fn)

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

/* Takes entry, added under `hash`, out of its chain. Only while the process
 * has one thread and the caller holds the registry lock: a reader walking
 * the chain meanwhile could follow the entry's link wherever its next use
 * puts it. */
void st_chains_remove(struct st_chains *t, unsigned hash, void *entry);

#endif
