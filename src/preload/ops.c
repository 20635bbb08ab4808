/* ops.c — see ops.h. */
#define _GNU_SOURCE 1
#include "ops.h"

#include <string.h>

#include "fdtable.h"
#include "infer.h"
#include "ledger.h"
#include "streams.h"
#include "thread_state.h"
#include "trace_writer.h"

/* glibc's _IO_IN_BACKUP: the read pointers are in ungetc's backup area. */
#define IO_IN_BACKUP 0x100

void st_ops_getc_run(struct st_stream *s, uint64_t n)
{
    if (n > 0)
        st_trace_op(s, ST_OP_GETC_RUN, 0, n, 0);
}

/* Brings the ledger up to the stream's read position, under the stream's
 * lock (recursive: the program may hold it), and charges what is consumed
 * from here on to the current call. Returns the bytes booked. */
static uint64_t settle(struct st_stream *s, FILE *fp)
{
    flockfile(fp);
    uint64_t n = st_ledger_sync(s, fp);
    st_ledger_mark(s, fp, 0);
    funlockfile(fp);
    return n;
}

void st_ops_call_begins(struct st_stream *s, FILE *fp)
{
    if (!st_capture_inferred)
        st_ops_getc_run(s, settle(s, fp));
}

/* The stream a returning call concerns, its own consumption booked (and
 * counted in *consumed when asked). */
static struct st_stream *returning_with(FILE *fp, uint64_t *consumed)
{
    if (!fp || st_capture_inferred)
        return NULL;
    st_self.busy++;
    struct st_stream *s = st_stream_of(fp);
    uint64_t n = s ? settle(s, fp) : 0;
    if (consumed)
        *consumed = n;
    st_self.busy--;
    return s;
}

static struct st_stream *returning(FILE *fp)
{
    return returning_with(fp, NULL);
}

void st_op_fread(FILE *fp, size_t size, size_t nmemb)
{
    size_t n;
    if (__builtin_mul_overflow(size, nmemb, &n))
        n = SIZE_MAX;
    st_trace_op(returning(fp), ST_OP_FREAD, 0, n, 0);
}

void st_op_fgets(FILE *fp, int n, const char *result)
{
    /* A line holding NUL bytes reads as shorter: fgets cannot tell. */
    size_t len = result ? strlen(result) : 0;
    int newline = len > 0 && result[len - 1] == '\n';
    st_trace_op(returning(fp), ST_OP_FGETS, newline, n < 0 ? 0 : (uint64_t)n, (int64_t)len);
}

void st_op_getdelim(FILE *fp, char *const *line, ssize_t result, int delim)
{
    uint64_t len = result > 0 ? (uint64_t)result : 0;
    int ends = len > 0 && line && *line && (*line)[len - 1] == (char)delim;
    st_trace_op(returning(fp), ST_OP_GETDELIM, ends, len, 0);
}

void st_op_fseek(FILE *fp, int64_t offset, int whence)
{
    st_trace_op(returning(fp), ST_OP_FSEEK, 0, (uint64_t)(unsigned)whence & 0xff, offset);
}

void st_op_plain(FILE *fp, unsigned op)
{
    st_trace_op(returning(fp), op, 0, 0, 0);
}

/* scanf reads a byte at a time and puts its one byte of look-ahead back in
 * place: what it took is a getc run. OTHER says the replay is approximate
 * (the look-ahead can refill the buffer a little earlier). */
void st_op_other(FILE *fp, enum st_call call)
{
    uint64_t n = 0;
    struct st_stream *s = returning_with(fp, &n);
    if (st_ops_reads_per_byte(call))
        st_ops_getc_run(s, n);
    st_trace_op(s, ST_OP_OTHER, 0, (uint64_t)call, 0);
}

void st_op_open(struct st_stream *s, const char *mode, int new_description)
{
    if (!s || !mode)
        return;
    int read_only = mode[0] == 'r' && !strchr(mode, '+');
    int64_t offset = new_description ? 0 : st_desc_offset(st_fd_get(s->fd));
    st_trace_op(s, ST_OP_OPEN, read_only, 0, offset);
}

/* glibc puts a byte back in place (_IO_sputbackc) when it equals the one
 * just before the read position; the model needs to know which case ran. */
int st_op_ungetc_matches(FILE *fp, int ch)
{
    return fp && !(fp->_flags & IO_IN_BACKUP) && fp->_IO_read_ptr > fp->_IO_read_base &&
           (unsigned char)fp->_IO_read_ptr[-1] == (unsigned char)ch;
}

void st_op_ungetc(FILE *fp, int ch, int r, int matches)
{
    if (ch != EOF && r != EOF)
        st_trace_op(returning(fp), ST_OP_UNGETC, matches, 0, 0);
}
