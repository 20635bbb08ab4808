/* trace_model.h — rebuilding a process's report from its trace events.
 *
 * Feed every event of one trace (st_trace_next) to st_trace_model_apply,
 * then st_trace_model_report() fills the same struct st_report the library
 * fills at exit — so the same renderers print it. Memory grows with the
 * number of distinct files, streams, sites and cells, never with the
 * number of events. For a trace with a footer, the footer is the report
 * (st_trace_footer_report); this rebuild is what a partial trace (killed,
 * crashed) has, and what tests compare with the footer.
 *
 * Tools only (malloc). */
#ifndef SEEKTRACE_TRACE_MODEL_H
#define SEEKTRACE_TRACE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "report_model.h"
#include "trace_reader.h"

struct st_trace_model;

/* An executable mapping the trace recorded (MODULE events). */
struct st_trace_module {
    uint64_t start, length, file_offset;
    const char *path;
};

/* Turns one return address into a frame (module, offset, and function,
 * source and line when the symbolizer can); strings must outlive the
 * report. NULL: module + offset only. */
typedef void (*st_trace_symbolizer)(void *ctx, const struct st_trace_module *module,
                                    uint64_t address, struct st_report_frame *out);

struct st_trace_model *st_trace_model_new(void);
void st_trace_model_free(struct st_trace_model *m);

/* Applies one event. Returns 0, or -1 when out of memory. */
int st_trace_model_apply(struct st_trace_model *m, const struct st_trace_event *ev);

/* Fills r from what was applied; the memory r points to belongs to the
 * model (valid until st_trace_model_free). Returns 0, or -1 when out of
 * memory. */
int st_trace_model_report(struct st_trace_model *m, const struct st_trace_info *info,
                          st_trace_symbolizer symbolize, void *ctx, struct st_report *r);

/* The modules recorded. */
size_t st_trace_model_modules(const struct st_trace_model *m, const struct st_trace_module **out);

/* The frame of one return address: its module (the main program by its
 * argv[0], as the library's dladdr names it) and offset there, then what
 * symbolize adds (NULL: nothing). */
void st_trace_model_frame(const struct st_trace_model *m, const struct st_trace_info *info,
                          uint64_t addr, st_trace_symbolizer symbolize, void *ctx,
                          struct st_report_frame *f);

/* The module holding address, or NULL. */
const struct st_trace_module *st_trace_model_module_of(const struct st_trace_model *m,
                                                       uint64_t address);

/* Event statistics: events applied, and per kind. */
uint64_t st_trace_model_events(const struct st_trace_model *m);
uint64_t st_trace_model_events_of(const struct st_trace_model *m, unsigned kind);

/* What a cell id stands for (for exports): the file path and stream fd of
 * its owner, and its site's first return address (0: none). Returns 0 if
 * the cell is unknown. */
int st_trace_model_cell(const struct st_trace_model *m, uint32_t cell, const char **path, int *fd,
                        uint32_t *site, uint64_t *pc);
/* A stream's path and fd by stream id. */
int st_trace_model_stream(const struct st_trace_model *m, uint32_t stream, const char **path,
                          int *fd);

#endif
