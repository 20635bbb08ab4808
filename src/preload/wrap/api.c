/* api.c — the optional API (include/seektrace/seektrace.h): marks and flush
 * for programs that know they may be traced. Exported under their
 * versioned names; the trace writer does the work (trace_writer.h). */
#include "ensure_init.h"
#include "trace_writer.h"

__attribute__((visibility("default"))) void seektrace_mark_v1(const char *label)
{
    st_ensure_init();
    st_trace_mark(label);
}

__attribute__((visibility("default"))) int seektrace_flush_v1(void)
{
    st_ensure_init();
    return st_trace_flush();
}
