/* trace_objects.h — one trace's objects by id, as a replay of its events
 * learns them: each file's path (FILE_DEF), each cell's owner (CELL_DEF),
 * and a record of the caller's own for each stream. Files, streams and
 * cells share one id space (trace-files.md), so the tables are indexed
 * alike and grow together. Used by whatif's read replay and its write
 * replay. */
#ifndef SEEKTRACE_TRACE_OBJECTS_H
#define SEEKTRACE_TRACE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

struct trace_objects {
    uint32_t n;         /* room in each table */
    void **streams;     /* the caller's record of stream id, or NULL */
    uint32_t *cell_owner;
    char **paths;
};

/* Room for id in every table; -1 out of memory. */
int trace_objects_grow(struct trace_objects *o, uint32_t id);

/* The record of stream id, made zeroed (size bytes) on first use: *fresh
 * says so, for the caller to set what zero does not mean. NULL out of
 * memory. */
void *trace_objects_stream(struct trace_objects *o, uint32_t id, size_t size, int *fresh);

/* The record of the stream a counting event's cell belongs to, or NULL. */
void *trace_objects_stream_of_cell(const struct trace_objects *o, uint32_t cell);

/* A FILE_DEF's path or a CELL_DEF's owner, learnt: 1; another kind: 0 (not
 * looked at); -1 out of memory. */
int trace_objects_learn(struct trace_objects *o, const struct st_trace_event *ev);

/* The path of file id, or NULL. */
const char *trace_objects_path(const struct trace_objects *o, uint32_t id);

/* Frees the tables, each stream record through free_stream. */
void trace_objects_free(struct trace_objects *o, void (*free_stream)(void *));

#endif
