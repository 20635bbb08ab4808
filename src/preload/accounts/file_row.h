/* file_row.h — a file's report row from its live accounts: its counts
 * (every stream's and its own POSIX calls') and its streams. The exit
 * report builds its rows with it, and fold.c ranks closed files with it. */
#ifndef SEEKTRACE_FILE_ROW_H
#define SEEKTRACE_FILE_ROW_H

#include <stddef.h>

#include "cells.h"
#include "files.h"
#include "stream.h"
#include "report_model.h"

/* How many stream records f has (room for its row's streams). */
size_t st_file_row_streams(const struct st_file *f);

/* How many cells f's calls were counted in, directly and on its streams:
 * room for its row's sites, at most one a cell. Inline: the trace's rows
 * (trace/trace_rows.c) use it without the rest of this module. */
static inline size_t st_file_row_cells(const struct st_file *f)
{
    size_t n = 0;
    for (const struct st_cell *c = f->direct_cells; c; c = c->next_of_owner)
        n++;
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        for (const struct st_cell *c = s->cells; c; c = c->next_of_owner)
            n++;
    return n;
}

/* rf's path, counts and streams (no sites), its streams in room, which
 * holds st_file_row_streams(f) of them (NULL: counts only, no streams). */
void st_file_row_fill(struct st_report_file *rf, const struct st_file *f,
                      struct st_report_stream *room);

#endif
