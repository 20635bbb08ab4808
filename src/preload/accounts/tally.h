/* tally.h — the counts one cell (cells.h) keeps while the program runs.
 *
 * The same figures as struct st_counts, kept sparse. st_counts has a cost
 * record for every call kind (1,792 of its 1,912 bytes); a cell, the counts
 * of one owner at one call site, almost always sees one or two kinds: the
 * call made there and, for a stream, the refills charged to it. A program
 * that opens 20,000 files has two cells a file (the open's site and the
 * read's), and full records made 85 % of what seektrace kept per file
 * (docs/benchmarks.md). So a tally keeps two cost records inline, each
 * claimed by the first kind that needs it, and takes a full array from the
 * arena only when a third kind comes: 248 bytes instead of 1,912.
 *
 * Counters are updated with st_add (sync.h) like any others; claiming a
 * record is a compare-and-swap, so two threads counting on one cell agree
 * on where each kind lives. A claim is never undone: zeroing a tally zeroes
 * its values and keeps which record holds which kind. */
#ifndef SEEKTRACE_TALLY_H
#define SEEKTRACE_TALLY_H

#include "counts.h"
#include "sync.h"

#define ST_TALLY_INLINE 2

struct st_tally {
#define COUNT_FIELD(name, id) uint64_t name;
#include "counts_fields.def"
#undef COUNT_FIELD
    /* kinds[i]: 1 + the call kind cost[i] counts, 0 while unclaimed. */
    unsigned char kinds[ST_TALLY_INLINE];
    struct st_call_cost cost[ST_TALLY_INLINE];
    /* By call kind, for the kinds past the inline ones; NULL until needed. */
    struct st_call_cost *more;
};

/* Where t counts `call`: claimed now if need be. NULL only when a third
 * kind finds the arena exhausted (that kind's costs are then not kept;
 * the scalar counts still are). */
struct st_call_cost *st_tally_cost_slow(struct st_tally *t, enum st_call call);
_Static_assert(ST_TALLY_INLINE == 2, "st_tally_cost checks the inline kinds one by one");
static inline struct st_call_cost *st_tally_cost(struct st_tally *t, enum st_call call)
{
    unsigned char k = (unsigned char)(call + 1);
    if (__builtin_expect(__atomic_load_n(&t->kinds[0], __ATOMIC_RELAXED) == k, 1))
        return &t->cost[0];
    if (__atomic_load_n(&t->kinds[1], __ATOMIC_RELAXED) == k)
        return &t->cost[1];
    return st_tally_cost_slow(t, call);
}

/* One more call of kind `call` on t; returns where t counts that kind
 * (st_tally_cost), for the syscalls the call makes. */
static inline struct st_call_cost *st_tally_count_call(struct st_tally *t, enum st_call call)
{
    struct st_call_cost *cc = st_tally_cost(t, call);
    if (cc)
        st_add(&cc->calls, 1);
    return cc;
}

/* sum += t, field by field, into the full record. */
void st_tally_total(const struct st_tally *t, struct st_counts *sum);

/* to += from, then from = 0 (a closed stream's counts folded into
 * another's: streams.c). -1, with nothing moved, when `to` has no room for
 * one of from's kinds (the arena is exhausted). */
int st_tally_move(struct st_tally *to, struct st_tally *from);

/* Every value back to zero, word by word (other threads may be counting
 * meanwhile: a failed exec's reset). */
void st_tally_zero(struct st_tally *t);

/* Whether any value is not zero. */
int st_tally_any(const struct st_tally *t);

#endif
