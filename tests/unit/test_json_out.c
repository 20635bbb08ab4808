/* Unit tests: the JSON emitter (src/core/json_out.c). */
#include "capture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "json_out.h"

static struct st_outbuf out;
static struct st_json j;

static void begin(void)
{
    capture_open(&out);
    st_json_init(&j, &out);
}

static void nesting_and_commas(void **state)
{
    (void)state;
    begin();
    st_json_begin_object(&j);
    st_json_key(&j, "a");
    st_json_u64(&j, 1);
    st_json_key(&j, "b");
    st_json_begin_array(&j);
    st_json_i64(&j, -2);
    st_json_bool(&j, 1);
    st_json_null(&j);
    st_json_begin_object(&j);
    st_json_end_object(&j);
    st_json_end_array(&j);
    st_json_key(&j, "c");
    st_json_double(&j, 2.5);
    st_json_end_object(&j);
    char *s = capture_close(&out);
    assert_string_equal(s, "{\"a\":1,\"b\":[-2,true,null,{}],\"c\":2.5}");
    free(s);
}

static void strings_are_escaped(void **state)
{
    (void)state;
    begin();
    st_json_string(&j, "q\"b\\n\nt\tc\x01");
    char *s = capture_close(&out);
    assert_string_equal(s, "\"q\\\"b\\\\n\\nt\\tc\\u0001\"");
    free(s);
}

static void valid_utf8_passes_invalid_bytes_are_escaped(void **state)
{
    (void)state;
    begin();
    st_json_string(&j, "caf\xc3\xa9 \xff\xfe x\xc3");
    char *s = capture_close(&out);
    assert_string_equal(s, "\"caf\xc3\xa9 \\udcff\\udcfe x\\udcc3\"");
    free(s);
}

static void non_finite_numbers_are_null(void **state)
{
    (void)state;
    begin();
    st_json_begin_array(&j);
    st_json_double(&j, NAN);
    st_json_double(&j, INFINITY);
    st_json_end_array(&j);
    char *s = capture_close(&out);
    assert_string_equal(s, "[null,null]");
    free(s);
}

static void large_output_crosses_the_buffer(void **state)
{
    (void)state;
    begin();
    st_json_begin_array(&j);
    for (int i = 0; i < 5000; i++)
        st_json_u64(&j, 1234567);
    st_json_end_array(&j);
    char *s = capture_close(&out);
    assert_int_equal(strlen(s), 2 + 5000 * 7 + 4999);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nesting_and_commas),
        cmocka_unit_test(strings_are_escaped),
        cmocka_unit_test(valid_utf8_passes_invalid_bytes_are_escaped),
        cmocka_unit_test(non_finite_numbers_are_null),
        cmocka_unit_test(large_output_crosses_the_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
