/* Unit tests: a file's kernel name from its directory's name and the entry
 * it was opened by (src/preload/accounts/name_in_dir.c). A name is given
 * only where the kernel's could not differ; everything else is /proc's to
 * name. tests/integration/tree_names.py checks the names real tree walkers
 * get against strace -y. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "name_in_dir.h"

static const char *named(const char *dir, const char *entry, int flags)
{
    static char name[64];
    memset(name, '#', sizeof name);
    return st_name_in_dir(dir, entry, flags, name, sizeof name) ? name : NULL;
}

static void joins_directory_and_entry(void **state)
{
    (void)state;
    assert_string_equal(named("/usr/include", "stdio.h", O_RDONLY | O_NOFOLLOW),
                        "/usr/include/stdio.h");
    assert_string_equal(named("/", "etc", O_RDONLY | O_NOFOLLOW | O_DIRECTORY), "/etc");
    assert_string_equal(named("/tmp/a b", "new\nline", O_NOFOLLOW), "/tmp/a b/new\nline");
    assert_string_equal(named("/dev/shm/x", "..dots", O_NOFOLLOW), "/dev/shm/x/..dots");
    assert_string_equal(named("/procfs-is-not-proc", "f", O_NOFOLLOW), "/procfs-is-not-proc/f");
    /* O_EXCL with O_CREAT never follows a symlink, whatever O_NOFOLLOW says. */
    assert_string_equal(named("/tmp", "new", O_WRONLY | O_CREAT | O_EXCL), "/tmp/new");
}

static void only_when_no_symlink_can_be_followed(void **state)
{
    (void)state;
    assert_null(named("/tmp", "f", O_RDONLY));
    assert_null(named("/tmp", "f", O_WRONLY | O_CREAT));
    assert_null(named("/tmp", "f", O_WRONLY | O_EXCL));
    /* O_PATH|O_NOFOLLOW opens the symlink itself; O_TMPFILE names nothing. */
    assert_null(named("/tmp", "f", O_PATH | O_NOFOLLOW));
    assert_null(named("/tmp", ".", O_TMPFILE | O_RDWR | O_NOFOLLOW));
    assert_null(named("/tmp", "x", O_TMPFILE | O_RDWR | O_NOFOLLOW));
}

static void only_for_one_entry(void **state)
{
    (void)state;
    assert_null(named("/tmp", "", O_NOFOLLOW));
    assert_null(named("/tmp", ".", O_NOFOLLOW));
    assert_null(named("/tmp", "..", O_NOFOLLOW));
    assert_null(named("/tmp", "a/b", O_NOFOLLOW));
    assert_null(named("/tmp", "/etc/passwd", O_NOFOLLOW));
    assert_null(named("/tmp", NULL, O_NOFOLLOW));
}

static void only_in_a_plain_directory(void **state)
{
    (void)state;
    assert_null(named(NULL, "f", O_NOFOLLOW));
    assert_null(named("relative", "f", O_NOFOLLOW));
    assert_null(named("pipe:[123]", "f", O_NOFOLLOW));
    assert_null(named("/proc", "self", O_NOFOLLOW));
    assert_null(named("/proc/1/fd", "0", O_NOFOLLOW));
    assert_null(named("/tmp/gone (deleted)", "f", O_NOFOLLOW));
}

static void only_when_it_fits(void **state)
{
    (void)state;
    char name[12];
    assert_int_equal(st_name_in_dir("/abc", "123456", O_NOFOLLOW, name, sizeof name), 1);
    assert_string_equal(name, "/abc/123456");
    assert_int_equal(st_name_in_dir("/abc", "1234567", O_NOFOLLOW, name, sizeof name), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(joins_directory_and_entry),
        cmocka_unit_test(only_when_no_symlink_can_be_followed),
        cmocka_unit_test(only_for_one_entry),
        cmocka_unit_test(only_in_a_plain_directory),
        cmocka_unit_test(only_when_it_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
