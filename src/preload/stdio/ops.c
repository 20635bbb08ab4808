/* ops.c — see ops.h. */
#define _GNU_SOURCE 1
#include "ops.h"

#include <string.h>

#include "fdtable.h"
#include "glibc_compat.h"
#include "infer.h"
#include "ledger.h"
#include "stdio_hook.h"
#include "streams.h"
#include "thread_state.h"
#include "trace_events.h"

/* One operation of s: to its 4 KiB what-if, and to the trace; ends_call:
 * see st_trace_op. */
static void emit(struct st_stream *s, unsigned op, int flag, uint64_t n, int64_t x, int ends_call)
{
    if (!s)
        return;
    if (op == ST_OP_OPEN)
        s->whatif.glibc = st_glibc_rules;
    if (s->whatif.on || op == ST_OP_OPEN) /* OPEN decides whether it is on */
        st_whatif_stream_op(&s->whatif, s->buffer_size, op, flag, n, x);
    st_trace_op(s, op, flag, n, x, ends_call);
}

void st_ops_getc_run(struct st_stream *s, uint64_t n)
{
    if (n > 0 && s && st_ops_wanted(s))
        emit(s, ST_OP_GETC_RUN, 0, n, 0, 0);
}

void st_ops_getc_eof(struct st_stream *s)
{
    if (s && st_ops_wanted(s))
        emit(s, ST_OP_GETC_EOF, 0, 0, 0, 0);
}

void st_ops_size(struct st_stream *s, int regular, uint64_t size)
{
    if (s && st_ops_wanted(s))
        emit(s, ST_OP_SIZE, regular, size, 0, 0);
}

/* The stream's lock, only once a second thread exists (as glibc's stdio
 * does): the single-threaded path pays no atomic operation. */
static int lock(FILE *fp)
{
    if (__libc_single_threaded)
        return 0;
    flockfile(fp);
    return 1;
}

static void unlock(FILE *fp, int locked)
{
    if (locked)
        funlockfile(fp);
}

/* Brings the ledger up to the stream's read position and charges what is
 * consumed from here on to the current call; the caller holds the stream's
 * lock. Returns the bytes booked. Nothing consumed since the mark (the
 * usual case: the last hooked slot set it), nothing to do. */
static uint64_t settle(struct st_stream *s, FILE *fp)
{
    if (st_ledger_at_mark(s, fp))
        return 0;
    uint64_t n = st_ledger_sync(s, fp);
    st_ledger_mark(s, fp, 0);
    return n;
}

void st_ops_call_begins(struct st_stream *s, FILE *fp)
{
    /* Single-threaded, the lock is no lock: the usual case, nothing
     * consumed since the mark, is then decided before taking it. */
    if (st_capture_inferred || (__libc_single_threaded && st_ledger_at_mark(s, fp)))
        return;
    int locked = lock(fp);
    st_ops_getc_run(s, settle(s, fp));
    unlock(fp, locked);
}

/* A wrapped call on fp has returned: book what it consumed itself (as a
 * getc run when it reads a byte at a time), then record it — under the
 * stream's lock (recursive: the program may hold it), so that threads
 * sharing a stream do not interleave inside one stream's record. */
/* returned()'s flag for a writing call: whether the last byte it handed
 * over was a newline, where a line-buffered stream flushes (the write
 * what-if's line buffering). That byte ends the put area when the area
 * holds any; else glibc's write slot wrote it last. */
#define ENDS_LINE (-1)

static int ends_line(const struct st_stream *s, const FILE *fp)
{
    int last = fp->_IO_write_ptr > fp->_IO_write_base ? (unsigned char)fp->_IO_write_ptr[-1]
                                                      : s->last_written;
    return last == '\n';
}

static void returned(FILE *fp, enum st_call call, unsigned op, int flag, uint64_t n, int64_t x)
{
    if (!fp || st_capture_inferred)
        return;
    st_self.busy++;
    struct st_stream *s = st_stream_of(fp);
    if (s && st_ops_wanted(s)) {
        int locked = lock(fp);
        uint64_t consumed = settle(s, fp);
        if (st_ops_reads_per_byte(call))
            st_ops_getc_run(s, consumed);
        if (flag == ENDS_LINE)
            flag = ends_line(s, fp);
        emit(s, op, flag, n, x, 1); /* st_call_end follows */
        unlock(fp, locked);
    }
    st_self.busy--;
}

void st_op_fread(FILE *fp, size_t size, size_t nmemb)
{
    size_t n;
    if (__builtin_mul_overflow(size, nmemb, &n))
        n = SIZE_MAX;
    returned(fp, ST_CALL_FREAD, ST_OP_FREAD, 0, n, 0);
}

void st_op_getdelim(FILE *fp, char *const *line, ssize_t result, int delim)
{
    uint64_t len = result > 0 ? (uint64_t)result : 0;
    int ends = len > 0 && line && *line && (*line)[len - 1] == (char)delim;
    returned(fp, ST_CALL_GETLINE, ST_OP_GETDELIM, ends, len, 0);
}

void st_op_fseek(FILE *fp, int64_t offset, int whence)
{
    returned(fp, ST_CALL_FSEEK, ST_OP_FSEEK, 0, (uint64_t)(unsigned)whence & 0xff, offset);
}

void st_op_plain(FILE *fp, unsigned op)
{
    returned(fp, ST_CALL_OTHER, op, 0, 0, 0);
}

/* scanf reads a byte at a time and puts its one byte of look-ahead back in
 * place: what it took is a getc run. OTHER says the replay is approximate
 * (the look-ahead can refill the buffer a little earlier). */
void st_op_other(FILE *fp, enum st_call call)
{
    returned(fp, call, ST_OP_OTHER, 0, (uint64_t)call, 0);
}

void st_op_wrote(FILE *fp, enum st_call call)
{
    returned(fp, call, ST_OP_OTHER, ENDS_LINE, (uint64_t)call, 0);
}

void st_op_open(struct st_stream *s, const char *mode, int new_description)
{
    if (!s || !mode || st_capture_inferred)
        return;
    int read_only = mode[0] == 'r' && !strchr(mode, '+');
    int64_t offset = new_description ? 0 : st_desc_offset(st_fd_desc(st_fd_get(s->fd)));
    emit(s, ST_OP_OPEN, read_only, 0, offset, 0);
}

/* glibc puts a byte back in place (_IO_sputbackc) when it equals the one
 * just before the read position; the model needs to know which case ran. */
int st_op_ungetc_matches(FILE *fp, int ch)
{
    return fp && !(fp->_flags & ST_IO_IN_BACKUP) && fp->_IO_read_ptr > fp->_IO_read_base &&
           (unsigned char)fp->_IO_read_ptr[-1] == (unsigned char)ch;
}

void st_op_ungetc(FILE *fp, int ch, int r, int matches)
{
    if (ch != EOF && r != EOF)
        returned(fp, ST_CALL_UNGETC, ST_OP_UNGETC, matches, 0, 0);
}
