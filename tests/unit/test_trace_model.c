/* Unit tests: rebuilding a report from events (trace_model.c) follows the
 * library's rules — what each event counts, which streams and files a
 * report shows, stream order, sites summed per file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace_model.h"

static struct st_trace_event ev(unsigned kind)
{
    struct st_trace_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.call = -1;
    return e;
}

static void apply(struct st_trace_model *m, struct st_trace_event e)
{
    assert_int_equal(st_trace_model_apply(m, &e), 0);
}

static void file_def(struct st_trace_model *m, uint32_t id, const char *path)
{
    struct st_trace_event e = ev(ST_EV_FILE_DEF);
    e.id = id;
    e.str = path;
    e.str_len = strlen(path);
    apply(m, e);
}

static void stream_def(struct st_trace_model *m, uint32_t id, uint32_t file, int fd, uint64_t ord)
{
    struct st_trace_event e = ev(ST_EV_STREAM_DEF);
    e.id = id;
    e.file = file;
    e.fd = fd;
    e.ordinal = ord;
    e.buffer_size = 4096;
    e.buf_mode = ST_TRACE_BUF_FULL;
    apply(m, e);
}

static void cell_def(struct st_trace_model *m, uint32_t id, uint32_t owner, uint32_t site)
{
    struct st_trace_event e = ev(ST_EV_CELL_DEF);
    e.id = id;
    e.owner = owner;
    e.site = site;
    apply(m, e);
}

static void site_def(struct st_trace_model *m, uint32_t id, uint64_t pc)
{
    struct st_trace_event e = ev(ST_EV_SITE_DEF);
    e.id = id;
    e.nframes = 1;
    e.frames[0] = pc;
    apply(m, e);
}

static void read_on(struct st_trace_model *m, uint32_t cell, enum st_call call, int64_t result,
                    uint64_t reread)
{
    struct st_trace_event e = ev(reread ? ST_EV_READ_REREAD : ST_EV_READ);
    e.target = cell;
    e.call = call;
    e.result = result;
    e.reread = reread;
    apply(m, e);
}

static void count_on(struct st_trace_model *m, uint32_t cell, enum st_call call)
{
    struct st_trace_event e = ev(ST_EV_COUNT);
    e.target = cell;
    e.call = call;
    apply(m, e);
}

static void deliver_on(struct st_trace_model *m, uint32_t cell, uint64_t req, uint64_t del)
{
    struct st_trace_event e = ev(ST_EV_DELIVER);
    e.target = cell;
    e.requested = req;
    e.delivered = del;
    apply(m, e);
}

static void builds_the_report(void **state)
{
    (void)state;
    struct st_trace_model *m = st_trace_model_new();
    char *argv[] = {"prog", "x"};
    struct st_trace_info info;
    memset(&info, 0, sizeof info);
    info.pid = 9;
    info.ppid = 1;
    info.argc = 2;
    info.argv = argv;
    info.capture = "exact";

    /* Uses before definitions (another thread's chunk comes later). */
    count_on(m, 10, ST_CALL_FSEEK);
    file_def(m, 1, "/a");
    file_def(m, 2, "/untouched");
    stream_def(m, 3, 1, 5, 0);
    stream_def(m, 4, 1, 6, 1);
    stream_def(m, 5, 1, 7, 2);
    site_def(m, 1, 0x1000);
    site_def(m, 2, 0x2000);
    cell_def(m, 10, 3, 1);  /* stream 3 at site 1 */
    cell_def(m, 11, 4, 2);  /* stream 4 at site 2 */
    cell_def(m, 12, 1, 1);  /* /a's own calls at site 1 */
    cell_def(m, 13, 5, 0);  /* stream 5: only fopen, no site */
    cell_def(m, 14, 99, 0); /* an owner never defined */

    read_on(m, 10, ST_CALL_FSEEK, 4096, 4096);
    read_on(m, 10, ST_CALL_FSEEK, 4096, 0);
    deliver_on(m, 10, 16, 16);
    struct st_trace_event s = ev(ST_EV_SEEK);
    s.target = 10;
    apply(m, s);
    s.kept = 1;
    s.resync = 1;
    apply(m, s);
    read_on(m, 11, ST_CALL_GETC, 100, 0);
    read_on(m, 11, ST_CALL_GETC, 0, 0); /* EOF: a syscall, no bytes */
    deliver_on(m, 11, 100, 100);
    count_on(m, 12, ST_CALL_PREAD);
    deliver_on(m, 12, 512, 200);
    read_on(m, 12, ST_CALL_PREAD, 200, 0);
    count_on(m, 13, ST_CALL_FOPEN);
    read_on(m, 14, ST_CALL_READ, 7, 0);
    struct st_trace_event b = ev(ST_EV_BUF);
    b.id = 4;
    b.buffer_size = 65536;
    b.buf_mode = ST_TRACE_BUF_FULL;
    b.buf_origin = ST_TRACE_ORIGIN_USER;
    b.time_ns = 10;
    apply(m, b);

    struct st_report r;
    assert_int_equal(st_trace_model_report(m, &info, NULL, NULL, &r), 0);
    assert_int_equal(r.pid, 9);
    assert_string_equal(r.argv[1], "x");
    /* /a and the unknown owner's file; never /untouched. */
    assert_int_equal(r.nfiles, 2);
    const struct st_report_file *a = strcmp(r.files[0].path, "/a") == 0 ? &r.files[0] : &r.files[1];
    const struct st_report_file *u = a == &r.files[0] ? &r.files[1] : &r.files[0];
    assert_string_equal(u->path, "(unknown file)");
    assert_true(u->counts.kernel_read_bytes == 7);

    assert_true(a->counts.read_syscalls == 5);
    assert_true(a->counts.kernel_read_bytes == 4096 + 4096 + 100 + 200);
    assert_true(a->counts.reread_bytes == 4096);
    assert_true(a->counts.delivered_bytes == 316);
    assert_true(a->counts.requested_bytes == 628);
    assert_true(a->counts.seeks_discarding_buffer == 1);
    assert_true(a->counts.seeks_in_buffer == 1);
    assert_true(a->counts.resync_lseeks == 1);
    assert_true(a->counts.by_call[ST_CALL_FSEEK].calls == 1);
    assert_true(a->counts.by_call[ST_CALL_FSEEK].read_syscalls == 2);
    assert_true(a->counts.by_call[ST_CALL_GETC].read_syscalls == 2);
    assert_true(a->counts.by_call[ST_CALL_PREAD].calls == 1);
    /* Stream 5 (only fopen) is not shown; the others newest first. */
    assert_int_equal(a->nstreams, 2);
    assert_int_equal(a->streams[0].fd, 6);
    assert_int_equal(a->streams[1].fd, 5);
    assert_true(a->streams[0].buffer_size == 65536);
    assert_int_equal(a->streams[0].origin, ST_BUF_USER);
    assert_true(a->streams[1].counts.kernel_read_bytes == 8192);
    /* Sites: site 1 sums stream 3 and /a's own calls; site 2 stream 4. */
    assert_int_equal(a->nsites, 2);
    const struct st_report_site *s1 = a->sites[0].frames[0].offset == 0x1000 ? &a->sites[0]
                                                                                : &a->sites[1];
    assert_true(s1->counts.kernel_read_bytes == 8192 + 200);
    assert_int_equal(s1->nframes, 1);
    /* No module recorded: the frame is the bare address. */
    assert_null(s1->frames[0].module);
    assert_true(r.totals.kernel_read_bytes == a->counts.kernel_read_bytes + 7);
    assert_true(st_trace_model_events(m) == 27);
    st_trace_model_free(m);
}

static void modules_name_frames(void **state)
{
    (void)state;
    struct st_trace_model *m = st_trace_model_new();
    struct st_trace_event e = ev(ST_EV_MODULE);
    e.start = 0x555000001000;
    e.length = 0x2000;
    e.module_offset = 0x1000;
    e.str = "/usr/bin/prog";
    e.str_len = strlen(e.str);
    apply(m, e);
    apply(m, e); /* the same mapping twice is one module */
    const struct st_trace_module *mods;
    assert_int_equal(st_trace_model_modules(m, &mods), 1);
    assert_non_null(st_trace_model_module_of(m, 0x555000001000 + 0x10));
    assert_null(st_trace_model_module_of(m, 0x555000003000));
    file_def(m, 1, "/f");
    site_def(m, 1, 0x555000001234);
    cell_def(m, 2, 1, 1);
    read_on(m, 2, ST_CALL_READ, 10, 0);
    char *argv[] = {"prog"};
    struct st_trace_info info;
    memset(&info, 0, sizeof info);
    info.argc = 1;
    info.argv = argv;
    info.exe = "/usr/bin/prog";
    struct st_report r;
    assert_int_equal(st_trace_model_report(m, &info, NULL, NULL, &r), 0);
    assert_int_equal(r.files[0].nsites, 1);
    const struct st_report_frame *f = &r.files[0].sites[0].frames[0];
    /* The offset from the load base; the main program named as argv[0]. */
    assert_true(f->offset == 0x1234);
    assert_string_equal(f->module, "prog");
    st_trace_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builds_the_report),
        cmocka_unit_test(modules_name_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
