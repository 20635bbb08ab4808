/* trace_mem.c — see trace_mem.h. */
#include "trace_mem.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace_reader.h"

struct st_trace_mem {
    struct st_trace_mem *next;
    size_t used, size;
    max_align_t data[];
};

void *st_trace_mem_alloc(struct st_trace_mem **head, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct st_trace_mem *b = *head;
    if (!b || b->size - b->used < n) {
        size_t size = n > 65536 ? n : 65536;
        struct st_trace_mem *nb = malloc(sizeof *nb + size);
        if (!nb)
            return NULL;
        nb->size = size;
        nb->used = 0;
        if (b && n > 65536) { /* a big one: keep filling the current block */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            *head = nb;
        }
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void st_trace_mem_reset(struct st_trace_mem **head)
{
    struct st_trace_mem *b = *head;
    if (!b)
        return;
    st_trace_mem_free(b->next);
    b->next = NULL;
    b->used = 0;
}

void st_trace_mem_free(void *block)
{
    struct st_trace_mem *b = block;
    while (b) {
        struct st_trace_mem *next = b->next;
        free(b);
        b = next;
    }
}
