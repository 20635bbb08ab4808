/* trace_decode.h — decoding one event of a chunk (trace_reader.c's inner
 * step), driven by include/seektrace/events.def.
 *
 * Private to the trace reader: it owns the chunk and the bytes; this module
 * owns the decoding state the format defines per chunk (time, target, call,
 * expected, last_size) and turns one event's bytes into a struct
 * st_trace_event. Every field is checked; nothing here reads a file or
 * allocates. */
#ifndef SEEKTRACE_TRACE_DECODE_H
#define SEEKTRACE_TRACE_DECODE_H

#include <stdint.h>

#include "trace_reader.h"

struct st_trace_decoder {
    const struct st_trace_info *info; /* call table and format version */
    /* decoding state, reset at each chunk (trace_format.h) */
    uint64_t time;
    uint32_t target;
    int call;
    int64_t expected, last_size;
    /* An OP that ended its call (F2): the END it stands for comes next,
     * end_dt after the OP, at the OP's file offset. */
    int end_pending;
    uint64_t end_dt, end_offset;
};

/* The state at the start of a chunk whose base time is base_ns. */
void st_trace_decoder_start(struct st_trace_decoder *d, const struct st_trace_info *info,
                            uint64_t base_ns);

/* Decodes the event at *p (before end) into ev, whose tid, chunk and
 * file_offset the caller has set and whose other fields are zero. Returns 0
 * with *p past the event, or -1 with *why saying what is wrong (*p and
 * ev->kind tell where and which). */
int st_trace_decode(struct st_trace_decoder *d, const uint8_t **p, const uint8_t *end,
                    struct st_trace_event *ev, const char **why);

#endif
