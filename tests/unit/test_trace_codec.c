/* Unit tests: the trace codec (varints, CRC-32, counts in footers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace_codec.h"

static void varint_round_trip(void **state)
{
    (void)state;
    const uint64_t values[] = {0, 1, 127, 128, 255, 16383, 16384, 1u << 31, 4096,
                               (1ull << 56) - 1, 1ull << 63, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        uint8_t buf[ST_VARINT_MAX];
        uint8_t *end = st_put_u(buf, values[i]);
        const uint8_t *p = buf;
        uint64_t v = 0;
        assert_int_equal(st_get_u(&p, end, &v), 0);
        assert_true(p == end);
        assert_true(v == values[i]);
    }
    uint8_t buf[ST_VARINT_MAX];
    /* Lengths: 7 bits per byte. */
    assert_int_equal(st_put_u(buf, 127) - buf, 1);
    assert_int_equal(st_put_u(buf, 128) - buf, 2);
    assert_int_equal(st_put_u(buf, UINT64_MAX) - buf, 10);
}

static void zigzag(void **state)
{
    (void)state;
    const int64_t values[] = {0, -1, 1, -2, 2, INT64_MAX, INT64_MIN, -4096};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        assert_true(st_unzigzag(st_zigzag(values[i])) == values[i]);
    assert_true(st_zigzag(-1) == 1);
    assert_true(st_zigzag(1) == 2);
}

static void varint_rejects_bad_input(void **state)
{
    (void)state;
    uint64_t v;
    /* Ends inside the number. */
    const uint8_t cut[] = {0x80, 0x80};
    const uint8_t *p = cut;
    assert_int_equal(st_get_u(&p, cut + 2, &v), -1);
    assert_true(p == cut); /* not advanced on failure */
    /* Eleven bytes. */
    const uint8_t longer[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    p = longer;
    assert_int_equal(st_get_u(&p, longer + 11, &v), -1);
    /* Ten bytes whose last one overflows 64 bits. */
    const uint8_t over[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    p = over;
    assert_int_equal(st_get_u(&p, over + 10, &v), -1);
    /* Empty input. */
    p = cut;
    assert_int_equal(st_get_u(&p, cut, &v), -1);
}

static void crc32_known_values(void **state)
{
    (void)state;
    assert_true(st_crc32(0, "123456789", 9) == 0xCBF43926u);
    assert_true(st_crc32(0, "", 0) == 0);
    /* Continued in pieces equals all at once. */
    uint32_t a = st_crc32(0, "12345", 5);
    assert_true(st_crc32(a, "6789", 4) == 0xCBF43926u);
}

/* Byte at a time, as zlib defines it: the reference for the sliced loop. */
static uint32_t crc32_bytewise(uint32_t crc, const uint8_t *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

/* Every length and alignment around the 8-byte slices, and a long buffer
 * continued in uneven pieces. */
static void crc32_sliced_equals_bytewise(void **state)
{
    (void)state;
    static uint8_t buf[70000];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len < 40; len++)
            assert_true(st_crc32(0, buf + off, len) == crc32_bytewise(0, buf + off, len));
    uint32_t all = st_crc32(0, buf, sizeof buf), pieces = 0;
    for (size_t at = 0, step = 1; at < sizeof buf; at += step, step = step * 3 % 997 + 1)
        pieces = st_crc32(pieces, buf + at, at + step <= sizeof buf ? step : sizeof buf - at);
    assert_true(all == crc32_bytewise(0, buf, sizeof buf));
    assert_true(pieces == all);
}

static void counts_round_trip(void **state)
{
    (void)state;
    struct st_counts c, d;
    memset(&c, 0, sizeof c);
    c.read_syscalls = 200553;
    c.kernel_read_bytes = 821039104ull;
    c.lseek_syscalls = 200000;
    c.delivered_bytes = 3200000;
    c.requested_bytes = 3200000;
    c.reread_bytes = 1ull << 40;
    c.resync_lseeks = 7;
    c.by_call[ST_CALL_FSEEK].calls = 200000;
    c.by_call[ST_CALL_FSEEK].read_syscalls = 199766;
    c.by_call[ST_CALL_DUP].fstat_syscalls = UINT64_MAX;
    uint8_t buf[8192];
    assert_true(st_counts_encoded_max() <= sizeof buf);
    uint8_t *end = st_counts_encode(buf, &c);
    uint8_t map[256];
    for (int k = 0; k < ST_CALL_COUNT; k++)
        map[k] = (uint8_t)k;
    memset(&d, 0, sizeof d);
    const uint8_t *p = buf;
    assert_int_equal(st_counts_decode(&p, end, &d, map, ST_CALL_COUNT), 0);
    assert_true(p == end);
    assert_memory_equal(&c, &d, sizeof c);
    /* Only non-zero fields are written: 10 pairs and their count. */
    struct st_counts zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(st_counts_encode(buf, &zero) - buf, 1);
    /* Every counter set: more pairs than a one-byte count says (their
     * number is written before them), within st_counts_encoded_max(). */
    uint64_t *word = (uint64_t *)&c;
    for (size_t i = 0; i < sizeof c / sizeof *word; i++)
        word[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull | 1;
    end = st_counts_encode(buf, &c);
    assert_true((size_t)(end - buf) <= st_counts_encoded_max());
    assert_int_equal(buf[0] & 0x80, 0x80); /* two-byte count */
    memset(&d, 0, sizeof d);
    p = buf;
    assert_int_equal(st_counts_decode(&p, end, &d, map, ST_CALL_COUNT), 0);
    assert_true(p == end);
    assert_memory_equal(&c, &d, sizeof c);
}

static void counts_decode_maps_calls(void **state)
{
    (void)state;
    /* A trace whose call 0 is "fread" here: by_call goes to FREAD. */
    uint8_t buf[32] = {0}, *p = buf;
    p = st_put_u(p, 1);
    p = st_put_u(p, ST_FIELD_BY_CALL + 8 * 0 + 1); /* call 0, read_syscalls */
    p = st_put_u(p, 42);
    uint8_t map[1] = {ST_CALL_FREAD};
    struct st_counts d;
    memset(&d, 0, sizeof d);
    const uint8_t *q = buf;
    assert_int_equal(st_counts_decode(&q, p, &d, map, 1), 0);
    assert_true(d.by_call[ST_CALL_FREAD].read_syscalls == 42);
    /* A call index outside the table is an error, never a wild write. */
    p = buf;
    p = st_put_u(p, 1);
    p = st_put_u(p, ST_FIELD_BY_CALL + 8 * 5);
    p = st_put_u(p, 1);
    q = buf;
    assert_int_equal(st_counts_decode(&q, p, &d, map, 1), -1);
    /* A pair count larger than the input could hold. */
    p = buf;
    p = st_put_u(p, 1000);
    q = buf;
    assert_int_equal(st_counts_decode(&q, p, &d, map, 1), -1);
    /* An unknown scalar (a newer minor version) is skipped. */
    p = buf;
    p = st_put_u(p, 1);
    p = st_put_u(p, 40);
    p = st_put_u(p, 5);
    q = buf;
    memset(&d, 0, sizeof d);
    assert_int_equal(st_counts_decode(&q, p, &d, map, 1), 0);
    struct st_counts zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&d, &zero, sizeof d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varint_round_trip),
        cmocka_unit_test(zigzag),
        cmocka_unit_test(varint_rejects_bad_input),
        cmocka_unit_test(crc32_known_values),
        cmocka_unit_test(crc32_sliced_equals_bytewise),
        cmocka_unit_test(counts_round_trip),
        cmocka_unit_test(counts_decode_maps_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
