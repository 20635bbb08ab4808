/* Unit tests: run labels, their rules and their encoded list
 * (src/core/labels.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "labels.h"

static const char *check(const char *kv)
{
    return st_label_check(kv, strlen(kv));
}

static void rules(void **state)
{
    (void)state;
    assert_null(check("job=42"));
    assert_null(check("k="));                /* an empty value is a value */
    assert_null(check("a.b-c_D9=x=y z/1"));  /* '=' and spaces in the value */
    assert_string_equal(check("job"), "a label is KEY=VALUE");
    assert_string_equal(check("=1"), "the key is empty");
    assert_string_equal(check(".k=1"), "the key starts with '.' or '-'");
    assert_string_equal(check("-k=1"), "the key starts with '.' or '-'");
    assert_string_equal(check("a b=1"), "the key has a character other than A-Z a-z 0-9 _ . -");
    assert_string_equal(check("k=1,2"), "the value has a ','");
    assert_string_equal(check("k=a\tb"), "the value has a control character");
    char key[70], value[300];
    memset(key, 'k', 64);
    strcpy(key + 64, "=1");
    assert_null(check(key));
    memset(key, 'k', 65);
    strcpy(key + 65, "=1");
    assert_string_equal(check(key), "the key is longer than 64 bytes");
    value[0] = 'v';
    value[1] = '=';
    memset(value + 2, 'x', 256);
    value[258] = '\0';
    assert_null(check(value));
    strcpy(value + 258, "x");
    assert_string_equal(check(value), "the value is longer than 256 bytes");
}

static void lists(void **state)
{
    (void)state;
    char out[ST_LABELS_BYTES];
    size_t len = 0, at = 99;
    assert_null(st_labels_add("", out, sizeof out, &len, &at));
    assert_int_equal(len, 0);
    assert_null(st_labels_add("job=7,commit=abc", out, sizeof out, &len, &at));
    assert_int_equal(len, sizeof "job=7" + sizeof "commit=abc");
    assert_memory_equal(out, "job=7\0commit=abc\0", len);
    /* A bad label anywhere: nothing added, its place said. */
    assert_string_equal(st_labels_add("t=1,bad key=2", out, sizeof out, &len, &at),
                        "the key has a character other than A-Z a-z 0-9 _ . -");
    assert_int_equal(at, 4);
    assert_int_equal(len, sizeof "job=7" + sizeof "commit=abc");
    assert_string_equal(st_labels_add("t=1,", out, sizeof out, &len, &at),
                        "a label is KEY=VALUE");
    assert_string_equal(st_labels_add("job=8", out, sizeof out, &len, &at),
                        "the key is given twice");
    assert_string_equal(st_labels_add("a=1,a=2", out, sizeof out, &len, &at),
                        "the key is given twice");
    assert_int_equal(at, 4);
    /* A key that is a prefix of another is another key. */
    assert_null(st_labels_add("jo=1,job2=3", out, sizeof out, &len, &at));
    assert_memory_equal(out, "job=7\0commit=abc\0jo=1\0job2=3\0", len);
}

static void limits(void **state)
{
    (void)state;
    char out[ST_LABELS_BYTES], spec[600];
    size_t len = 0, at, n = 0;
    for (int i = 0; i < ST_LABELS_MAX; i++)
        n += (size_t)snprintf(spec + n, sizeof spec - n, "%sk%d=%d", i ? "," : "", i, i);
    assert_null(st_labels_add(spec, out, sizeof out, &len, &at));
    size_t full = len;
    assert_string_equal(st_labels_add("one=more", out, sizeof out, &len, &at),
                        "more than 32 labels");
    assert_int_equal(len, full);
    /* Too little room: an error, never a write past it. */
    char small[8];
    len = 0;
    assert_string_equal(st_labels_add("job=12345", small, sizeof small, &len, &at),
                        "the labels are too long");
    assert_int_equal(len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules),
        cmocka_unit_test(lists),
        cmocka_unit_test(limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
