/* trace_codec.h — the pieces of the trace format both sides share.
 *
 * Varints, CRC-32, and the stable numbering of struct st_counts fields used
 * by the footer (include/seektrace/trace_format.h). Used inside the preload
 * library (the writer), so nothing here allocates or does I/O. */
#ifndef SEEKTRACE_TRACE_CODEC_H
#define SEEKTRACE_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "seektrace/trace_format.h"

/* Longest varint. */
#define ST_VARINT_MAX 10

static inline uint8_t *st_put_u(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t st_zigzag(int64_t v)
{
    uint64_t u = (uint64_t)v;
    return (u << 1) ^ (0 - (u >> 63)); /* sign in bit 0, no signed shift */
}

static inline int64_t st_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *st_put_s(uint8_t *p, int64_t v)
{
    return st_put_u(p, st_zigzag(v));
}

/* Reads a varint from [*p, end). Returns 0 and advances *p, or -1 when the
 * input ends inside it or it is longer than 10 bytes. */
static inline int st_get_u(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    const uint8_t *q = *p;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (q >= end)
            return -1;
        uint8_t b = *q++;
        if (shift == 63 && b > 1)
            return -1; /* overflows 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Why a trace stopped early (ST_TRACE_STOP_*, trace_format.h): words that
 * finish "stopped recording because ..." ("the file system was full
 * (ENOSPC)"), and a name for JSON ("no_space"). NULL for
 * ST_TRACE_STOP_NONE; a value this build does not know has words and name
 * of its own. */
const char *st_trace_stop_text(uint32_t reason);
const char *st_trace_stop_name(uint32_t reason);

/* zlib's CRC-32 (poly 0xEDB88320), continued from crc (0 to start). */
uint32_t st_crc32(uint32_t crc, const void *data, size_t len);

/* The counters of struct st_counts by stable field number. */
struct st_counts_field {
    unsigned id;   /* ST_FIELD_* */
    size_t offset; /* in struct st_counts */
};
extern const struct st_counts_field st_counts_fields[];
extern const size_t st_counts_nfields;

/* The by_call counter k (call_cost_fields.def) as a field of st_call_cost;
 * NULL for a k it does not list. */
uint64_t *st_call_cost_field(struct st_call_cost *cc, unsigned k);

/* Encodes c as the footer's "counts" (trace_format.h) into out (at most
 * st_counts_encoded_max() bytes); returns the end. */
uint8_t *st_counts_encode(uint8_t *out, const struct st_counts *c);
size_t st_counts_encoded_max(void);

/* Decodes "counts" from [*p, end) into c (added to what c holds).
 * call_map[k] is the local st_call for the trace's call index k (ncalls
 * entries; ST_CALL_COUNT for a name this build does not know: its figures
 * go to "other"). Returns 0, or -1 on malformed input. */
int st_counts_decode(const uint8_t **p, const uint8_t *end, struct st_counts *c,
                     const uint8_t *call_map, size_t ncalls);

#endif
