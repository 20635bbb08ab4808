/* load_json.h — reading JSON reports (load_json.c), for load.c. */
#ifndef SEEKTRACE_LOAD_JSON_H
#define SEEKTRACE_LOAD_JSON_H

#include <stddef.h>

#include "tool.h"

/* The JSON report(s) in text (len bytes of path: JSON lines, or reports
 * one after another; a line that is not JSON is skipped): report/1|2
 * objects, and merged/1|2 documents, each of whose processes is one. Calls
 * fn for each; returns 0, fn's non-zero result, or -1 with err. */
int load_json(const char *path, const char *text, size_t len, process_fn fn, void *ctx,
              char *err);

#endif
