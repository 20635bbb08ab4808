/* counts_packed.c — see counts_packed.h. */
#include "counts_packed.h"

#include <stdlib.h>
#include <string.h>

#include "tool.h"

_Static_assert(offsetof(struct st_counts, by_call) + sizeof(((struct st_counts *)0)->by_call) ==
                   sizeof(struct st_counts),
               "by_call ends struct st_counts");

static int any_cost(const struct st_call_cost *c)
{
    static const struct st_call_cost zero;
    return memcmp(c, &zero, sizeof zero) != 0;
}

void counts_packed_add(struct counts_packed *p, const struct st_counts *c)
{
    /* Nothing but uint64_t fields (counts.c adds them so too). */
    const uint64_t *s = (const uint64_t *)c;
    for (size_t i = 0; i < COUNTS_SCALARS; i++)
        p->scalar[i] += s[i];
    for (unsigned k = 0; k < ST_CALL_COUNT; k++) {
        if (!any_cost(&c->by_call[k]))
            continue;
        size_t i = 0;
        while (i < p->ncalls && p->calls[i].call != k)
            i++;
        if (i == p->ncalls) {
            struct counts_call *grown = realloc(p->calls, (p->ncalls + 1) * sizeof *grown);
            if (!grown)
                tool_bad_input("out of memory");
            p->calls = grown;
            memset(&p->calls[i], 0, sizeof p->calls[i]);
            p->calls[i].call = k;
            p->ncalls++;
        }
        uint64_t *sum = (uint64_t *)&p->calls[i].cost;
        const uint64_t *part = (const uint64_t *)&c->by_call[k];
        for (size_t f = 0; f < ST_CALL_COST_FIELDS; f++)
            sum[f] += part[f];
    }
}

void counts_packed_get(const struct counts_packed *p, struct st_counts *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out, p->scalar, sizeof p->scalar);
    for (size_t i = 0; i < p->ncalls; i++)
        out->by_call[p->calls[i].call] = p->calls[i].cost;
}

void counts_packed_free(struct counts_packed *p)
{
    free(p->calls);
    memset(p, 0, sizeof *p);
}
