/* json_out.h — a minimal JSON emitter over st_outbuf.
 *
 * Tracks only whether a comma is due, so callers write keys and values in
 * order. Strings are escaped per RFC 8259 and are always well-formed UTF-8:
 * a string is bytes (file names are arbitrary bytes), written as its text
 * (name_text.h), so the exact bytes come back from it. */
#ifndef SEEKTRACE_JSON_OUT_H
#define SEEKTRACE_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"

struct st_json {
    struct st_outbuf *out;
    int depth;
    unsigned char need_comma[32];
};

/* Where st_json_write_string puts its text, in runs. */
typedef void st_json_sink(void *ctx, const char *s, size_t n);

/* The string s as one JSON string, quotes included: for JSON written by
 * hand (the tools), the same text st_json_string writes. */
void st_json_write_string(const char *s, st_json_sink *sink, void *ctx);

void st_json_init(struct st_json *j, struct st_outbuf *out);
void st_json_begin_object(struct st_json *j);
void st_json_end_object(struct st_json *j);
void st_json_begin_array(struct st_json *j);
void st_json_end_array(struct st_json *j);
/* A key inside an object; the value call follows. */
void st_json_key(struct st_json *j, const char *key);
void st_json_string(struct st_json *j, const char *s);
void st_json_u64(struct st_json *j, uint64_t v);
void st_json_i64(struct st_json *j, int64_t v);
/* Writes null for values that are not finite. */
void st_json_double(struct st_json *j, double v);
void st_json_bool(struct st_json *j, int v);
void st_json_null(struct st_json *j);

#endif
