/* trace_objects.c — see trace_objects.h. */
#define _GNU_SOURCE 1
#include "trace_objects.h"

#include <stdlib.h>
#include <string.h>

int trace_objects_grow(struct trace_objects *o, uint32_t id)
{
    if (id < o->n)
        return 0;
    uint32_t n = o->n ? o->n : 64;
    while (n <= id)
        n *= 2;
    void **s = realloc(o->streams, n * sizeof *s);
    if (s)
        o->streams = s;
    uint32_t *c = realloc(o->cell_owner, n * sizeof *c);
    if (c)
        o->cell_owner = c;
    char **p = realloc(o->paths, n * sizeof *p);
    if (p)
        o->paths = p;
    if (!s || !c || !p)
        return -1;
    memset(s + o->n, 0, (n - o->n) * sizeof *s);
    memset(c + o->n, 0, (n - o->n) * sizeof *c);
    memset(p + o->n, 0, (n - o->n) * sizeof *p);
    o->n = n;
    return 0;
}

void *trace_objects_stream(struct trace_objects *o, uint32_t id, size_t size, int *fresh)
{
    *fresh = 0;
    if (trace_objects_grow(o, id) != 0)
        return NULL;
    if (!o->streams[id]) {
        o->streams[id] = calloc(1, size);
        *fresh = o->streams[id] != NULL;
    }
    return o->streams[id];
}

void *trace_objects_stream_of_cell(const struct trace_objects *o, uint32_t cell)
{
    if (cell == 0 || cell >= o->n)
        return NULL;
    uint32_t owner = o->cell_owner[cell];
    return owner && owner < o->n ? o->streams[owner] : NULL;
}

int trace_objects_learn(struct trace_objects *o, const struct st_trace_event *ev)
{
    if (ev->kind != ST_EV_FILE_DEF && ev->kind != ST_EV_CELL_DEF)
        return 0;
    if (trace_objects_grow(o, ev->id) != 0)
        return -1;
    if (ev->kind == ST_EV_CELL_DEF) {
        o->cell_owner[ev->id] = ev->owner;
        return 1;
    }
    free(o->paths[ev->id]);
    o->paths[ev->id] = strndup(ev->str, ev->str_len);
    return o->paths[ev->id] ? 1 : -1;
}

const char *trace_objects_path(const struct trace_objects *o, uint32_t id)
{
    return id < o->n ? o->paths[id] : NULL;
}

void trace_objects_free(struct trace_objects *o, void (*free_stream)(void *))
{
    for (uint32_t i = 0; i < o->n; i++) {
        if (o->streams[i])
            free_stream(o->streams[i]);
        free(o->paths[i]);
    }
    free(o->streams);
    free(o->cell_owner);
    free(o->paths);
    memset(o, 0, sizeof *o);
}
