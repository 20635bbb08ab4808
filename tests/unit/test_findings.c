/* Unit tests: the diagnosis rules and the reports built on them
 * (src/core/findings.c, report_text.c, report_json.c). Each rule has a case
 * that fires and a near-twin that does not. */
#include "capture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "findings.h"
#include "report_model.h"

static struct st_report_stream stream;
static struct st_report_file file;
static struct st_report report;

/* The 2006 demo at 128 KiB: 200,000 seeks, each reading the whole buffer. */
static void demo_128k(void)
{
    memset(&stream, 0, sizeof stream);
    memset(&file, 0, sizeof file);
    memset(&report, 0, sizeof report);
    stream.fd = 3;
    stream.buffer_size = 131072;
    stream.mode = ST_BUF_FULL;
    stream.origin = ST_BUF_USER;
    struct st_counts *c = &stream.counts;
    c->read_syscalls = 200000;
    c->kernel_read_bytes = 200000ull * 131072;
    c->lseek_syscalls = 200000;
    c->requested_bytes = c->delivered_bytes = 3200000;
    c->reread_bytes = c->kernel_read_bytes - 4194304;
    c->seeks_discarding_buffer = 200000;
    c->by_call[ST_CALL_FSEEK].calls = 200000;
    c->by_call[ST_CALL_FSEEK].read_syscalls = 200000;
    c->by_call[ST_CALL_FSEEK].kernel_read_bytes = c->kernel_read_bytes;
    c->by_call[ST_CALL_FREAD].calls = 200000;
    file.path = "/data/demo.dat";
    file.counts = stream.counts;
    file.streams = &stream;
    file.nstreams = 1;
    report.capture = "exact";
    report.pid = 42;
    report.files = &file;
    report.nfiles = 1;
    st_report_finish(&report, NULL);
}

static const struct st_finding *find_rule(struct st_finding *f, size_t n, const char *rule)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].rule, rule) == 0)
            return &f[i];
    return NULL;
}

static void fseek_discarding_a_large_buffer_is_the_top_problem(void **state)
{
    (void)state;
    demo_128k();
    struct st_finding f[8];
    size_t n = st_find_problems(&report, f, 8);
    assert_true(n >= 1);
    assert_string_equal(f[0].rule, "fseek-discards-buffer");
    assert_non_null(strstr(f[0].what, "every fseek on /data/demo.dat threw away its 128 KiB buffer"));
    assert_non_null(strstr(f[0].what, "glibc read it again: 200,000 reads of 24.4 GiB"));
    assert_non_null(strstr(f[0].what, "to deliver 3.05 MiB (8,192x)"));
    assert_non_null(strstr(f[0].change, "4 KiB buffer (about 781 MiB"));
    assert_non_null(strstr(f[0].change, "pread() exactly the bytes needed (3.05 MiB)"));
    /* The re-reads are the same waste: not said twice. */
    assert_null(find_rule(f, n, "reread"));
}

/* The 2006 demo on a warm page cache: the kernel's 24.4 GiB came from it. */
static void page_cache_copies_when_the_device_read_little(void **state)
{
    (void)state;
    demo_128k();
    report.storage.measured = 1;
    report.storage.device_read_bytes = 4194304;
    struct st_finding f[8];
    size_t n = st_find_problems(&report, f, 8);
    const struct st_finding *x = find_rule(f, n, "page-cache-copies");
    assert_non_null(x);
    assert_string_equal(x->file->path, "/data/demo.dat");
    assert_non_null(strstr(x->what, "readahead will not help: 24.4 GiB came from the page cache; "
                                    "the buffer size will"));
    assert_non_null(strstr(x->what, "the device read 4.00 MiB"));
    /* Near-twins: a device that read a fifth of it (a cold cache), and no
     * device figures at all. */
    report.storage.device_read_bytes = report.totals.kernel_read_bytes / 5;
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "page-cache-copies"));
    report.storage.measured = 0;
    report.storage.device_read_bytes = 0;
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "page-cache-copies"));
    assert_non_null(find_rule(f, n, "fseek-discards-buffer"));
}

/* 400 runs of 8 x 4 KiB at random offsets of a cold file, measured here
 * (docs/storage.md): 64.8 MB from the device for 13.1 MB read. */
static void runs(uint64_t device, uint64_t lseeks)
{
    memset(&file, 0, sizeof file);
    memset(&report, 0, sizeof report);
    struct st_counts *c = &file.counts;
    c->read_syscalls = 3200;
    c->kernel_read_bytes = c->requested_bytes = c->delivered_bytes = 13107200;
    c->lseek_syscalls = lseeks;
    c->by_call[ST_CALL_READ].calls = 3200;
    c->by_call[ST_CALL_READ].read_syscalls = 3200;
    c->by_call[ST_CALL_READ].kernel_read_bytes = c->kernel_read_bytes;
    c->by_call[ST_CALL_LSEEK].calls = lseeks;
    c->by_call[ST_CALL_LSEEK].lseek_syscalls = lseeks;
    file.path = "/data/runs.dat";
    report.capture = "exact";
    report.files = &file;
    report.nfiles = 1;
    report.storage.measured = 1;
    report.storage.device_read_bytes = device;
    st_report_finish(&report, NULL);
}

static void readahead_overfetch_on_short_random_runs(void **state)
{
    (void)state;
    struct st_finding f[8];
    runs(64757760, 400);
    size_t n = st_find_problems(&report, f, 8);
    const struct st_finding *x = find_rule(f, n, "readahead-overfetch");
    assert_non_null(x);
    assert_non_null(strstr(x->what, "the device read 61.8 MiB for the 12.5 MiB the kernel handed "
                                    "over (4.94x) to a program that jumped 400 times"));
    assert_non_null(strstr(x->change, "POSIX_FADV_RANDOM) on /data/runs.dat"));
    /* Near-twins: the same runs with POSIX_FADV_RANDOM (12.0 MB from the
     * device), and a sequential reader that reads twice what it copies
     * (files mapped besides) but never jumps. */
    runs(11952128, 400);
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "readahead-overfetch"));
    runs(64757760, 10);
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "readahead-overfetch"));
    assert_null(find_rule(f, n, "page-cache-copies"));
}

static void sequential_reading_has_no_problem(void **state)
{
    (void)state;
    demo_128k();
    struct st_counts *c = &file.counts;
    c->kernel_read_bytes = c->delivered_bytes = c->requested_bytes = 4194304;
    c->read_syscalls = 33;
    c->reread_bytes = 0;
    c->seeks_discarding_buffer = 0;
    struct st_finding f[8];
    assert_int_equal(st_find_problems(&report, f, 8), 0);
}

static void in_buffer_seeks_with_resync_lseeks(void **state)
{
    (void)state;
    demo_128k();
    struct st_counts *c = &file.counts;
    memset(c, 0, sizeof *c);
    c->seeks_in_buffer = 3000000;
    c->resync_lseeks = 3000000;
    c->lseek_syscalls = 3000000;
    c->by_call[ST_CALL_FSEEK].calls = 3000000;
    c->by_call[ST_CALL_FSEEK].lseek_syscalls = 3000000;
    struct st_finding f[8];
    size_t n = st_find_problems(&report, f, 8);
    const struct st_finding *x = find_rule(f, n, "fseek-resync-lseek");
    assert_non_null(x);
    assert_non_null(strstr(x->what, "3,000,000 fseeks on /data/demo.dat stayed inside the buffer yet made 3,000,000 lseek"));
    /* A few hundred are not worth a user's time. */
    c->seeks_in_buffer = c->resync_lseeks = 500;
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "fseek-resync-lseek"));
}

static void small_direct_reads_vs_large_ones(void **state)
{
    (void)state;
    demo_128k();
    struct st_counts *c = &file.counts;
    memset(c, 0, sizeof *c);
    file.nstreams = 0;
    c->read_syscalls = c->by_call[ST_CALL_READ].read_syscalls = 100000;
    c->kernel_read_bytes = c->delivered_bytes = 100000 * 64;
    struct st_finding f[8];
    size_t n = st_find_problems(&report, f, 8);
    const struct st_finding *x = find_rule(f, n, "small-direct-reads");
    assert_non_null(x);
    assert_non_null(strstr(x->what, "100,000 read syscalls of 64 B on average"));
    c->kernel_read_bytes = c->delivered_bytes = 100000ull * 65536;
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "small-direct-reads"));
}

static void setvbuf_size_ignored(void **state)
{
    (void)state;
    demo_128k();
    stream.origin = ST_BUF_SIZE_IGNORED;
    stream.requested_buffer_size = 1 << 20;
    stream.buffer_size = 4096;
    struct st_finding f[8];
    size_t n = st_find_problems(&report, f, 8);
    const struct st_finding *x = find_rule(f, n, "setvbuf-size-ignored");
    assert_non_null(x);
    assert_non_null(strstr(x->what, "asked for a 1.00 MiB buffer"));
    assert_non_null(strstr(x->what, "used 4.00 KiB"));
    stream.origin = ST_BUF_USER;
    n = st_find_problems(&report, f, 8);
    assert_null(find_rule(f, n, "setvbuf-size-ignored"));
}

static void text_report_names_file_and_problem(void **state)
{
    (void)state;
    demo_128k();
    struct st_outbuf o;
    capture_open(&o);
    st_report_write_text(&report, &o);
    char *s = capture_close(&o);
    assert_non_null(strstr(s, "seektrace: pid 42"));
    assert_non_null(strstr(s, "24.4 GiB read from the kernel in 200,000 read syscalls"));
    assert_non_null(strstr(s, "8,192x amplification"));
    assert_non_null(strstr(s, "/data/demo.dat"));
    assert_non_null(strstr(s, "128 KiB user buffer"));
    assert_non_null(strstr(s, "problem: every fseek"));
    free(s);
}

static void json_report_has_the_schema_keys(void **state)
{
    (void)state;
    demo_128k();
    struct st_outbuf o;
    capture_open(&o);
    st_report_write_json(&report, &o);
    char *s = capture_close(&o);
    assert_non_null(strstr(s, "{\"schema\":\"seektrace.report/2\",\"capture\":\"exact\",\"pid\":42"));
    assert_non_null(strstr(s, "\"files\":[{\"path\":\"/data/demo.dat\",\"read_syscalls\":200000,"
                              "\"kernel_read_bytes\":26214400000,\"lseek_syscalls\":200000"));
    assert_non_null(strstr(s, "\"requested_bytes\":3200000,\"delivered_bytes\":3200000,"
                              "\"reread_bytes\":26210205696"));
    assert_non_null(strstr(s, "\"amplification\":8192"));
    assert_non_null(strstr(s, "\"rule\":\"fseek-discards-buffer\""));
    assert_non_null(strstr(s, "\"buffer_origin\":\"user\""));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fseek_discarding_a_large_buffer_is_the_top_problem),
        cmocka_unit_test(sequential_reading_has_no_problem),
        cmocka_unit_test(in_buffer_seeks_with_resync_lseeks),
        cmocka_unit_test(small_direct_reads_vs_large_ones),
        cmocka_unit_test(setvbuf_size_ignored),
        cmocka_unit_test(page_cache_copies_when_the_device_read_little),
        cmocka_unit_test(readahead_overfetch_on_short_random_runs),
        cmocka_unit_test(text_report_names_file_and_problem),
        cmocka_unit_test(json_report_has_the_schema_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
