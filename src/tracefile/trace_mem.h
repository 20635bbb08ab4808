/* trace_mem.h — the bump allocator a footer's report lives in: blocks
 * freed together (st_trace_mem_free, trace_reader.h), so a report read from
 * a footer is one call to free. */
#ifndef SEEKTRACE_TRACE_MEM_H
#define SEEKTRACE_TRACE_MEM_H

#include <stddef.h>

struct st_trace_mem;

/* n zeroed bytes from *head's blocks (a new block when they are full);
 * NULL when out of memory. */
void *st_trace_mem_alloc(struct st_trace_mem **head, size_t n);

/* Makes all of *head's memory free again for st_trace_mem_alloc, keeping
 * one block: scratch memory reused for one record after another. */
void st_trace_mem_reset(struct st_trace_mem **head);

#endif
