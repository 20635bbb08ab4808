/* sort.h — sorting that never allocates.
 *
 * glibc's qsort mallocs for arrays over a page; a report written from a
 * fatal-signal handler (the program crashed, perhaps inside malloc) must not,
 * so the core sorts with this heapsort instead. Not stable. */
#ifndef SEEKTRACE_SORT_H
#define SEEKTRACE_SORT_H

#include <stddef.h>

void st_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
