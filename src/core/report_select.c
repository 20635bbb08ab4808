/* report_select.c — see report_select.h. */
#include "report_select.h"

#include <string.h>

#include "findings.h"

void st_report_select_init(struct st_report_select *s, struct st_rank *v, size_t rows,
                           size_t pairs, size_t findings)
{
    memset(s, 0, sizeof *s);
    s->rows = (struct st_topk){v, 0, rows};
    s->pairs = (struct st_topk){v += rows, 0, pairs};
    s->findings = (struct st_topk){v += pairs, 0, findings};
    v += findings;
    for (size_t k = 0; k < ST_HINT_RULES; k++)
        s->hints[k] = (struct st_topk){v++, 0, 1};
    s->most_read = (struct st_topk){v, 0, 1};
}

void st_report_select_offer(struct st_report_select *s, const struct st_report_file *f,
                            const void *item)
{
    s->active++;
    st_counts_add(&s->all, &f->counts);
    struct st_rank mine = st_report_rank_file(f);
    mine.item = item;
    st_topk_offer(&s->rows, &mine);
    /* The text report's candidates among the file's sites (report_text.c). */
    for (size_t k = 0; s->pairs.cap && k < f->nsites && k < ST_REPORT_TEXT_SITES; k++) {
        const struct st_counts *c = &f->sites[k].counts;
        if (!f->sites[k].nframes || !(c->read_syscalls || c->lseek_syscalls || c->write_syscalls))
            continue;
        struct st_rank pair = st_report_rank_pair(f, &f->sites[k], k);
        pair.item = item;
        st_topk_offer(&s->pairs, &pair);
    }
    if (st_file_has_findings(f))
        st_topk_offer(&s->findings, &mine);
    unsigned hints = st_file_hints(f);
    for (size_t k = 0; k < ST_HINT_RULES; k++)
        if (hints & 1u << k)
            st_topk_offer(&s->hints[k], &mine);
    /* findings.c's most_read: the most kernel bytes, the first in the
     * report's order among equals. */
    if (f->counts.kernel_read_bytes) {
        struct st_rank read = {.a = f->counts.kernel_read_bytes, .b = mine.a, .c = mine.b,
                               .name = mine.name, .item = item};
        st_topk_offer(&s->most_read, &read);
    }
}

static int by_item(const void *a, const void *b)
{
    const char *x = ((const struct st_rank *)a)->item, *y = ((const struct st_rank *)b)->item;
    return x == y ? 0 : x < y ? -1 : 1;
}

size_t st_report_select_kept(struct st_report_select *s, const void **out)
{
    /* Every heap lies in the one array init was given, in this order:
     * packed to its front, then sorted together. */
    struct st_rank *v = s->rows.v;
    size_t n = s->rows.n;
    const struct st_topk *rest[3 + ST_HINT_RULES] = {&s->pairs, &s->findings};
    for (size_t k = 0; k < ST_HINT_RULES; k++)
        rest[2 + k] = &s->hints[k];
    rest[2 + ST_HINT_RULES] = &s->most_read;
    for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++) {
        memmove(v + n, rest[k]->v, rest[k]->n * sizeof *v);
        n += rest[k]->n;
    }
    st_sort(v, n, sizeof *v, by_item);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i].item != v[i - 1].item)
            out[kept++] = v[i].item;
    return kept;
}
