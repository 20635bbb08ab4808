/* Unit tests: the cost model, its default path and its file
 * (src/tracefile/cost_model.c). */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cost_model.h"

#define HEADER_LINE "seektrace-calibration 1\n"

static const struct st_cost_model sample = {
    .read_ns = 412.5,
    .lseek_ns = 180.25,
    .fstat_ns = 350,
    .byte_ns = 0.0912,
    .source = "calibrated 2026-11-30 14:02 on host",
};

static void predict(void **state)
{
    (void)state;
    assert_true(st_cost_predict_ns(&sample, 0, 0, 0, 0) == 0);
    assert_true(st_cost_predict_ns(&sample, 1, 0, 0, 0) == 412.5);
    assert_true(st_cost_predict_ns(&sample, 0, 2, 0, 0) == 360.5);
    assert_true(st_cost_predict_ns(&sample, 0, 0, 3, 0) == 1050);
    /* The 2006 demo at 128 KiB: 193,892 reads, 200,000 lseeks, 23.7 GiB. */
    double t = st_cost_predict_ns(&sample, 193892, 200000, 1, 25447170048ull);
    double want = 193892 * 412.5 + 200000 * 180.25 + 350 + 25447170048.0 * 0.0912;
    assert_true(fabs(t - want) < 1e-6 * want);
}

static void validity(void **state)
{
    (void)state;
    assert_null(st_cost_invalid(&sample));
    struct st_cost_model m = sample;
    m.lseek_ns = -1;
    assert_string_equal(st_cost_invalid(&m), "lseek_ns is not a number above 0 and at most 1e+07");
    m = sample;
    m.byte_ns = NAN;
    assert_non_null(strstr(st_cost_invalid(&m), "byte_ns"));
    m = sample;
    m.read_ns = 0;
    assert_non_null(st_cost_invalid(&m));
    m = sample;
    strcpy(m.source, "two\nlines");
    assert_non_null(strstr(st_cost_invalid(&m), "source"));
    m.source[0] = '\0';
    assert_non_null(st_cost_invalid(&m));
}

static void default_path(void **state)
{
    (void)state;
    char p[256];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/u", 1);
    assert_int_equal(st_cost_default_path(p, sizeof p), 0);
    assert_string_equal(p, "/x/cache/seektrace/calibration");
    /* A relative XDG_CACHE_HOME is ignored (the XDG spec). */
    setenv("XDG_CACHE_HOME", "rel", 1);
    assert_int_equal(st_cost_default_path(p, sizeof p), 0);
    assert_string_equal(p, "/home/u/.cache/seektrace/calibration");
    unsetenv("XDG_CACHE_HOME");
    assert_int_equal(st_cost_default_path(p, sizeof p), 0);
    assert_string_equal(p, "/home/u/.cache/seektrace/calibration");
    assert_int_equal(st_cost_default_path(p, 10), -1);
    unsetenv("HOME");
    assert_int_equal(st_cost_default_path(p, sizeof p), -1);
}

/* A fresh directory per test in $TMPDIR (or /tmp), removed in teardown. */
static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_cost_model.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static int remove_dir(void **state)
{
    (void)state;
    return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The names in dir, sorted, joined by spaces: what a save left there. */
static const char *listing(void)
{
    static char out[512];
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.')
            snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", out[0] ? " " : "",
                     names[i]->d_name);
        free(names[i]);
    }
    free(names);
    return out;
}

static void round_trip(void **state)
{
    (void)state;
    char path[384], err[768];
    /* Two directories to create on the way. */
    snprintf(path, sizeof path, "%s/a/b/calibration", dir);
    struct st_cost_model m = sample, back;
    m.byte_ns = 1.0 / 3; /* no short decimal: written with every digit */
    assert_int_equal(st_cost_save(&m, path, err, sizeof err), 0);
    memset(&back, 0x55, sizeof back);
    assert_int_equal(st_cost_load(&back, path, err, sizeof err), 0);
    assert_true(back.read_ns == m.read_ns && back.lseek_ns == m.lseek_ns &&
                back.fstat_ns == m.fstat_ns && back.byte_ns == m.byte_ns);
    assert_string_equal(back.source, m.source);

    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    snprintf(path, sizeof path, "%s/a/b", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);

    /* The file people read: short decimals, the documented layout. */
    snprintf(path, sizeof path, "%s/plain", dir);
    assert_int_equal(st_cost_save(&sample, path, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[512];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_string_equal(text, "seektrace-calibration 1\n"
                              "source calibrated 2026-11-30 14:02 on host\n"
                              "read_ns 412.5\n"
                              "lseek_ns 180.25\n"
                              "fstat_ns 350\n"
                              "byte_ns 0.0912\n");
    /* Saving again replaces it, leaving no temporary file. */
    m = sample;
    m.read_ns = 500;
    assert_int_equal(st_cost_save(&m, path, err, sizeof err), 0);
    assert_int_equal(st_cost_load(&back, path, err, sizeof err), 0);
    assert_true(back.read_ns == 500);
    assert_string_equal(listing(), "a plain");
}

static void save_errors(void **state)
{
    (void)state;
    char path[384], err[768];
    /* A parent that is a file. */
    snprintf(path, sizeof path, "%s/file", dir);
    assert_int_equal(st_cost_save(&sample, path, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/file/calibration", dir);
    assert_int_equal(st_cost_save(&sample, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot write "));
    assert_non_null(strstr(err, path));
    assert_null(strchr(err, '\n'));
    /* An invalid model is not written. */
    struct st_cost_model m = sample;
    m.fstat_ns = INFINITY;
    snprintf(path, sizeof path, "%s/inf", dir);
    assert_int_equal(st_cost_save(&m, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "fstat_ns"));
    assert_int_equal(access(path, F_OK), -1);
    /* A directory in the way: the rename fails after the temporary file was
     * written, which must not stay behind. */
    snprintf(path, sizeof path, "%s/isdir", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(st_cost_save(&sample, path, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_string_equal(listing(), "file isdir");
}

/* Writes text to DIR/name and loads it: expects failure with one line
 * naming the file, holding want (and "FILE:line:" when line > 0). */
static void expect_bad(const char *name, const char *text, size_t len, int line, const char *want)
{
    char path[384], err[768];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    struct st_cost_model m = sample;
    errno = ENOENT;
    if (st_cost_load(&m, path, err, sizeof err) != -1)
        fail_msg("%s: loaded", name);
    assert_int_equal(errno, 0);
    if (!strstr(err, path) || strchr(err, '\n') || !strstr(err, want))
        fail_msg("%s: message '%s' lacks '%s' or the path, or is not one line", name, err, want);
    if (line > 0) {
        char where[400];
        snprintf(where, sizeof where, "%s:%d: ", path, line);
        if (strncmp(err, where, strlen(where)) != 0)
            fail_msg("%s: message '%s' does not start with '%s'", name, err, where);
    }
    /* A failed load leaves the model alone. */
    assert_true(m.read_ns == sample.read_ns);
}

#define BAD(name, text, line, want) expect_bad(name, text, sizeof text - 1, line, want)

static void corrupt_files(void **state)
{
    (void)state;
    BAD("empty", "", 0, "empty");
    BAD("header", "seektrace-calibrashun 1\nread_ns 1\n", 1, "not a seektrace calibration");
    BAD("elf", "\177ELF\2\1\1\0\0\0", 1, "not a seektrace calibration");
    BAD("version", "seektrace-calibration 2\nsource x\n", 1, "version '2'");
    BAD("version-none", "seektrace-calibration \n", 1, "version ''");
    BAD("missing", "seektrace-calibration 1\nsource s\nread_ns 400\nlseek_ns 100\n"
                   "fstat_ns 300\n", 6, "no byte_ns line");
    BAD("no-source", "seektrace-calibration 1\nread_ns 400\nlseek_ns 100\n"
                     "fstat_ns 300\nbyte_ns 0.1\n", 6, "no source line");
    BAD("negative", "seektrace-calibration 1\nsource s\nread_ns -400\nlseek_ns 100\n"
                    "fstat_ns 300\nbyte_ns 0.1\n", 3, "read_ns: '-400' is not a number");
    BAD("zero", "seektrace-calibration 1\nsource s\nread_ns 400\nlseek_ns 0\n"
                "fstat_ns 300\nbyte_ns 0.1\n", 4, "lseek_ns: '0'");
    BAD("nan", "seektrace-calibration 1\nsource s\nread_ns 400\nlseek_ns 100\n"
               "fstat_ns nan\nbyte_ns 0.1\n", 5, "fstat_ns: 'nan'");
    BAD("inf", "seektrace-calibration 1\nsource s\nread_ns 400\nlseek_ns 100\n"
               "fstat_ns 300\nbyte_ns inf\n", 6, "byte_ns: 'inf'");
    BAD("huge", "seektrace-calibration 1\nsource s\nread_ns 1e300\nlseek_ns 100\n"
                "fstat_ns 300\nbyte_ns 0.1\n", 3, "at most 1e+07");
    BAD("byte-range", "seektrace-calibration 1\nsource s\nread_ns 400\nlseek_ns 100\n"
                      "fstat_ns 300\nbyte_ns 2000\n", 6, "at most 1000");
    BAD("junk", "seektrace-calibration 1\nsource s\nread_ns 400ns\n", 3, "'400ns'");
    BAD("space", "seektrace-calibration 1\nsource s\nread_ns  400\n", 3, "' 400'");
    BAD("empty-value", "seektrace-calibration 1\nsource s\nread_ns\n", 3, "no value");
    BAD("unknown", "seektrace-calibration 1\nsource s\nwrite_ns 400\n", 3, "unknown key 'write_ns'");
    BAD("twice", "seektrace-calibration 1\nsource s\nread_ns 400\nread_ns 400\n", 4,
        "a second read_ns");
    BAD("control", "seektrace-calibration 1\nsource s\r\nread_ns 400\n", 2, "control character");
    /* Cut in the middle of a line: "byte_ns 0.1" would read as 0.1. */
    BAD("truncated", "seektrace-calibration 1\nsource s\nread_ns 400\nlseek_ns 100\n"
                     "fstat_ns 300\nbyte_ns 0.1234", 6, "truncated");
    char big[5000];
    memset(big, 'a', sizeof big);
    memcpy(big, HEADER_LINE, strlen(HEADER_LINE));
    expect_bad("big", big, sizeof big, 0, "larger than 4096 bytes");
}

static void missing_file(void **state)
{
    (void)state;
    char path[384], err[768];
    struct st_cost_model m;
    snprintf(path, sizeof path, "%s/none", dir);
    assert_int_equal(st_cost_load(&m, path, err, sizeof err), -1);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(err, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predict),
        cmocka_unit_test(validity),
        cmocka_unit_test(default_path),
        cmocka_unit_test_setup_teardown(round_trip, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(save_errors, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(corrupt_files, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(missing_file, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
