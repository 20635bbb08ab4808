/* tally.c — see tally.h. */
#include "tally.h"

#include "arena.h"
#include "sync.h"

/* The third and later kinds: one full array, shared by all of them. Its
 * allocation may race another thread's: the loser's copy is left unused
 * (the arena never frees). */
static struct st_call_cost *more_of(struct st_tally *t)
{
    struct st_call_cost *m = __atomic_load_n(&t->more, __ATOMIC_ACQUIRE);
    if (m)
        return m;
    struct st_call_cost *fresh = st_alloc(ST_CALL_COUNT * sizeof *fresh);
    if (!fresh)
        return NULL;
    if (__atomic_compare_exchange_n(&t->more, &m, fresh, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return fresh;
    return m;
}

struct st_call_cost *st_tally_cost_slow(struct st_tally *t, enum st_call call)
{
    unsigned char k = (unsigned char)(call + 1);
    for (int i = 0; i < ST_TALLY_INLINE; i++) {
        unsigned char seen = 0;
        if (__atomic_compare_exchange_n(&t->kinds[i], &seen, k, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED) ||
            seen == k)
            return &t->cost[i];
    }
    struct st_call_cost *m = more_of(t);
    return m ? &m[call] : NULL;
}

/* to += from with st_add: `to` may be a live record other threads count on. */
static void cost_add(struct st_call_cost *to, const struct st_call_cost *from)
{
#define CALL_COST_FIELD(name, k) st_add(&to->name, from->name);
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
}

static void scalars_add(struct st_counts *sum, const struct st_tally *t)
{
#define COUNT_FIELD(name, id) sum->name += t->name;
#include "counts_fields.def"
#undef COUNT_FIELD
}

void st_tally_total(const struct st_tally *t, struct st_counts *sum)
{
    scalars_add(sum, t);
    for (int i = 0; i < ST_TALLY_INLINE; i++) {
        unsigned char k = __atomic_load_n(&t->kinds[i], __ATOMIC_RELAXED);
        if (k)
            cost_add(&sum->by_call[k - 1], &t->cost[i]);
    }
    const struct st_call_cost *m = __atomic_load_n(&t->more, __ATOMIC_ACQUIRE);
    if (m)
        for (int c = 0; c < ST_CALL_COUNT; c++)
            cost_add(&sum->by_call[c], &m[c]);
}

static int cost_any(const struct st_call_cost *c)
{
    uint64_t any = 0;
#define CALL_COST_FIELD(name, k) any |= c->name;
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
    return any != 0;
}

int st_tally_move(struct st_tally *to, struct st_tally *from)
{
    struct st_counts sum = {0};
    st_tally_total(from, &sum);
    /* Every kind's place in `to` first: all of it moves, or none. */
    struct st_call_cost *dst[ST_CALL_COUNT] = {0};
    for (int c = 0; c < ST_CALL_COUNT; c++)
        if (cost_any(&sum.by_call[c]) && !(dst[c] = st_tally_cost(to, (enum st_call)c)))
            return -1;
#define COUNT_FIELD(name, id) st_add(&to->name, sum.name);
#include "counts_fields.def"
#undef COUNT_FIELD
    for (int c = 0; c < ST_CALL_COUNT; c++)
        if (dst[c])
            cost_add(dst[c], &sum.by_call[c]);
    st_tally_zero(from);
    return 0;
}

static void zero_words(void *p, size_t size)
{
    uint64_t *w = p;
    for (size_t i = 0; i < size / sizeof *w; i++)
        __atomic_store_n(&w[i], 0, __ATOMIC_RELAXED);
}

void st_tally_zero(struct st_tally *t)
{
#define COUNT_FIELD(name, id) __atomic_store_n(&t->name, 0, __ATOMIC_RELAXED);
#include "counts_fields.def"
#undef COUNT_FIELD
    zero_words(t->cost, sizeof t->cost);
    struct st_call_cost *m = __atomic_load_n(&t->more, __ATOMIC_ACQUIRE);
    if (m)
        zero_words(m, ST_CALL_COUNT * sizeof *m);
}

int st_tally_any(const struct st_tally *t)
{
    uint64_t any = 0;
#define COUNT_FIELD(name, id) any |= t->name;
#include "counts_fields.def"
#undef COUNT_FIELD
    for (int i = 0; i < ST_TALLY_INLINE; i++)
        any |= (uint64_t)cost_any(&t->cost[i]);
    const struct st_call_cost *m = __atomic_load_n(&t->more, __ATOMIC_ACQUIRE);
    for (int c = 0; m && c < ST_CALL_COUNT; c++)
        any |= (uint64_t)cost_any(&m[c]);
    return any != 0;
}
