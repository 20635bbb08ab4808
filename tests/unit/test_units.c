/* Unit tests: human-readable numbers and size parsing (src/core/units.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "units.h"

static void bytes(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(st_fmt_bytes(b, sizeof b, 0), "0 B");
    assert_string_equal(st_fmt_bytes(b, sizeof b, 16), "16 B");
    assert_string_equal(st_fmt_bytes(b, sizeof b, 1023), "1023 B");
    assert_string_equal(st_fmt_bytes(b, sizeof b, 4096), "4.00 KiB");
    assert_string_equal(st_fmt_bytes(b, sizeof b, 131072), "128 KiB");
    assert_string_equal(st_fmt_bytes(b, sizeof b, 3200000), "3.05 MiB");
    assert_string_equal(st_fmt_bytes(b, sizeof b, 26214400000ull), "24.4 GiB");
}

static void counts(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(st_fmt_count(b, sizeof b, 0), "0");
    assert_string_equal(st_fmt_count(b, sizeof b, 999), "999");
    assert_string_equal(st_fmt_count(b, sizeof b, 1000), "1,000");
    assert_string_equal(st_fmt_count(b, sizeof b, 200001), "200,001");
    assert_string_equal(st_fmt_count(b, sizeof b, 1234567890), "1,234,567,890");
}

static void ratios(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(st_fmt_ratio(b, sizeof b, 0.0), "-");
    assert_string_equal(st_fmt_ratio(b, sizeof b, 1.0), "1.00x");
    assert_string_equal(st_fmt_ratio(b, sizeof b, 256.0), "256x");
    assert_string_equal(st_fmt_ratio(b, sizeof b, 8192.0), "8,192x");
}

static void sizes(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(st_parse_size("4096", &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(st_parse_size("4k", &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(st_parse_size("128KiB", &v), 0);
    assert_int_equal(v, 131072);
    assert_int_equal(st_parse_size("1M", &v), 0);
    assert_int_equal(v, 1048576);
    assert_int_equal(st_parse_size("2g", &v), 0);
    assert_int_equal(v, 2147483648ull);
    assert_int_equal(st_parse_size("", &v), -1);
    assert_int_equal(st_parse_size("k", &v), -1);
    assert_int_equal(st_parse_size("12x", &v), -1);
    assert_int_equal(st_parse_size("-1", &v), -1);
    assert_int_equal(st_parse_size("4kx", &v), -1);
    assert_int_equal(st_parse_size("99999999999999999999", &v), -1);
    assert_int_equal(st_parse_size("17179869184G", &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bytes), cmocka_unit_test(counts),
        cmocka_unit_test(ratios), cmocka_unit_test(sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
