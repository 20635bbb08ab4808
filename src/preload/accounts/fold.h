/* fold.h — closed files past the report's rows, summed and their memory
 * given to the next files.
 *
 * The report lists the SEEKTRACE_REPORT_FILES worst files and sums the
 * others exactly (report-json.md, "Rows kept"); the accounts kept every
 * file to the end (about 1.4 KiB each on `grep -r`: its record, cells and
 * streams), so a process reading a million files grew by a gigabyte. Once
 * that many files are closed, each further closed file folds the least
 * costly closed one (or itself): its counts join one sum, which the
 * report's other_files and totals include, and its record, cells and
 * streams become the next files'. What the report prints is unchanged: a
 * folded file ranks below that many closed files, whose counts only grow.
 *
 * While the process writes a trace, whose footer lists every file, a file
 * folds only once its row is in the trace (trace_events.h,
 * st_trace_fold_row: the footer's FILE record, written into a rows chunk);
 * its records get new ids when they are the next file's, so that no later
 * event is charged to it. Its events stay in the trace as they were.
 *
 * Never folded: a file with a finding (the report's findings stay those of
 * every file), a file a stream's buffered bytes are carried for
 * (streams.c), a file whose row the trace has no room for, and any file
 * while the process has threads (one may be counting on the file's cells:
 * the fd table's recycling waits for the same), lists every file
 * (SEEKTRACE_REPORT_FILES=all), or writes a trace with device bytes per
 * file (SEEKTRACE_STORAGE=file: the footer gives them to its own rows). */
#ifndef SEEKTRACE_FOLD_H
#define SEEKTRACE_FOLD_H

#include <stddef.h>

#include "counts.h"
#include "files.h"

/* The files whose last descriptor went away since the last call
 * (st_fd_files_emptied), each folded or kept when nothing is open on it.
 * Called where a closing call ends (close, fclose), when nothing in
 * progress holds a file's cells. */
void st_fold_offer_closed(void);

/* Adds the folded files' counts to sum; returns how many files they are. */
size_t st_fold_add_totals(struct st_counts *sum);
/* How many files have folded. */
size_t st_fold_count(void);

/* A fork child, or counts zeroed after a failed exec: nothing folded yet,
 * nothing kept. */
void st_fold_reset(void);

#endif
