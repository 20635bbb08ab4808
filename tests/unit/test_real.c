/* Unit tests: the real functions behind the interposed names
 * (src/preload/boot/real.c). st_real_resolve reads most START names from
 * libc's symbol table instead of asking dlsym; every one must be what
 * dlsym(RTLD_NEXT) gives, here from the test program, which real.c is
 * linked into. real_shim.so, linked before libc, defines pread64 and dup3:
 * neither may be libc's (under a sanitizer its runtime, loaded first,
 * defines pread64 too, and is dlsym's answer). */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <string.h>

#include "real.h"

static int checked, shimmed;

static void check(const char *name, void *got, enum st_real_when when)
{
    if (when != ST_REAL_START)
        return;
    void *want = dlsym(RTLD_NEXT, name);
    if (!want)
        return; /* this libc has none: the slot keeps its stand-in */
    if (got != want)
        fail_msg("%s: st_real_resolve gave %p, dlsym(RTLD_NEXT) %p", name, got, want);
    Dl_info info;
    assert_true(dladdr(want, &info));
    if ((strcmp(name, "pread64") == 0 || strcmp(name, "dup3") == 0) &&
        !strstr(info.dli_fname, "libc.so"))
        shimmed++;
    checked++;
}

static void test_start_names_are_dlsyms_answers(void **state)
{
    (void)state;
    assert_int_equal(st_real_resolve(), 0);
#define ST_REAL_ROW(name, type, when, how) check(#name, *(void **)&st_real.name, ST_REAL_##when);
#include "real_table.h"
#undef ST_REAL_ROW
    assert_true(checked > 40);
    assert_int_equal(shimmed, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_names_are_dlsyms_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
