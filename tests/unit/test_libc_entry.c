/* Unit tests: which reader a return address inside libc belongs to
 * (src/preload/sites/libc_entry.c), and the GNU-hash lookup it stands on
 * (st_loaded_object_exports_at, src/preload/sites/loaded_object.c), with dladdr1
 * as the oracle for each function's extent; and the lookup by name the
 * stdio hook uses instead of dlsym (st_symbols_lookup), with dlsym as the
 * oracle. */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <link.h>

#include "dynsym.h"
#include "libc_entry.h"
#include "loaded_object.h"

/* libc's own definition of name, and its extent as dladdr1 gives it. */
static uintptr_t libc_function(const char *name, size_t *size)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(libc);
    void *f = dlsym(libc, name);
    assert_non_null(f);
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    assert_true(dladdr1(f, &info, (void **)&sym, RTLD_DL_SYMENT));
    assert_non_null(sym);
    assert_true(sym->st_size > 0);
    *size = sym->st_size;
    dlclose(libc);
    return (uintptr_t)f;
}

static void test_exports_at_covers_the_whole_function(void **state)
{
    (void)state;
    static const char *const names[] = {"fgets", "fread", "getc", "__uflow", "fseek", "fclose"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t size;
        uintptr_t f = libc_function(names[i], &size);
        struct st_loaded_object o;
        assert_true(st_loaded_object(f, &o));
        assert_true(st_loaded_object_exports_at(&o, names[i], f));
        assert_true(st_loaded_object_exports_at(&o, names[i], f + size - 1));
        assert_false(st_loaded_object_exports_at(&o, names[i], f + size));
        assert_false(st_loaded_object_exports_at(&o, names[i], f - 1));
    }
}

static void test_exports_at_knows_aliases_and_misses(void **state)
{
    (void)state;
    size_t size;
    uintptr_t fgets_at = libc_function("fgets", &size);
    struct st_loaded_object o;
    assert_true(st_loaded_object(fgets_at, &o));
    /* _IO_fgets is fgets under another name; fread is another function. */
    assert_true(st_loaded_object_exports_at(&o, "_IO_fgets", fgets_at + 1));
    assert_false(st_loaded_object_exports_at(&o, "fread", fgets_at + 1));
    assert_false(st_loaded_object_exports_at(&o, "no_such_function_here", fgets_at + 1));
    /* A data symbol is not a function, even at its own address. */
    uintptr_t environ_at = (uintptr_t)dlsym(RTLD_DEFAULT, "environ");
    assert_true(st_loaded_object(environ_at, &o));
    assert_false(st_loaded_object_exports_at(&o, "environ", environ_at));
}

/* libc's own definitions, as dlsym on libc's handle gives them: functions
 * and data, and the default version of a name with several
 * (pthread_cond_wait@GLIBC_2.2.5 and @@GLIBC_2.3.2, regexec@GLIBC_2.2.5
 * and @@GLIBC_2.3.4). An IFUNC (memcpy) and a missing name give 0: the
 * caller asks dlsym then. */
static void test_symbols_lookup_is_dlsyms_answer(void **state)
{
    (void)state;
    static const char *const names[] = {
        "_IO_file_jumps", "_IO_wfile_jumps", "_IO_file_overflow", "_IO_default_xsgetn",
        "_IO_un_link",    "_IO_link_in",     "gnu_get_libc_version", "fopen",
        "environ",        "pthread_cond_wait", "regexec",
    };
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(libc);
    struct st_loaded_object o;
    assert_true(st_loaded_object((uintptr_t)dlsym(libc, "fopen"), &o));
    struct st_symbols t;
    assert_true(st_symbols_of(o.base, o.phdr, o.phnum, &t));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *want = dlsym(libc, names[i]);
        assert_non_null(want);
        assert_ptr_equal((void *)st_symbols_lookup(&t, names[i]), want);
    }
    assert_int_equal(st_symbols_lookup(&t, "memcpy"), 0);
    assert_int_equal(st_symbols_lookup(&t, "no_such_symbol_here"), 0);
    dlclose(libc);
}

/* A return address is one past its call: the byte after the function's
 * last one still belongs to it, its first byte does not. */
static void test_entry_call_names_the_reader(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        enum st_call call;
    } cases[] = {
        {"fgets", ST_CALL_FGETS}, {"fgets_unlocked", ST_CALL_FGETS}, {"getc", ST_CALL_GETC},
        {"fgetc", ST_CALL_GETC},  {"getchar", ST_CALL_GETC},         {"__uflow", ST_CALL_GETC},
        {"fread", ST_CALL_OTHER}, {"fscanf", ST_CALL_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        uintptr_t f = libc_function(cases[i].name, &size);
        assert_int_equal(st_libc_entry_call(f + 1), cases[i].call);
        assert_int_equal(st_libc_entry_call(f + size), cases[i].call);
    }
    size_t size;
    uintptr_t fgets_at = libc_function("fgets", &size);
    assert_int_equal(st_libc_entry_call(fgets_at + size + 1) == ST_CALL_FGETS, 0);
    assert_int_equal(st_libc_entry_call(0), ST_CALL_OTHER);
    assert_int_equal(st_libc_entry_call((uintptr_t)&size), ST_CALL_OTHER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exports_at_covers_the_whole_function),
        cmocka_unit_test(test_exports_at_knows_aliases_and_misses),
        cmocka_unit_test(test_symbols_lookup_is_dlsyms_answer),
        cmocka_unit_test(test_entry_call_names_the_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
