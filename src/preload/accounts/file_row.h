/* file_row.h — a file's report row from its live accounts: its counts
 * (every stream's and its own POSIX calls') and its streams. The exit
 * report builds its rows with it, and fold.c ranks closed files with it. */
#ifndef SEEKTRACE_FILE_ROW_H
#define SEEKTRACE_FILE_ROW_H

#include <stddef.h>

#include "files.h"
#include "report_model.h"

/* How many stream records f has (room for its row's streams). */
size_t st_file_row_streams(const struct st_file *f);

/* How many cells f's calls were counted in, directly and on its streams:
 * room for its row's sites, at most one a cell. */
size_t st_file_row_cells(const struct st_file *f);

/* rf's path, counts and streams (no sites), its streams in room, which
 * holds st_file_row_streams(f) of them (NULL: counts only, no streams). */
void st_file_row_fill(struct st_report_file *rf, const struct st_file *f,
                      struct st_report_stream *room);

#endif
