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

static void sink_to_outbuf(void *o, const char *s, size_t n)
{
    st_out_write(o, s, n);
}

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

/* Well-formed UTF-8 out whatever the bytes in (name_text.h has the full
 * table); the same text through st_json_write_string, for the tools. */
static void strings_are_well_formed_utf8(void **state)
{
    (void)state;
    static const char name[] = "caf\xc3\xa9 \xff\xfe x\xed\xa0\x80\x7f\xef\xbf\xbd\"\xc3";
    static const char text[] = "\"caf\xc3\xa9 \xef\xbf\xbd" "FF\xef\xbf\xbd" "FE x\xef\xbf\xbd"
                               "ED\xef\xbf\xbd" "A0\xef\xbf\xbd" "80\\u007f\xef\xbf\xbd\xef\xbf\xbd"
                               "\\\"\xef\xbf\xbd" "C3\"";
    begin();
    st_json_string(&j, name);
    char *s = capture_close(&out);
    assert_string_equal(s, text);
    free(s);
    begin();
    st_json_write_string(name, sink_to_outbuf, &out);
    s = capture_close(&out);
    assert_string_equal(s, text);
    free(s);
}

/* Long strings go to the sink in runs that together are the whole text. */
static void long_strings_cross_runs(void **state)
{
    (void)state;
    char name[1001];
    for (int i = 0; i < 1000; i++)
        name[i] = i % 3 == 2 ? '\xff' : 'a';
    name[1000] = '\0';
    begin();
    st_json_string(&j, name);
    char *s = capture_close(&out);
    assert_int_equal(strlen(s), 2 + 667 + 333 * 5);
    assert_memory_equal(s, "\"aa\xef\xbf\xbd" "FFaa", 10);
    assert_memory_equal(s + strlen(s) - 4, "FFa\"", 4);
    free(s);
    /* A run of plain ASCII longer than the gathering buffer. */
    memset(name, 'b', 1000);
    begin();
    st_json_string(&j, name);
    s = capture_close(&out);
    assert_int_equal(strlen(s), 1002);
    assert_true(s[0] == '"' && s[1] == 'b' && s[1000] == 'b' && s[1001] == '"');
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
        cmocka_unit_test(strings_are_well_formed_utf8),
        cmocka_unit_test(long_strings_cross_runs),
        cmocka_unit_test(non_finite_numbers_are_null),
        cmocka_unit_test(large_output_crosses_the_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
