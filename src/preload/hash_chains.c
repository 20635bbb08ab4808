/* hash_chains.c — see hash_chains.h. */
#include "hash_chains.h"

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

/* Every entry moves to the full table, then readers are sent there. A
 * reader still on the first table that follows a moved entry's link walks
 * on into the full table's chains: it may miss entries, but every link
 * leads to an entry moved before, so its walk ends. */
static void move_to_full(struct st_chains *t)
{
    for (unsigned i = 0; i <= t->first.mask; i++) {
        void *e = t->first.buckets[i];
        while (e) {
            void *next = *link_of(t, e);
            push(t, &t->full, t->hash(e), e);
            e = next;
        }
    }
    __atomic_store_n(&t->current, &t->full, __ATOMIC_RELEASE);
}

void st_chains_add(struct st_chains *t, unsigned hash, void *entry)
{
    if (t->current == &t->first && t->count > t->first.mask)
        move_to_full(t);
    push(t, t->current, hash, entry);
    t->count++;
}
