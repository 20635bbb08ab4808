/* whatif_reports.h — seektrace whatif given JSON reports instead of traces.
 *
 * A report (seektrace.report/1|2, seektrace.merged/1|2) holds each file's
 * measured figures and the library's own 4 KiB prediction
 * (whatif_4k_kernel_read_bytes, docs/report-json.md), not the calls: no
 * other buffer size can be predicted from it. What it does hold is printed,
 * per file summed over processes, with one line saying the traces are
 * needed for the whole table. */
#ifndef SEEKTRACE_WHATIF_REPORTS_H
#define SEEKTRACE_WHATIF_REPORTS_H

#include <stddef.h>

/* Prints the text or JSON (seektrace.whatif-reports/1) of the reports in
 * paths; exits 2 on one that cannot be read. Returns 0. */
int whatif_reports(char **paths, size_t n, int json, const char *glob);

#endif
