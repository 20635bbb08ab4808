/* Unit tests: the trace reader against hand-built traces (trace_builder.h),
 * good ones decoded field by field, bad ones refused with one line that
 * names the file, what is wrong and the byte offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace_builder.h"
#include "trace_reader.h"

static struct st_trace_reader *open_tb(struct tb *t, char *err)
{
    const char *path = tb_write(t);
    struct st_trace_reader *r = st_trace_open(path, err);
    unlink(path);
    return r;
}

/* All events of a trace, or the error of the first bad one. */
static int read_all(struct st_trace_reader *r, struct st_trace_event *evs, int max, char *err)
{
    int n = 0, k;
    struct st_trace_event ev;
    while ((k = st_trace_next(r, &ev, err)) == 1)
        if (n < max)
            evs[n++] = ev;
    return k < 0 ? -1 : n;
}

static void a_small_trace(struct tb *t)
{
    tb_init(t, 4242);
    tb_chunk(t, 77, 5000);
    tb_file(t, 1, "/data/x");
    tb_stream(t, 2, 1, 3, 0, 4096);
    tb_site(t, 1, 0x401234);
    tb_cell(t, 3, 2, 1);               /* target = 3 */
    tb_call(t, 10, ST_CALL_FSEEK, 1);  /* t = 5010 */
    tb_byte(t, ST_EV_LSEEK);           /* no flags: call, dt, dur, delta */
    tb_byte(t, ST_CALL_FSEEK);
    tb_u(t, 5);
    tb_u(t, 100);
    tb_s(t, 8192);                     /* expected was -1: result = 8192 */
    tb_byte(t, ST_EV_READ_REREAD | ST_EV_F1 | ST_EV_F2); /* same call, offset 8192 */
    tb_u(t, 200);
    tb_u(t, 900);
    tb_s(t, 4096);
    tb_byte(t, ST_EV_SEEK);            /* discarded */
    tb_end(t, 1000);
    tb_call(t, 1, ST_CALL_FREAD, 1);
    tb_deliver(t, 16, 16);
    tb_byte(t, ST_EV_READ | ST_EV_F2 | ST_EV_F3); /* call given; offset 12288; 4096 again */
    tb_byte(t, ST_CALL_FREAD);
    tb_u(t, 3);
    tb_u(t, 50);
    tb_byte(t, ST_EV_REREAD);
    tb_u(t, 100);
    tb_end(t, 7);
}

static void decodes_every_field(void **state)
{
    (void)state;
    struct tb t;
    a_small_trace(&t);
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = open_tb(&t, err);
    assert_non_null(r);
    const struct st_trace_info *in = st_trace_info(r);
    assert_int_equal(in->pid, 4242);
    assert_int_equal(in->argc, 2);
    assert_string_equal(in->argv[0], "prog");
    assert_string_equal(in->argv[1], "arg");
    assert_string_equal(in->capture, "exact");
    assert_string_equal(st_trace_status(in), "partial");
    struct st_trace_event ev[32];
    int n = read_all(r, ev, 32, err);
    assert_int_equal(n, 14);
    assert_int_equal(ev[0].kind, ST_EV_FILE_DEF);
    assert_int_equal(ev[0].id, 1);
    assert_int_equal(ev[0].str_len, 7);
    assert_memory_equal(ev[0].str, "/data/x", 7);
    assert_int_equal(ev[0].tid, 77);
    assert_int_equal(ev[0].file_offset, TB_HEADER + ST_TRACE_CHUNK_HEADER);
    assert_int_equal(ev[1].kind, ST_EV_STREAM_DEF);
    assert_int_equal(ev[1].fd, 3);
    assert_int_equal(ev[1].file, 1);
    assert_int_equal(ev[1].buffer_size, 4096);
    assert_int_equal(ev[2].kind, ST_EV_SITE_DEF);
    assert_int_equal(ev[2].nframes, 1);
    assert_true(ev[2].frames[0] == 0x401234);
    assert_int_equal(ev[3].kind, ST_EV_CELL_DEF);
    assert_int_equal(ev[3].owner, 2);
    assert_int_equal(ev[3].site, 1);
    assert_int_equal(ev[4].kind, ST_EV_CALL);
    assert_int_equal(ev[4].call, ST_CALL_FSEEK);
    assert_int_equal(ev[4].counted, 1);
    assert_int_equal(ev[4].target, 3);
    assert_true(ev[4].time_ns == 5010);
    assert_int_equal(ev[5].kind, ST_EV_LSEEK);
    assert_true(ev[5].time_ns == 5015);
    assert_true(ev[5].dur_ns == 100);
    assert_true(ev[5].result == 8192);
    assert_int_equal(ev[6].kind, ST_EV_READ_REREAD);
    assert_int_equal(ev[6].call, ST_CALL_FSEEK);
    assert_true(ev[6].offset == 8192);
    assert_true(ev[6].result == 4096);
    assert_true(ev[6].reread == 4096);
    assert_true(ev[6].time_ns == 5215);
    assert_int_equal(ev[7].kind, ST_EV_SEEK);
    assert_int_equal(ev[7].kept, 0);
    assert_int_equal(ev[8].kind, ST_EV_END);
    assert_true(ev[8].time_ns == 6215);
    assert_int_equal(ev[10].kind, ST_EV_DELIVER);
    assert_true(ev[10].requested == 16 && ev[10].delivered == 16);
    assert_int_equal(ev[11].kind, ST_EV_READ);
    assert_int_equal(ev[11].call, ST_CALL_FREAD);
    assert_true(ev[11].offset == 12288); /* predicted: 8192 + 4096 */
    assert_true(ev[11].result == 4096);  /* the same size as before */
    assert_true(ev[11].reread == 0);
    assert_int_equal(ev[12].kind, ST_EV_REREAD);
    assert_true(ev[12].reread == 100);
    assert_true(st_trace_bytes_read(r) > 0);
    st_trace_close(r);
    tb_free(&t);
}

/* Opens a trace built by `build` and expects a refusal mentioning each of
 * the given words. */
static void expect_error(struct tb *t, int at_open, const char *w1, const char *w2)
{
    char err[ST_TRACE_ERROR_MAX] = "";
    const char *path = tb_write(t);
    struct st_trace_reader *r = st_trace_open(path, err);
    if (at_open) {
        assert_null(r);
    } else {
        assert_non_null(r);
        struct st_trace_event ev[8];
        assert_int_equal(read_all(r, ev, 8, err), -1);
        st_trace_close(r);
    }
    assert_non_null(strstr(err, path)); /* names the file */
    assert_null(strchr(err, '\n'));     /* one line */
    if (w1 && !strstr(err, w1))
        fail_msg("'%s' lacks '%s'", err, w1);
    if (w2 && !strstr(err, w2))
        fail_msg("'%s' lacks '%s'", err, w2);
    unlink(path);
    tb_free(t);
}

static void refuses_foreign_and_truncated_files(void **state)
{
    (void)state;
    struct tb t;
    memset(&t, 0, sizeof t);
    tb_grow(&t, 100);
    memcpy(t.buf, "#!/bin/sh\necho hello\n", 21);
    expect_error(&t, 1, "not a seektrace trace", NULL);

    tb_init(&t, 1);
    t.len = 100; /* cut inside the header */
    expect_error(&t, 1, "truncated", "byte 100");

    tb_init(&t, 1);
    t.len = 1000; /* the fixed part is there, the header is 4096 bytes */
    expect_error(&t, 1, "truncated", "4096-byte header");

    memset(&t, 0, sizeof t);
    expect_error(&t, 1, "not a seektrace trace", NULL); /* empty */
}

static void refuses_future_versions_and_other_byte_orders(void **state)
{
    (void)state;
    struct tb t;
    tb_init(&t, 1);
    tb_hdr(&t)->version_major = ST_TRACE_VERSION_MAJOR + 1;
    tb_hdr(&t)->version_minor = 3;
    char future[32];
    snprintf(future, sizeof future, "version %d.3", ST_TRACE_VERSION_MAJOR + 1);
    expect_error(&t, 1, future, "upgrade seektrace");

    tb_init(&t, 1);
    tb_hdr(&t)->endian = 0x04030201u;
    expect_error(&t, 1, "byte order", "byte 8");

    tb_init(&t, 1);
    tb_hdr(&t)->chunk_size = 1000;
    expect_error(&t, 1, "corrupt header", "byte 16");
}

static void refuses_corrupt_chunks_and_events(void **state)
{
    (void)state;
    struct tb t;
    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_end(&t, 1);
    tb_chunk_end(&t);
    ((struct st_trace_chunk *)(t.buf + TB_HEADER))->magic = 0x12345678;
    expect_error(&t, 0, "corrupt chunk 0", "byte 4096");

    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_chunk_end(&t);
    ((struct st_trace_chunk *)(t.buf + TB_HEADER))->used = TB_CHUNK;
    expect_error(&t, 0, "claims more bytes", NULL);

    /* An event cut short by the end of the chunk's data. */
    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_byte(&t, ST_EV_TARGET);
    tb_byte(&t, 0x80);
    expect_error(&t, 0, "corrupt event at byte 4128", "target");

    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_end(&t, 1);
    tb_byte(&t, 31);
    expect_error(&t, 0, "unknown event kind", "byte 4130");

    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_byte(&t, ST_EV_TARGET | ST_EV_F1);
    tb_u(&t, 1);
    expect_error(&t, 0, "flags", NULL);

    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_call(&t, 1, (enum st_call)200, 1);
    expect_error(&t, 0, "call kind outside", NULL);

    /* "Same call as before" as the first call of a chunk. */
    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_byte(&t, ST_EV_FSTAT | ST_EV_F1);
    tb_u(&t, 1);
    tb_u(&t, 1);
    expect_error(&t, 0, "same call", NULL);

    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_byte(&t, ST_EV_SITE_DEF);
    tb_u(&t, 1);
    tb_u(&t, 0);
    expect_error(&t, 0, "no frames", NULL);

    /* A file name longer than what is left. */
    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_byte(&t, ST_EV_FILE_DEF);
    tb_u(&t, 1);
    tb_u(&t, 5000);
    expect_error(&t, 0, "file name runs past", NULL);

    /* An offset that would overflow when advanced. */
    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_read(&t, ST_CALL_READ, 0, 0, INT64_MAX - 1, 100, 0);
    expect_error(&t, 0, "2^63", NULL);
}

/* Writes of format 4: a WRITE_AT charged to its call at an offset, then
 * one with every "same as before" flag; WRITTEN. */
static void write_events(struct tb *t, unsigned major)
{
    tb_init(t, 1);
    tb_hdr(t)->version_major = (uint16_t)major;
    tb_chunk(t, 1, 0);
    tb_file(t, 1, "/data/out");
    tb_cell(t, 2, 1, 0);
    tb_byte(t, ST_EV_WRITTEN);
    tb_u(t, 100);
    tb_byte(t, ST_EV_WRITE_AT);
    tb_byte(t, ST_CALL_PWRITE);
    tb_u(t, 10);
    tb_u(t, 3);
    tb_s(t, 4096);
    tb_s(t, 100);
    tb_byte(t, ST_EV_WRITE_AT | ST_EV_F1 | ST_EV_F2 | ST_EV_F3);
    tb_u(t, 1);
    tb_u(t, 2);
}

static void reads_writes_and_older_versions(void **state)
{
    (void)state;
    struct tb t;
    char err[ST_TRACE_ERROR_MAX] = "";
    write_events(&t, ST_TRACE_VERSION_MAJOR);
    struct st_trace_reader *r = open_tb(&t, err);
    assert_non_null(r);
    struct st_trace_event ev[8];
    assert_int_equal(read_all(r, ev, 8, err), 5);
    assert_int_equal(ev[2].kind, ST_EV_WRITTEN);
    assert_true(ev[2].n == 100 && ev[2].target == 2);
    assert_int_equal(ev[3].kind, ST_EV_WRITE_AT);
    assert_int_equal(ev[3].call, ST_CALL_PWRITE);
    assert_true(ev[3].offset == 4096 && ev[3].result == 100 && ev[3].dur_ns == 3);
    assert_int_equal(ev[4].call, ST_CALL_PWRITE); /* the same call, offset and size */
    assert_true(ev[4].offset == 4196 && ev[4].result == 100);
    st_trace_close(r);
    tb_free(&t);

    /* A version 3 trace is read, its stdio WRITE (no call) too... */
    tb_init(&t, 1);
    tb_hdr(&t)->version_major = 3;
    tb_chunk(&t, 1, 0);
    tb_byte(&t, ST_EV_WRITE);
    tb_u(&t, 1);
    tb_u(&t, 1);
    tb_s(&t, 512);
    r = open_tb(&t, err);
    assert_non_null(r);
    assert_int_equal(read_all(r, ev, 8, err), 1);
    assert_true(ev[0].kind == ST_EV_WRITE && ev[0].result == 512 && ev[0].call == -1);
    st_trace_close(r);
    tb_free(&t);
    /* ...but cannot hold what version 4 introduced. */
    write_events(&t, 3);
    expect_error(&t, 0, "bytes handed over to be written, which version 4 introduced", NULL);
}

static void partial_traces_skip_unwritten_chunks(void **state)
{
    (void)state;
    struct tb t;
    tb_init(&t, 1);
    tb_chunk(&t, 1, 0);
    tb_end(&t, 1);
    tb_chunk(&t, 2, 0); /* handed out, never written: zero */
    tb_chunk_end(&t);
    memset(t.buf + TB_HEADER + TB_CHUNK, 0, TB_CHUNK);
    tb_chunk(&t, 3, 0);
    tb_end(&t, 1);
    tb_chunk_end(&t);
    /* The header had not counted the last chunk yet (killed in between). */
    tb_hdr(&t)->chunks = 1;
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = open_tb(&t, err);
    assert_non_null(r);
    struct st_trace_event ev[8];
    assert_int_equal(read_all(r, ev, 8, err), 2);
    assert_int_equal(ev[0].tid, 1);
    assert_int_equal(ev[1].tid, 3);
    assert_int_equal(st_trace_chunks_read(r), 2);
    st_trace_close(r);
    tb_free(&t);
}

/* Why recording stopped (3.1): kept as written, words for every reason;
 * a 3.0 trace's zero is no reason at all. */
static void reads_why_recording_stopped(void **state)
{
    (void)state;
    char err[ST_TRACE_ERROR_MAX];
    struct tb t;
    tb_init(&t, 1);
    tb_hdr(&t)->live_flags = ST_TRACE_LIVE_TRUNCATED;
    tb_hdr(&t)->stop_reason = ST_TRACE_STOP_NO_SPACE;
    struct st_trace_reader *r = open_tb(&t, err);
    assert_non_null(r);
    assert_int_equal(st_trace_info(r)->stop_reason, ST_TRACE_STOP_NO_SPACE);
    assert_string_equal(st_trace_status(st_trace_info(r)), "truncated");
    st_trace_close(r);
    assert_string_equal(st_trace_stop_name(ST_TRACE_STOP_NO_SPACE), "no_space");
    assert_non_null(strstr(st_trace_stop_text(ST_TRACE_STOP_NO_SPACE), "disk was full"));
    for (uint32_t k = ST_TRACE_STOP_CAP; k <= ST_TRACE_STOP_IO_ERROR; k++)
        assert_true(st_trace_stop_name(k) && st_trace_stop_text(k));
    assert_string_equal(st_trace_stop_name(ST_TRACE_STOP_IO_ERROR + 1), "unknown");
    tb_free(&t);

    tb_init(&t, 1);
    tb_hdr(&t)->version_minor = 0;
    tb_hdr(&t)->live_flags = ST_TRACE_LIVE_TRUNCATED;
    r = open_tb(&t, err);
    assert_non_null(r);
    assert_int_equal(st_trace_info(r)->stop_reason, ST_TRACE_STOP_NONE);
    assert_null(st_trace_stop_text(ST_TRACE_STOP_NONE));
    assert_null(st_trace_stop_name(ST_TRACE_STOP_NONE));
    st_trace_close(r);
    tb_free(&t);
}

/* A footer: PROCESS, then one FILE with a stream and a site. */
static size_t a_footer(uint8_t *out)
{
    uint8_t rec[512], *p;
    uint8_t *o = out;
    p = rec;
    p = st_put_u(p, 4242);
    p = st_put_u(p, 1);
    p = st_put_u(p, 1);
    p = st_put_u(p, 4);
    memcpy(p, "prog", 4);
    p += 4;
    p = st_put_u(p, 5);
    memcpy(p, "exact", 5);
    p += 5;
    p = st_put_u(p, 0);
    o = st_put_u(o, ST_FOOT_PROCESS);
    o = st_put_u(o, (uint64_t)(p - rec));
    memcpy(o, rec, (size_t)(p - rec));
    o += p - rec;

    struct st_counts c;
    memset(&c, 0, sizeof c);
    c.read_syscalls = 3;
    c.kernel_read_bytes = 12288;
    c.delivered_bytes = 48;
    c.by_call[ST_CALL_FREAD].calls = 3;
    p = rec;
    p = st_put_u(p, 7);
    memcpy(p, "/data/x", 7);
    p += 7;
    p = st_counts_encode(p, &c);
    p = st_put_u(p, 1);            /* one stream */
    p = st_put_s(p, 3);
    p = st_put_u(p, 4096);
    p = st_put_u(p, 0);
    *p++ = ST_TRACE_BUF_FULL | ST_TRACE_ORIGIN_USER << 4;
    p = st_put_u(p, 4);
    memcpy(p, "wide", 4);
    p += 4;
    p = st_counts_encode(p, &c);
    p = st_put_u(p, 1);            /* one site, one frame */
    p = st_put_u(p, 1);
    p = st_put_u(p, 4);
    memcpy(p, "main", 4);
    p += 4;
    p = st_put_u(p, 6);
    memcpy(p, "main.c", 6);
    p += 6;
    p = st_put_u(p, 42);
    p = st_put_u(p, 4);
    memcpy(p, "prog", 4);
    p += 4;
    p = st_put_u(p, 0x1234);
    p = st_counts_encode(p, &c);
    o = st_put_u(o, ST_FOOT_FILE);
    o = st_put_u(o, (uint64_t)(p - rec));
    memcpy(o, rec, (size_t)(p - rec));
    o += p - rec;
    return (size_t)(o - out);
}

static void reads_the_footer(void **state)
{
    (void)state;
    struct tb t;
    tb_init(&t, 4242);
    tb_chunk(&t, 1, 0);
    tb_end(&t, 1);
    uint8_t payload[1024];
    size_t n = a_footer(payload);
    tb_footer(&t, payload, n);
    char err[ST_TRACE_ERROR_MAX];
    struct st_trace_reader *r = open_tb(&t, err);
    assert_non_null(r);
    assert_string_equal(st_trace_status(st_trace_info(r)), "complete");
    struct st_report rep;
    void *mem;
    assert_int_equal(st_trace_footer_report(r, &rep, &mem, err), 1);
    assert_int_equal(rep.pid, 4242);
    assert_int_equal(rep.argc, 1);
    assert_string_equal(rep.argv[0], "prog");
    assert_string_equal(rep.capture, "exact");
    assert_null(rep.capture_reason);
    assert_int_equal(rep.nfiles, 1);
    assert_string_equal(rep.files[0].path, "/data/x");
    assert_true(rep.files[0].counts.kernel_read_bytes == 12288);
    assert_true(rep.totals.kernel_read_bytes == 12288);
    assert_int_equal(rep.files[0].nstreams, 1);
    assert_int_equal(rep.files[0].streams[0].fd, 3);
    assert_int_equal(rep.files[0].streams[0].origin, ST_BUF_USER);
    assert_string_equal(rep.files[0].streams[0].caveat, "wide");
    assert_int_equal(rep.files[0].nsites, 1);
    assert_string_equal(rep.files[0].sites[0].frames[0].function, "main");
    assert_int_equal(rep.files[0].sites[0].frames[0].line, 42);
    assert_true(rep.files[0].sites[0].frames[0].offset == 0x1234);
    assert_true(rep.files[0].sites[0].counts.by_call[ST_CALL_FREAD].calls == 3);
    st_trace_mem_free(mem);
    /* The footer's chunks are not read as events. */
    struct st_trace_event ev[8];
    assert_int_equal(read_all(r, ev, 8, err), 1);
    st_trace_close(r);
    tb_free(&t);
}

/* A STORAGE record (4.1) after the footer's FILE: index `file`. */
static size_t with_storage(uint8_t *out, uint64_t flags, uint64_t file)
{
    size_t n = a_footer(out);
    uint8_t rec[64], *p = rec;
    p = st_put_u(p, flags);
    p = st_put_u(p, 8192);
    p = st_put_u(p, 512);
    p = st_put_u(p, 0);        /* no reason: measured */
    p = st_put_u(p, 1);
    p = st_put_u(p, file);
    p = st_put_u(p, 4096);
    uint8_t *o = out + n;
    o = st_put_u(o, ST_FOOT_STORAGE);
    o = st_put_u(o, (uint64_t)(p - rec));
    memcpy(o, rec, (size_t)(p - rec));
    return (size_t)(o + (p - rec) - out);
}

static void reads_the_device_figures(void **state)
{
    (void)state;
    struct tb t;
    uint8_t payload[1024];
    char err[ST_TRACE_ERROR_MAX];
    struct st_report rep;
    void *mem;
    /* A 4.0 footer: none, and why. */
    tb_init(&t, 1);
    tb_footer(&t, payload, a_footer(payload));
    struct st_trace_reader *r = open_tb(&t, err);
    assert_int_equal(st_trace_footer_report(r, &rep, &mem, err), 1);
    assert_false(rep.storage.measured);
    assert_non_null(strstr(rep.storage.why_not, "before format 4.1"));
    st_trace_mem_free(mem);
    st_trace_close(r);
    tb_free(&t);
    /* Measured, per file. */
    tb_init(&t, 1);
    tb_footer(&t, payload,
              with_storage(payload, ST_FOOT_STORAGE_MEASURED | ST_FOOT_STORAGE_PER_FILE, 0));
    r = open_tb(&t, err);
    assert_int_equal(st_trace_footer_report(r, &rep, &mem, err), 1);
    assert_true(rep.storage.measured && rep.storage.per_file);
    assert_true(rep.storage.device_read_bytes == 8192 && rep.storage.device_write_bytes == 512);
    assert_true(rep.files[0].device_measured && rep.files[0].device_read_bytes == 4096);
    st_trace_mem_free(mem);
    st_trace_close(r);
    tb_free(&t);
    /* A file index past the footer's files is corrupt. */
    tb_init(&t, 1);
    tb_footer(&t, payload, with_storage(payload, ST_FOOT_STORAGE_MEASURED, 1));
    r = open_tb(&t, err);
    assert_int_equal(st_trace_footer_report(r, &rep, &mem, err), -1);
    assert_non_null(strstr(err, "corrupt footer record"));
    st_trace_close(r);
    tb_free(&t);
}

/* A footer of a_footer's PROCESS and FILE (/data/x) and then FILE records
 * /f0 .. /f{n-1}, each costlier than the next (/f0: n reads), and a
 * STORAGE record measuring every file (device bytes 1000 + its index). */
static size_t files_footer(uint8_t *out, size_t n)
{
    size_t len = a_footer(out);
    uint8_t *o = out + len, rec[4096], *p;
    for (size_t i = 0; i < n; i++) {
        struct st_counts c;
        memset(&c, 0, sizeof c);
        c.read_syscalls = n - i;
        c.kernel_read_bytes = c.delivered_bytes = 100 * (n - i);
        c.by_call[ST_CALL_READ].calls = n - i;
        p = rec;
        p = st_put_u(p, 3);
        *p++ = '/';
        *p++ = 'f';
        *p++ = (uint8_t)('0' + i);
        p = st_counts_encode(p, &c);
        p = st_put_u(p, 0); /* no stream */
        p = st_put_u(p, 0); /* no site */
        o = st_put_u(o, ST_FOOT_FILE);
        o = st_put_u(o, (uint64_t)(p - rec));
        memcpy(o, rec, (size_t)(p - rec));
        o += p - rec;
    }
    p = rec;
    p = st_put_u(p, ST_FOOT_STORAGE_MEASURED | ST_FOOT_STORAGE_PER_FILE);
    p = st_put_u(p, 8192);
    p = st_put_u(p, 0);
    p = st_put_u(p, 0);
    p = st_put_u(p, n + 1);
    for (size_t i = 0; i <= n; i++) {
        p = st_put_u(p, i);
        p = st_put_u(p, 1000 + i);
    }
    o = st_put_u(o, ST_FOOT_STORAGE);
    o = st_put_u(o, (uint64_t)(p - rec));
    memcpy(o, rec, (size_t)(p - rec));
    o += p - rec;
    return (size_t)(o - out);
}

static void count_file(void *ctx, const struct st_report_file *f)
{
    (void)f;
    (*(size_t *)ctx)++;
}

/* st_trace_footer_rows keeps the worst rows in the footer's order and
 * sums the others exactly; every row up to every_up_to files. */
static void keeps_the_rows_printed(void **state)
{
    (void)state;
    struct tb t;
    uint8_t payload[4096];
    char err[ST_TRACE_ERROR_MAX];
    struct st_report rep, all;
    void *mem, *all_mem;
    size_t seen = 0;
    tb_init(&t, 1);
    tb_footer(&t, payload, files_footer(payload, 5));
    struct st_trace_reader *r = open_tb(&t, err);
    assert_int_equal(st_trace_footer_report(r, &all, &all_mem, err), 1);
    assert_int_equal(all.nfiles, 6);
    struct st_footer_rows rows = {.files = 2, .each_file = count_file, .ctx = &seen};
    assert_int_equal(st_trace_footer_rows(r, &rows, &rep, &mem, err), 1);
    assert_int_equal(seen, 6);
    /* /data/x (12288 bytes: the costliest and the most read), then /f0. */
    assert_int_equal(rep.nfiles, 2);
    assert_string_equal(rep.files[0].path, "/data/x");
    assert_string_equal(rep.files[1].path, "/f0");
    assert_true(rep.files[1].device_measured && rep.files[1].device_read_bytes == 1001);
    assert_int_equal(rep.nfiles_other, 4);
    assert_true(rep.other.read_syscalls == 4 + 3 + 2 + 1);
    assert_true(rep.other.by_call[ST_CALL_READ].calls == 4 + 3 + 2 + 1);
    assert_memory_equal(&rep.totals, &all.totals, sizeof rep.totals);
    st_trace_mem_free(mem);
    /* Up to every_up_to files, every row. */
    rows.every_up_to = 6;
    assert_int_equal(st_trace_footer_rows(r, &rows, &rep, &mem, err), 1);
    assert_int_equal(rep.nfiles, 6);
    assert_int_equal(rep.nfiles_other, 0);
    assert_string_equal(rep.files[5].path, "/f4");
    assert_true(rep.files[5].device_read_bytes == 1005);
    st_trace_mem_free(mem);
    st_trace_mem_free(all_mem);
    st_trace_close(r);
    tb_free(&t);
}

static void refuses_corrupt_footers(void **state)
{
    (void)state;
    struct tb t;
    uint8_t payload[1024];
    size_t n = a_footer(payload);
    char err[ST_TRACE_ERROR_MAX];
    struct st_report rep;
    void *mem;

    tb_init(&t, 1);
    tb_footer(&t, payload, n);
    t.buf[TB_HEADER + ST_TRACE_FOOTER_FRAME + 3] ^= 0xff; /* payload flipped: CRC */
    struct st_trace_reader *r = open_tb(&t, err);
    assert_non_null(r);
    assert_int_equal(st_trace_footer_report(r, &rep, &mem, err), -1);
    assert_non_null(strstr(err, "checksum"));
    assert_non_null(strstr(err, "byte 4096"));
    st_trace_close(r);
    tb_free(&t);

    /* The footer claimed to lie beyond the end of the file. */
    tb_init(&t, 1);
    tb_footer(&t, payload, n);
    tb_hdr(&t)->footer_size = 1u << 20;
    expect_error(&t, 1, "truncated", "footer at byte 4096");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_every_field),
        cmocka_unit_test(refuses_foreign_and_truncated_files),
        cmocka_unit_test(refuses_future_versions_and_other_byte_orders),
        cmocka_unit_test(refuses_corrupt_chunks_and_events),
        cmocka_unit_test(reads_writes_and_older_versions),
        cmocka_unit_test(partial_traces_skip_unwritten_chunks),
        cmocka_unit_test(reads_why_recording_stopped),
        cmocka_unit_test(reads_the_footer),
        cmocka_unit_test(reads_the_device_figures),
        cmocka_unit_test(keeps_the_rows_printed),
        cmocka_unit_test(refuses_corrupt_footers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
