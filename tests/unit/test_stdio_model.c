/* test_stdio_model.c — the stdio model's rules on hand-made call sequences.
 *
 * Every expected figure was measured on glibc 2.36 (Debian 12), or for the
 * 2.42 rules on sid's 2.43 and for the 2.28-2.35 rules on Debian 11's 2.31,
 * with strace -e trace=read,lseek,newfstatat -y on
 * the same calls, against files of the same sizes; the comment above each
 * test lists the syscalls seen.
 * tests/model/validate.py checks whole workloads the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "stdio_model.h"

#define MIB4 (4u << 20)

#define OPEN { .kind = ST_M_OPEN }
#define FREAD(n) { .kind = ST_M_FREAD, .arg = (n) }
#define GETC { .kind = ST_M_GETC }
#define FGETS(n, stored, nl) \
    { .kind = ST_M_FGETS, .arg = (n), .len = (stored), .delim_seen = (nl) }
#define GETLINE(stored, nl) \
    { .kind = ST_M_GETDELIM, .len = (stored), .delim_seen = (nl) }
#define UNGETC(match) { .kind = ST_M_UNGETC, .matches_prev = (match) }
#define FSEEK(off, wh) { .kind = ST_M_FSEEK, .arg = (off), .whence = (wh) }
#define FTELL { .kind = ST_M_FTELL }
#define FFLUSH { .kind = ST_M_FFLUSH }
#define CLOSE { .kind = ST_M_CLOSE }
#define EXIT { .kind = ST_M_EXIT }

#define N_OPS(ops) (sizeof(ops) / sizeof((ops)[0]))

struct expect {
    uint64_t reads, bytes, lseeks, fstats;
};

static struct st_model run_cfg(const struct st_model_config *cfg,
                               const struct st_model_op *ops, size_t n)
{
    struct st_model m;

    st_model_init(&m, cfg);
    for (size_t i = 0; i < n; i++)
        st_model_step(&m, &ops[i]);
    return m;
}

static struct st_model run_with(enum st_model_buffering buffering,
                                uint64_t bufsize, uint64_t file_size,
                                const struct st_model_op *ops, size_t n)
{
    struct st_model_config cfg = {
        .file_size = file_size, .bufsize = bufsize, .buffering = buffering
    };
    return run_cfg(&cfg, ops, n);
}

static void check(const struct st_model *m, struct expect e)
{
    assert_int_equal(m->cost.read_syscalls, e.reads);
    assert_int_equal(m->cost.kernel_read_bytes, e.bytes);
    assert_int_equal(m->cost.lseek_syscalls, e.lseeks);
    assert_int_equal(m->cost.fstat_syscalls, e.fstats);
}

/* The demo: each fseek out of the buffer reads a whole buffer, except the
 * first, which reads only up to the target because the get area is empty.
 *   lseek 4096, read 904; read 4096 (fread); lseek 12288, read 4096;
 *   lseek 8192, read 4096 */
static void test_random_seek_reads_a_buffer_each(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN,  FSEEK(5000, SEEK_SET),  FREAD(16), FSEEK(12345, SEEK_SET),
        FREAD(16), FSEEK(12000, SEEK_SET), FREAD(16), CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 4, .bytes = 13192, .lseeks = 3 });
}

/* A buffer glibc allocates costs one fstat at first use; a user buffer none.
 *   newfstatat; lseek 4096; read 904; read 4096 */
static void test_allocated_buffer_fstats_once(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FSEEK(5000, SEEK_SET), FREAD(16), GETC, FTELL, CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_ALLOC, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 2, .bytes = 5000, .lseeks = 1, .fstats = 1 });
    m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 2, .bytes = 5000, .lseeks = 1 });
}

/* _offset is unknown after fopen, so the first seek cannot use the buffer;
 * once known, a seek inside it reads nothing but still lseeks ("resync"); a
 * seek to the end of the buffered data is not inside it.
 *   read 4096; lseek 0, read 4096; lseek 4096; lseek 4096 */
static void test_seek_in_buffer_only_resyncs(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FREAD(100), FSEEK(50, SEEK_SET), FREAD(10),
        FSEEK(4000, SEEK_SET), FSEEK(4096, SEEK_SET), CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 2, .bytes = 8192, .lseeks = 3 });
}

/* SEEK_END always fstats, even on a user buffer.
 *   newfstatat; lseek 4190208; read 3996; read 4096 = 100; newfstatat;
 *   lseek 4194304 */
static void test_seek_end_fstats_every_time(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FSEEK(-100, SEEK_END), FREAD(10), FSEEK(-50, SEEK_END), CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 2, .bytes = 4096, .lseeks = 2, .fstats = 2 });
}

/* While _offset is unknown every ftell asks the kernel; reading does not
 * make it known.
 *   lseek 0 SEEK_CUR; lseek 0 SEEK_CUR; read 4096; lseek 0 SEEK_CUR */
static void test_ftell_with_unknown_offset_lseeks(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FTELL, FTELL, FREAD(1), FTELL };
    struct st_model_config cfg = { .file_size = MIB4, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    assert_int_equal(st_model_step(&m, &ops[0]), 0);
    assert_int_equal(st_model_step(&m, &ops[1]), 0);
    assert_int_equal(st_model_step(&m, &ops[2]), 0);
    assert_int_equal(st_model_step(&m, &ops[3]), 1);
    assert_int_equal(st_model_step(&m, &ops[4]), 1);
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 3 });
}

/* SEEK_CUR with _offset unknown is a plain lseek (SEEK_CUR) that empties the
 * buffer and makes _offset known; the next one seeks inside the buffer.
 *   lseek 10 SEEK_CUR; read 4096; lseek 4106 */
static void test_seek_cur_with_unknown_offset(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FSEEK(10, SEEK_CUR), FREAD(1), FSEEK(10, SEEK_CUR), CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 2 });
}

/* freads of a buffer or more read whole buffers into the caller's memory
 * and buffer the rest.
 *   read 8192; read 4096; read 8192; read 8192; read 4096 */
static void test_large_fread_reads_whole_buffers_directly(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FREAD(10240), FREAD(10240), FREAD(10240), CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 5, .bytes = 32768 });
}

/* The same calls under glibc 2.36's and 2.43's rules, on a 10,000-byte file
 * with a 4 KiB user buffer. */
static struct st_model run_glibc(const char *version, const struct st_model_op *ops, size_t n)
{
    struct st_model_config cfg = { .file_size = 10000, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER, .glibc = st_model_glibc(version) };
    return run_cfg(&cfg, ops, n);
}

/* fclose of an input stream with unread bytes: from 2.42 it learns the
 * offset (unknown since fopen) and puts it where reading stopped.
 *   2.36: read 4096
 *   2.43: read 4096; lseek 0 SEEK_CUR = 4096; lseek 100 SEEK_SET */
static void test_glibc242_fclose_syncs_input(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FREAD(100), CLOSE };
    struct st_model m = run_glibc("2.36", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 0 });
    m = run_glibc("2.43", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 2 });
    assert_int_equal(m.kernel_pos, 100);
}

/* fclose in ungetc's backup area: the parked main get area is given back too.
 *   2.43: read 4096; lseek 0 SEEK_CUR = 4096; lseek 99 SEEK_SET */
static void test_glibc242_fclose_in_backup(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FREAD(100), UNGETC(false), CLOSE };
    struct st_model m = run_glibc("2.43", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 2 });
    assert_int_equal(m.kernel_pos, 99);
}

/* fflush after ungetc (bug 5994): 2.36 gives back the backup byte only and
 * goes on reading the main get area; 2.43 gives back both and refills.
 *   2.36: read 4096; lseek -1 SEEK_CUR
 *   2.43: read 4096; lseek -3997 SEEK_CUR = 99; read 4096;
 *         lseek 0 SEEK_CUR = 4195; lseek 109 SEEK_SET */
static void test_glibc242_fflush_after_ungetc(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FREAD(100), UNGETC(false), FFLUSH, FREAD(10), CLOSE };
    struct st_model m = run_glibc("2.36", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    m = run_glibc("2.43", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 2, .bytes = 8192, .lseeks = 3 });
    assert_int_equal(m.kernel_pos, 109);
}

/* exit in the backup area: 2.43's flush gives back the backup byte with
 * the main get area's unread bytes.
 *   2.36: read 4096; lseek -4094 SEEK_CUR
 *   2.43: read 4096; lseek -4095 SEEK_CUR */
static void test_glibc242_exit_in_backup(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, GETC, GETC, UNGETC(false), EXIT };
    struct st_model m = run_glibc("2.36", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    assert_int_equal(m.kernel_pos, 2);
    m = run_glibc("2.43", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    assert_int_equal(m.kernel_pos, 1);
}

/* exit in the backup area before 2.36 (bug 27821 unfixed): the sync gives
 * back the backup's byte alone; with a 1-byte buffer read to its end, the
 * main get area has nothing unread, so only 2.31 lseeks.
 *   2.31: read 4096; lseek -1 SEEK_CUR      1-byte: read 1 (x2); lseek -1
 *   2.36: read 4096; lseek -4094 SEEK_CUR   1-byte: read 1 (x2) */
static void test_glibc231_exit_in_backup(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, GETC, GETC, UNGETC(false), EXIT };
    struct st_model m = run_glibc("2.31", ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    assert_int_equal(m.kernel_pos, 4095);

    struct st_model_config one = { .file_size = 10000, .bufsize = 1, .buffering = ST_M_BUF_USER,
                                   .glibc = st_model_glibc("2.31") };
    m = run_cfg(&one, ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 2, .bytes = 2, .lseeks = 1 });
    assert_int_equal(m.kernel_pos, 1);
    one.glibc = st_model_glibc("2.36");
    m = run_cfg(&one, ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 2, .bytes = 2, .lseeks = 0 });
}

static void test_glibc_version_parsing(void **state)
{
    (void)state;
    assert_int_equal(st_model_glibc("2.36"), 236);
    assert_int_equal(st_model_glibc("2.43"), 243);
    assert_int_equal(st_model_glibc("2.4"), 204);
    assert_int_equal(st_model_glibc("2.41.9000"), 241);
    assert_int_equal(st_model_glibc(NULL), 0);
    assert_int_equal(st_model_glibc(""), 0);
    assert_int_equal(st_model_glibc("3.1"), 0);
    assert_int_equal(st_model_glibc("2."), 0);
    assert_int_equal(st_model_glibc("2.100"), 0);
    assert_string_equal(st_model_rules_name(231), "2.28-2.35");
    assert_string_equal(st_model_rules_name(236), "2.36-2.41");
    assert_string_equal(st_model_rules_name(0), "2.36-2.41");
    assert_string_equal(st_model_rules_name(241), "2.36-2.41");
    assert_string_equal(st_model_rules_name(242), "2.42+");
}

/* The direct path reads again after EOF, the buffered path does not.
 *   lseek 8192; read 808; read 8192 = 1000; read 4096 = 0; read 8192 = 0 */
static void test_direct_read_ignores_sticky_eof(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FSEEK(9000, SEEK_SET), FREAD(8192), FREAD(8192), FREAD(10), GETC,
    };
    struct st_model_config cfg = { .file_size = 10000, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    st_model_step(&m, &ops[0]);
    st_model_step(&m, &ops[1]);
    assert_int_equal(st_model_step(&m, &ops[2]), 1000);
    assert_int_equal(st_model_step(&m, &ops[3]), 0);
    assert_int_equal(st_model_step(&m, &ops[4]), 0);
    assert_int_equal(st_model_step(&m, &ops[5]), -1);
    check(&m, (struct expect){ .reads = 4, .bytes = 1808, .lseeks = 1 });
}

/* Past EOF: lseek to the block, a short read, an lseek over the rest; after
 * EOF _offset is unknown again, so ftell lseeks.
 *   read 4096; lseek 16384; read 4096 = 0; lseek 3616 SEEK_CUR;
 *   read 4096 = 0; lseek 0 SEEK_CUR */
static void test_seek_past_eof(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FREAD(1), FSEEK(20000, SEEK_SET), FREAD(10), FTELL,
    };
    struct st_model_config cfg = { .file_size = 10000, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    for (size_t i = 0; i < 4; i++)
        st_model_step(&m, &ops[i]);
    assert_int_equal(st_model_step(&m, &ops[4]), 20000);
    check(&m, (struct expect){ .reads = 3, .bytes = 4096, .lseeks = 3 });
}

/* At exit an open stream with unread bytes gives them back to the kernel;
 * fclose does not.
 *   read 4096; lseek -3996 SEEK_CUR (exit) */
static void test_exit_syncs_unread_bytes(void **state)
{
    (void)state;
    const struct st_model_op at_exit[] = { OPEN, FREAD(100), EXIT };
    const struct st_model_op closed[] = { OPEN, FREAD(100), CLOSE };
    struct st_model m;

    m = run_with(ST_M_BUF_USER, 4096, MIB4, at_exit, N_OPS(at_exit));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    m = run_with(ST_M_BUF_USER, 4096, MIB4, closed, N_OPS(closed));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096 });
}

/* No exit sync for an unbuffered stream, nor for one that never underflowed
 * (no orientation: "it wasn't used"), even with bytes in its buffer.
 *   none: read 1 (the byte put back stays unread)
 *   unoriented: lseek 4096; read 904; lseek 98304; read 4096 */
static void test_exit_skips_unbuffered_and_unoriented_streams(void **state)
{
    (void)state;
    const struct st_model_op unbuffered[] = { OPEN, GETC, UNGETC(true), EXIT };
    const struct st_model_op unoriented[] = {
        OPEN, FSEEK(5000, SEEK_SET), FSEEK(100000, SEEK_SET), GETC, EXIT,
    };
    struct st_model m;

    m = run_with(ST_M_BUF_NONE, 0, MIB4, unbuffered, N_OPS(unbuffered));
    check(&m, (struct expect){ .reads = 1, .bytes = 1 });
    m = run_with(ST_M_BUF_USER, 4096, MIB4, unoriented, N_OPS(unoriented));
    check(&m, (struct expect){ .reads = 2, .bytes = 5000, .lseeks = 2 });
}

/* A buffer of 1000 bytes "aligns" with offset & ~999.
 *   lseek 4104; read 896; read 1000 */
static void test_non_power_of_two_buffer(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FSEEK(5000, SEEK_SET), FREAD(16), CLOSE };
    struct st_model m = run_with(ST_M_BUF_USER, 1000, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 2, .bytes = 1896, .lseeks = 1 });
}

/* Under 128 bytes a direct read is not rounded to whole buffers.
 *   read 250; read 100; read 100 */
static void test_tiny_buffer_reads_exact_direct(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FREAD(250), FREAD(50), FREAD(99), CLOSE };
    struct st_model m = run_with(ST_M_BUF_USER, 100, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 3, .bytes = 450 });
}

/* fflush hands the unread bytes back and forgets _offset.
 *   read 4096; lseek -3996 SEEK_CUR; lseek 0 SEEK_CUR (ftell); read 4096 */
static void test_fflush_gives_back_unread_bytes(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { OPEN, FREAD(100), FFLUSH, FTELL, FREAD(10), CLOSE };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 2, .bytes = 8192, .lseeks = 2 });
}

/* fflush drops the unread bytes by pulling the end of the get area back;
 * when nothing of it was consumed the area is empty again, and the next seek
 * reads only up to its target.
 *   lseek 4096; read 904; read 4096 (getc); lseek -4096 SEEK_CUR (fflush);
 *   lseek 20480; read 2278 */
static void test_fflush_of_an_unread_buffer_makes_seeks_exact(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FSEEK(5000, SEEK_SET), GETC, UNGETC(true), FFLUSH,
        FSEEK(22758, SEEK_SET), CLOSE,
    };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, MIB4, ops, N_OPS(ops));

    check(&m, (struct expect){ .reads = 3, .bytes = 7278, .lseeks = 3 });
}

/* A 4096-byte line that ends exactly at the end of the buffer costs no read
 * beyond it, with fgets and with getline; a last line without '\n' costs
 * the read that finds EOF, and EOF is sticky after that.
 * File: 4095 'a' '\n', 10 'b' '\n', 5 'c' (4112 bytes).
 *   read 4096; read 4096 = 16; read 4096 = 0 */
static void test_line_ending_at_buffer_end(void **state)
{
    (void)state;
    const struct st_model_op with_fgets[] = {
        OPEN, FGETS(5000, 4096, true), FGETS(5000, 11, true),
        FGETS(5000, 5, false), FGETS(5000, 0, false), CLOSE,
    };
    const struct st_model_op with_getline[] = {
        OPEN, GETLINE(4096, true), GETLINE(11, true), GETLINE(5, false),
        GETLINE(0, false), CLOSE,
    };
    struct st_model m;

    m = run_with(ST_M_BUF_USER, 4096, 4112, with_fgets, N_OPS(with_fgets));
    check(&m, (struct expect){ .reads = 3, .bytes = 4112 });
    m = run_with(ST_M_BUF_USER, 4096, 4112, with_getline, N_OPS(with_getline));
    check(&m, (struct expect){ .reads = 3, .bytes = 4112 });
}

/* ungetc of the byte just read steps back in the buffer; another byte goes
 * to a backup area, which exit frees before syncing the main get area.
 *   in place: read 4096; lseek -4096 SEEK_CUR (exit)
 *   backup:   read 4096; lseek -4094 SEEK_CUR (exit) */
static void test_ungetc_then_exit(void **state)
{
    (void)state;
    const struct st_model_op in_place[] = { OPEN, GETC, UNGETC(true), EXIT };
    const struct st_model_op backup[] = { OPEN, GETC, UNGETC(false), GETC, GETC, EXIT };
    struct st_model m;

    m = run_with(ST_M_BUF_USER, 4096, MIB4, in_place, N_OPS(in_place));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    assert_int_equal(m.kernel_pos, 0);
    m = run_with(ST_M_BUF_USER, 4096, MIB4, backup, N_OPS(backup));
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
    assert_int_equal(m.kernel_pos, 2);
}

/* fseek (SEEK_CUR) from the backup area counts the byte put back.
 *   read 4096; lseek -4081 SEEK_CUR */
static void test_ungetc_then_seek_cur(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FREAD(10), GETC, UNGETC(false), FSEEK(5, SEEK_CUR), FTELL,
    };
    struct st_model_config cfg = { .file_size = MIB4, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    for (size_t i = 0; i < 5; i++)
        st_model_step(&m, &ops[i]);
    assert_int_equal(st_model_step(&m, &ops[5]), 15);
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 1 });
}

/* In the backup area every ungetc adds a byte, whatever it is (glibc 2.36
 * stable branch, BZ #27821). fflush gives back only the backup bytes; exit
 * then syncs the main get area from where ungetc parked it.
 *   read 4096; lseek 0 SEEK_CUR (ftell = 9); lseek -2 SEEK_CUR (fflush);
 *   lseek -4085 SEEK_CUR (exit) = 9 */
static void test_ungetc_twice_fflush_exit(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        OPEN, FREAD(10), GETC, UNGETC(false), UNGETC(true), FTELL, FFLUSH, EXIT,
    };
    struct st_model_config cfg = { .file_size = MIB4, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    for (size_t i = 0; i < 5; i++)
        st_model_step(&m, &ops[i]);
    assert_int_equal(st_model_step(&m, &ops[5]), 9);
    st_model_step(&m, &ops[6]);
    st_model_step(&m, &ops[7]);
    check(&m, (struct expect){ .reads = 1, .bytes = 4096, .lseeks = 3 });
    assert_int_equal(m.kernel_pos, 9);
}

/* fdopen on a descriptor at offset 100: the stream starts there, with
 * _offset unknown like after fopen.
 *   read 4096; lseek 0 SEEK_CUR (ftell = 116); lseek 0; read 4096;
 *   lseek -3896 SEEK_CUR (exit) */
static void test_fdopen_starts_at_descriptor_offset(void **state)
{
    (void)state;
    const struct st_model_op ops[] = {
        { .kind = ST_M_OPEN, .arg = 100 }, FREAD(16), FTELL, FSEEK(200, SEEK_SET), EXIT,
    };
    struct st_model_config cfg = { .file_size = MIB4, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    st_model_step(&m, &ops[0]);
    assert_int_equal(st_model_step(&m, &ops[1]), 16);
    assert_int_equal(st_model_step(&m, &ops[2]), 116);
    st_model_step(&m, &ops[3]);
    st_model_step(&m, &ops[4]);
    check(&m, (struct expect){ .reads = 2, .bytes = 8192, .lseeks = 3 });
    assert_int_equal(m.kernel_pos, 200);
}

/* Calls on a stream not (or no longer) open do nothing. */
static void test_calls_on_closed_stream(void **state)
{
    (void)state;
    const struct st_model_op ops[] = { FREAD(10), OPEN, CLOSE, FTELL };
    struct st_model_config cfg = { .file_size = MIB4, .bufsize = 4096,
                                   .buffering = ST_M_BUF_USER };
    struct st_model m;

    st_model_init(&m, &cfg);
    assert_int_equal(st_model_step(&m, &ops[0]), -1);
    st_model_step(&m, &ops[1]);
    st_model_step(&m, &ops[2]);
    assert_int_equal(st_model_step(&m, &ops[3]), -1);
    check(&m, (struct expect){ 0 });
}

/* A getc run is n getc calls: same syscalls, including the EOF at the end
 * (a 10,000-byte file read by getc through a 4 KiB buffer: 3 reads of data
 * and the one that returns 0). */
static void test_getc_run_equals_single_getcs(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1, 512, 4096, 65536};
    for (size_t i = 0; i < N_OPS(sizes); i++) {
        struct st_model one, run;
        struct st_model_config cfg = {
            .file_size = 10000, .bufsize = sizes[i], .buffering = ST_M_BUF_USER
        };
        struct st_model_op open = OPEN, getc = GETC;
        struct st_model_op batch = { .kind = ST_M_GETC_RUN, .arg = 10000 };
        st_model_init(&one, &cfg);
        st_model_init(&run, &cfg);
        st_model_step(&one, &open);
        st_model_step(&run, &open);
        for (int k = 0; k < 10000; k++)
            assert_int_equal(st_model_step(&one, &getc), 1);
        assert_int_equal(st_model_step(&run, &batch), 10000);
        assert_int_equal(st_model_step(&one, &getc), -1);
        assert_int_equal(st_model_step(&run, &getc), -1);
        assert_int_equal(run.cost.read_syscalls, one.cost.read_syscalls);
        assert_int_equal(run.cost.kernel_read_bytes, 10000);
        assert_int_equal(one.cost.kernel_read_bytes, 10000);
    }
    struct st_model_op ops[] = { OPEN, { .kind = ST_M_GETC_RUN, .arg = 10000 }, GETC };
    struct st_model m = run_with(ST_M_BUF_USER, 4096, 10000, ops, N_OPS(ops));
    check(&m, (struct expect){ .reads = 4, .bytes = 10000 });
}

/* A file whose size the recording never proved: reads the assumed end cuts
 * short are counted, so the caller can print the figures as lower bounds. */
static void test_assumed_end_reads_are_counted(void **state)
{
    (void)state;
    struct st_model_config cfg = {
        .file_size = 5000, .bufsize = 4096, .buffering = ST_M_BUF_USER,
        .size_is_lower_bound = true
    };
    struct st_model_op ops[] = { OPEN, FSEEK(100, SEEK_SET), FREAD(10), FSEEK(4900, SEEK_SET),
                                 FREAD(10) };
    struct st_model m = run_cfg(&cfg, ops, N_OPS(ops));
    /* read(100) exact up to the first target, read(4096) for the fread,
     * read(4096) at 4096 that the assumed end cuts to 904 bytes */
    assert_int_equal(m.cost.read_syscalls, 3);
    assert_int_equal(m.cost.assumed_end_reads, 1);
    cfg.size_is_lower_bound = false;
    m = run_cfg(&cfg, ops, N_OPS(ops));
    assert_int_equal(m.cost.assumed_end_reads, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_seek_reads_a_buffer_each),
        cmocka_unit_test(test_getc_run_equals_single_getcs),
        cmocka_unit_test(test_assumed_end_reads_are_counted),
        cmocka_unit_test(test_allocated_buffer_fstats_once),
        cmocka_unit_test(test_seek_in_buffer_only_resyncs),
        cmocka_unit_test(test_seek_end_fstats_every_time),
        cmocka_unit_test(test_ftell_with_unknown_offset_lseeks),
        cmocka_unit_test(test_seek_cur_with_unknown_offset),
        cmocka_unit_test(test_large_fread_reads_whole_buffers_directly),
        cmocka_unit_test(test_direct_read_ignores_sticky_eof),
        cmocka_unit_test(test_seek_past_eof),
        cmocka_unit_test(test_exit_syncs_unread_bytes),
        cmocka_unit_test(test_exit_skips_unbuffered_and_unoriented_streams),
        cmocka_unit_test(test_non_power_of_two_buffer),
        cmocka_unit_test(test_tiny_buffer_reads_exact_direct),
        cmocka_unit_test(test_fflush_gives_back_unread_bytes),
        cmocka_unit_test(test_fflush_of_an_unread_buffer_makes_seeks_exact),
        cmocka_unit_test(test_line_ending_at_buffer_end),
        cmocka_unit_test(test_ungetc_then_exit),
        cmocka_unit_test(test_ungetc_then_seek_cur),
        cmocka_unit_test(test_ungetc_twice_fflush_exit),
        cmocka_unit_test(test_fdopen_starts_at_descriptor_offset),
        cmocka_unit_test(test_calls_on_closed_stream),
        cmocka_unit_test(test_glibc242_fclose_syncs_input),
        cmocka_unit_test(test_glibc242_fclose_in_backup),
        cmocka_unit_test(test_glibc242_fflush_after_ungetc),
        cmocka_unit_test(test_glibc242_exit_in_backup),
        cmocka_unit_test(test_glibc231_exit_in_backup),
        cmocka_unit_test(test_glibc_version_parsing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
