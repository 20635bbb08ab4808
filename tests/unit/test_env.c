/* Unit tests: the settings read from the environment in one pass
 * (src/preload/boot/env.c) are what getenv gives, name by name: the first
 * of two entries, names that are the start of others (SEEKTRACE_TRACE,
 * SEEKTRACE_TRACE_MAX), empty values, entries without '=', and names that
 * share only their first letters with one of ours. */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "env.h"

extern char **environ;

static void same_as_getenv(void)
{
    st_env_load();
    for (int id = 0; id < ST_ENV_COUNT; id++) {
        const char *want = getenv(st_env_name((enum st_env_id)id));
        const char *got = st_env((enum st_env_id)id);
        if (want != got)
            fail_msg("%s: st_env %s, getenv %s", st_env_name((enum st_env_id)id),
                     got ? got : "(null)", want ? want : "(null)");
    }
}

static void test_env_is_getenv(void **state)
{
    (void)state;
    static char *env[] = {
        "SEEKTRACE_TRACE_MAX=1M", "SEEKTRACE_TRACE=/tmp/t", "SEEKTRACE_REPORT_FILES=all",
        "SEEKTRACE_REPORTX=no", "SEEKTRACE_REPORT=off", "SEEKTRACE_REPORT=on",
        "SEEKTRACE_STACK=", "SEEKTRACE_FORMAT", "SEEKTRACE_FORMAT=json", "SE=x",
        "SEEKTRACE_=x", "LD_AUDITX=1", "LD_DYNAMIC_WEAK=", "GLIBC_TUNABLES=glibc.rtld.x=1",
        "S", "", "PATH=/bin", NULL,
    };
    char **saved = environ;
    environ = env;
    same_as_getenv();
    assert_string_equal(ST_ENV(SEEKTRACE_REPORT), "off");
    assert_string_equal(ST_ENV(SEEKTRACE_TRACE), "/tmp/t");
    assert_string_equal(ST_ENV(SEEKTRACE_STACK), "");
    assert_null(ST_ENV(LD_AUDIT));
    static char *none[] = {NULL};
    environ = none;
    same_as_getenv();
    environ = saved;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_is_getenv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
