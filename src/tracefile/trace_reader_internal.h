/* trace_reader_internal.h — what trace_reader.c shares with footer_report.c,
 * which reads the footer it finds. */
#ifndef SEEKTRACE_TRACE_READER_INTERNAL_H
#define SEEKTRACE_TRACE_READER_INTERNAL_H

#include <stdint.h>

#include "trace_reader.h"

/* err = "PATH: " and the message, on one line whatever the path held. */
void st_trace_fail(char *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A finished trace's footer, its frame and checksum checked: *buf (the
 * caller frees it) holds its *len bytes of records at *payload. 0, or -1
 * with err. */
int st_trace_footer_bytes(struct st_trace_reader *r, uint8_t **buf, const uint8_t **payload,
                          uint32_t *len, char *err);

/* Rows chunk idx (trace_format.h, ROWS) into buf (chunk_size bytes), its
 * header and its `used` bytes checked against what the footer says of
 * it: its records at *payload. 0, or -1 with err. */
int st_trace_rows_bytes(struct st_trace_reader *r, uint64_t idx, uint64_t used, uint64_t crc,
                        uint8_t *buf, const uint8_t **payload, char *err);

#endif
