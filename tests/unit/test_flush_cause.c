/* Unit tests: the cause of each stdio write (src/core/flush_cause.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "flush_cause.h"

/* A call that flushes whatever the stream holds names the cause, whatever
 * the stream's buffering and the bytes. */
static void calls_name_the_cause(void **state)
{
    (void)state;
    const int modes[] = {0, ST_IO_UNBUFFERED, ST_IO_LINE_BUF};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        for (int last = -1; last <= '\n'; last += '\n' + 1) {
            int f = modes[m];
            assert_int_equal(st_flush_cause_of(ST_CALL_EXIT, f, last), ST_FLUSH_EXIT);
            assert_int_equal(st_flush_cause_of(ST_CALL_FFLUSH, f, last), ST_FLUSH_FFLUSH);
            assert_int_equal(st_flush_cause_of(ST_CALL_FCLOSE, f, last), ST_FLUSH_CLOSE);
            assert_int_equal(st_flush_cause_of(ST_CALL_FOPEN, f, last), ST_FLUSH_CLOSE);
            assert_int_equal(st_flush_cause_of(ST_CALL_FSEEK, f, last), ST_FLUSH_SEEK);
            assert_int_equal(st_flush_cause_of(ST_CALL_FSETPOS, f, last), ST_FLUSH_SEEK);
            assert_int_equal(st_flush_cause_of(ST_CALL_REWIND, f, last), ST_FLUSH_SEEK);
            assert_int_equal(st_flush_cause_of(ST_CALL_FREAD, f, last), ST_FLUSH_READ);
            assert_int_equal(st_flush_cause_of(ST_CALL_GETC, f, last), ST_FLUSH_READ);
            assert_int_equal(st_flush_cause_of(ST_CALL_FGETS, f, last), ST_FLUSH_READ);
            assert_int_equal(st_flush_cause_of(ST_CALL_GETLINE, f, last), ST_FLUSH_READ);
            assert_int_equal(st_flush_cause_of(ST_CALL_FSCANF, f, last), ST_FLUSH_READ);
        }
    }
}

/* Otherwise the stream's buffering says why: a writer's call, or a putc
 * that no call wraps (ST_CALL_OTHER). */
static void writers_by_buffering(void **state)
{
    (void)state;
    const enum st_call writers[] = {ST_CALL_FWRITE, ST_CALL_FPUTS, ST_CALL_FPRINTF,
                                    ST_CALL_PUTS, ST_CALL_OTHER};
    for (size_t k = 0; k < sizeof writers / sizeof writers[0]; k++) {
        enum st_call c = writers[k];
        assert_int_equal(st_flush_cause_of(c, 0, '\n'), ST_FLUSH_FULL);
        assert_int_equal(st_flush_cause_of(c, 0, 'x'), ST_FLUSH_FULL);
        assert_int_equal(st_flush_cause_of(c, ST_IO_UNBUFFERED, 'x'), ST_FLUSH_UNBUFFERED);
        assert_int_equal(st_flush_cause_of(c, ST_IO_UNBUFFERED, '\n'), ST_FLUSH_UNBUFFERED);
        assert_int_equal(st_flush_cause_of(c, ST_IO_LINE_BUF, '\n'), ST_FLUSH_NEWLINE);
        /* A line too long for the buffer is written before its newline. */
        assert_int_equal(st_flush_cause_of(c, ST_IO_LINE_BUF, 'x'), ST_FLUSH_FULL);
        assert_int_equal(st_flush_cause_of(c, ST_IO_LINE_BUF, -1), ST_FLUSH_FULL);
        /* Other flags change nothing (_IO_NO_READS, _IO_CURRENTLY_PUTTING). */
        assert_int_equal(st_flush_cause_of(c, 0x0004 | 0x0800, '\n'), ST_FLUSH_FULL);
    }
}

/* Each cause counts in its own flushes_ counter, named after it. */
static void counters_and_names(void **state)
{
    (void)state;
    struct st_counts c = {0};
    for (int k = 0; k < ST_FLUSH_COUNT; k++)
        *st_flush_counter(&c, k) += (uint64_t)k + 1;
    assert_int_equal(c.flushes_fflush, 1);
    assert_int_equal(c.flushes_full, 2);
    assert_int_equal(c.flushes_newline, 3);
    assert_int_equal(c.flushes_unbuffered, 4);
    assert_int_equal(c.flushes_seek, 5);
    assert_int_equal(c.flushes_close, 6);
    assert_int_equal(c.flushes_exit, 7);
    assert_int_equal(c.flushes_read, 8);
    assert_int_equal(c.written_bytes, 0);
    assert_string_equal(st_flush_cause_name(ST_FLUSH_FFLUSH), "fflush");
    assert_string_equal(st_flush_cause_name(ST_FLUSH_NEWLINE), "newline");
    assert_string_equal(st_flush_cause_name(ST_FLUSH_READ), "read");
    assert_string_equal(st_flush_cause_name(ST_FLUSH_COUNT), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calls_name_the_cause),
        cmocka_unit_test(writers_by_buffering),
        cmocka_unit_test(counters_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
