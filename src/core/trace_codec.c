/* trace_codec.c — see trace_codec.h. */
#include "trace_codec.h"

#include <stddef.h>
#include <string.h>

/* Slicing by 8: crc_table[k][b] is the CRC of byte b followed by k zero
 * bytes, so eight bytes are folded with eight lookups instead of eight
 * dependent steps (a trace's chunks are CRC'd whole when written and when
 * read: 3 % of a traced `grep -r`'s samples went to the byte-at-a-time
 * loop). 8 KiB, built at first use. */
static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^ crc_table[0][crc_table[k - 1][i] & 0xff];
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

/* Four bytes as the little-endian word the tables are laid out for. */
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct stop_reason {
    const char *name, *text;
};

static const struct stop_reason stop_reasons[] = {
    [ST_TRACE_STOP_CAP] = {"cap", "it reached the trace size cap (SEEKTRACE_TRACE_MAX)"},
    [ST_TRACE_STOP_NO_SPACE] = {"no_space", "the disk was full (ENOSPC, or EDQUOT: over quota)"},
    [ST_TRACE_STOP_FILE_SIZE_LIMIT] = {"file_size_limit",
                                       "the process's file size limit was reached (EFBIG)"},
    [ST_TRACE_STOP_NO_MEMORY] = {"no_memory", "there was no address space left to map the "
                                              "trace file (ENOMEM)"},
    [ST_TRACE_STOP_FILE_GONE] = {"file_gone", "the trace file was removed or replaced"},
    [ST_TRACE_STOP_IO_ERROR] = {"io_error", "the trace file could not be grown or mapped"},
};

static const struct stop_reason *stop_reason(uint32_t reason)
{
    static const struct stop_reason unknown = {"unknown",
                                               "of a reason this seektrace does not know"};
    if (reason == ST_TRACE_STOP_NONE)
        return NULL;
    return reason < sizeof stop_reasons / sizeof stop_reasons[0] ? &stop_reasons[reason]
                                                                  : &unknown;
}

const char *st_trace_stop_text(uint32_t reason)
{
    const struct stop_reason *r = stop_reason(reason);
    return r ? r->text : NULL;
}

const char *st_trace_stop_name(uint32_t reason)
{
    const struct stop_reason *r = stop_reason(reason);
    return r ? r->name : NULL;
}

uint32_t st_crc32(uint32_t crc, const void *data, size_t len)
{
    /* Building the table twice concurrently writes the same values. */
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
        crc_init();
    const uint8_t *p = data;
    crc = ~crc;
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t one = le32(p) ^ crc, two = le32(p + 4);
        crc = crc_table[7][one & 0xff] ^ crc_table[6][(one >> 8) & 0xff] ^
              crc_table[5][(one >> 16) & 0xff] ^ crc_table[4][one >> 24] ^
              crc_table[3][two & 0xff] ^ crc_table[2][(two >> 8) & 0xff] ^
              crc_table[1][(two >> 16) & 0xff] ^ crc_table[0][two >> 24];
    }
    while (len--)
        crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

const struct st_counts_field st_counts_fields[] = {
#define COUNT_FIELD(name, id) {id, offsetof(struct st_counts, name)},
#include "counts_fields.def"
#undef COUNT_FIELD
};
const size_t st_counts_nfields = sizeof st_counts_fields / sizeof st_counts_fields[0];

/* Every scalar counter must have a field number: a counter added to
 * struct st_counts without one here would silently vanish from footers. */
_Static_assert(sizeof(struct st_counts) ==
                   sizeof(uint64_t) * (sizeof st_counts_fields / sizeof st_counts_fields[0]) +
                       sizeof(struct st_call_cost) * ST_CALL_COUNT,
               "struct st_counts changed: give the new counter a field number in "
               "trace_codec.c and include/seektrace/trace_format.h");
uint64_t *st_call_cost_field(struct st_call_cost *cc, unsigned k)
{
    switch (k) {
#define CALL_COST_FIELD(name, id) case id: return &cc->name;
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
    default: return NULL;
    }
}

size_t st_counts_encoded_max(void)
{
    return ST_VARINT_MAX * (1 + 2 * (st_counts_nfields + ST_CALL_COST_FIELDS * (size_t)ST_CALL_COUNT));
}

/* by_call[call]'s counter k is the k-th word of its st_call_cost: the
 * struct lists its counters in call_cost_fields.def's order. */
#define CALL_COST_FIELD(name, k)                                                    \
    _Static_assert(offsetof(struct st_call_cost, name) == (k) * sizeof(uint64_t),   \
                   "call_cost_fields.def lists st_call_cost's counters in order");
#include "call_cost_fields.def"
#undef CALL_COST_FIELD

uint8_t *st_counts_encode(uint8_t *out, const struct st_counts *c)
{
    /* One pass over the 2 KiB of counters (a traced process writes one
     * counts a row, a site and a stream, for every file): the pairs go
     * after room for their number, which is then written before them. */
    uint8_t *pairs = out + ST_VARINT_MAX, *p = pairs;
    uint64_t n = 0;
    for (size_t i = 0; i < st_counts_nfields; i++) {
        uint64_t v = *(const uint64_t *)((const char *)c + st_counts_fields[i].offset);
        if (v) {
            p = st_put_u(p, st_counts_fields[i].id);
            p = st_put_u(p, v);
            n++;
        }
    }
    /* Most calls were never made: their counters are skipped a call at a
     * time, on one test of all of them. */
    for (unsigned call = 0; call < ST_CALL_COUNT; call++) {
        const uint64_t *cost = (const uint64_t *)&c->by_call[call];
        uint64_t any = 0;
        for (unsigned k = 0; k < ST_CALL_COST_FIELDS; k++)
            any |= cost[k];
        if (!any)
            continue;
        for (unsigned k = 0; k < ST_CALL_COST_FIELDS; k++)
            if (cost[k]) {
                p = st_put_u(p, ST_FIELD_BY_CALL + 8u * call + k);
                p = st_put_u(p, cost[k]);
                n++;
            }
    }
    uint8_t *start = st_put_u(out, n);
    memmove(start, pairs, (size_t)(p - pairs));
    return start + (p - pairs);
}

int st_counts_decode(const uint8_t **p, const uint8_t *end, struct st_counts *c,
                     const uint8_t *call_map, size_t ncalls)
{
    uint64_t n;
    if (st_get_u(p, end, &n) != 0 || n > (uint64_t)(end - *p) / 2)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t id, v;
        if (st_get_u(p, end, &id) != 0 || st_get_u(p, end, &v) != 0)
            return -1;
        if (id >= 1 && id <= ST_TRACE_FIELD_SCALARS) {
            for (size_t k = 0; k < st_counts_nfields; k++)
                if (st_counts_fields[k].id == id)
                    *(uint64_t *)((char *)c + st_counts_fields[k].offset) += v;
        } else if (id >= ST_FIELD_BY_CALL) {
            uint64_t call = (id - ST_FIELD_BY_CALL) / 8, k = (id - ST_FIELD_BY_CALL) % 8;
            if (call >= ncalls || k >= ST_CALL_COST_FIELDS)
                return -1;
            unsigned local = call_map[call] < ST_CALL_COUNT ? call_map[call] : ST_CALL_OTHER;
            *st_call_cost_field(&c->by_call[local], (unsigned)k) += v;
        }
        /* Up to 63: a counter of a newer minor version, skipped. */
    }
    return 0;
}
