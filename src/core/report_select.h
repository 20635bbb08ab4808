/* report_select.h — which files a report keeps rows for (report-json.md,
 * "Rows kept").
 *
 * A report prints a few rows of many: the worst files, the files of the
 * text report's worst (file, call site) pairs, the first files, in the
 * report's order, that findings come from, the first each hint rule fires
 * on (hints.h), and the most read (the storage findings name it). Whoever
 * builds a report offers every file once, ranked by keys computed once
 * (sort.h), and keeps a row only for the selected ones; the others are
 * summed in `all`. The library selects so at exit from its registries, the
 * command from a trace's footer. Never allocates: the caller gives the
 * rank storage. */
#ifndef SEEKTRACE_REPORT_SELECT_H
#define SEEKTRACE_REPORT_SELECT_H

#include <stddef.h>

#include "counts.h"
#include "hints.h"
#include "report_model.h"
#include "sort.h"

struct st_report_select {
    struct st_topk rows, pairs, findings, hints[ST_HINT_RULES], most_read;
    size_t active;         /* files offered */
    struct st_counts all;  /* their counts, summed */
};

/* Ranks beyond the caller's rows, pairs and findings: a hint rule's first
 * file each, and the most read. */
#define ST_REPORT_SELECT_EXTRA (ST_HINT_RULES + 1)

/* rows worst files, pairs (file, site) pairs, findings files with
 * findings; v has room for rows + pairs + findings + ST_REPORT_SELECT_EXTRA
 * ranks. */
void st_report_select_init(struct st_report_select *s, struct st_rank *v, size_t rows,
                           size_t pairs, size_t findings);

/* Offers one file, with its sites in the report's order (the pairs and
 * the hints look at them); item names it among the offers (what
 * st_report_select_kept returns). */
void st_report_select_offer(struct st_report_select *s, const struct st_report_file *f,
                            const void *item);

/* The items selected, each once, in the order of their addresses, into
 * out (room for as many ranks as v has); returns how many. The selection
 * is spent. */
size_t st_report_select_kept(struct st_report_select *s, const void **out);

#endif
