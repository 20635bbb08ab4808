/* sort.h — sorting and top-k selection that never allocate.
 *
 * glibc's qsort mallocs for arrays over a page; a report written from a
 * fatal-signal handler (the program crashed, perhaps inside malloc) must not,
 * so the core sorts with this heapsort instead. Not stable.
 *
 * A report ranks rows by keys computed once per row (struct st_rank), never
 * inside a comparison: st_topk keeps the best k of a stream of n ranks in
 * O(n log k) with the caller's array of k, so the exit report of a process
 * that read a million files looks at each once and keeps a few. */
#ifndef SEEKTRACE_SORT_H
#define SEEKTRACE_SORT_H

#include <stddef.h>
#include <stdint.h>

void st_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* The same order for large elements (a report's rows are kilobytes, and
 * st_sort moves them n log n times): their indexes are sorted in `order`,
 * the caller's room for n, then each element is moved once, into its
 * place. */
void st_sort_rows(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
                  size_t *order);

/* Better is: larger a, then larger b, then larger c, then the smaller name
 * (strcmp; NULL names are equal), then the smaller id. */
struct st_rank {
    uint64_t a, b, c;
    const char *name;
    uint64_t id;
    const void *item; /* what the rank is of: carried, never compared */
};

/* < 0 when x ranks before (is worse, shown first), > 0 after, 0 equal. */
int st_rank_cmp(const struct st_rank *x, const struct st_rank *y);

/* The best cap ranks offered so far, in v (the caller's, of cap entries),
 * kept as a heap whose root is the least good of them. */
struct st_topk {
    struct st_rank *v;
    size_t n, cap;
};

void st_topk_offer(struct st_topk *t, const struct st_rank *r);

/* Sorts the kept ranks best first (the heap is then spent). */
void st_topk_sort(struct st_topk *t);

#endif
