/* hash_chains.c — see hash_chains.h. */
#include "hash_chains.h"

#include "arena.h"

static void **link_of(const struct st_chains *t, void *entry)
{
    return (void **)((char *)entry + t->link);
}

static void push(const struct st_chains *t, struct st_chain_level *l, unsigned hash, void *entry)
{
    void **head = &l->buckets[hash & l->mask];
    __atomic_store_n(link_of(t, entry), *head, __ATOMIC_RELEASE);
    __atomic_store_n(head, entry, __ATOMIC_RELEASE);
}

/* Every entry moves to level `to`, then readers are sent there. A reader
 * still on the old level that follows a moved entry's link walks on into
 * the new level's chains: it may miss entries, but every link leads to an
 * entry moved before, so its walk ends. */
static void move(struct st_chains *t, struct st_chain_level *to)
{
    const struct st_chain_level *from = t->current;
    for (unsigned i = 0; i <= from->mask; i++) {
        void *e = from->buckets[i];
        while (e) {
            void *next = *link_of(t, e);
            push(t, to, t->hash(e), e);
            e = next;
        }
    }
    __atomic_store_n(&t->current, to, __ATOMIC_RELEASE);
}

/* Eight times the buckets, while the table may grow and the arena gives
 * them; otherwise the chains just grow longer. */
static void grow(struct st_chains *t)
{
    unsigned size = t->current->mask + 1;
    if (size >= t->max_buckets || t->nlarger == sizeof t->larger / sizeof t->larger[0])
        return;
    size = size * 8 < t->max_buckets ? size * 8 : t->max_buckets;
    void **buckets = st_alloc(size * sizeof *buckets);
    if (!buckets)
        return;
    struct st_chain_level *to = &t->larger[t->nlarger++];
    *to = (struct st_chain_level){buckets, size - 1};
    move(t, to);
}

void st_chains_add(struct st_chains *t, unsigned hash, void *entry)
{
    if (t->count > t->current->mask)
        grow(t);
    push(t, t->current, hash, entry);
    t->count++;
}

void st_chains_remove(struct st_chains *t, unsigned hash, void *entry)
{
    struct st_chain_level *l = t->current;
    for (void **at = &l->buckets[hash & l->mask]; *at; at = link_of(t, *at))
        if (*at == entry) {
            *at = *link_of(t, entry);
            *link_of(t, entry) = NULL;
            t->count--;
            return;
        }
}
