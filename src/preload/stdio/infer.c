/* infer.c — see infer.h. */
#define _GNU_SOURCE 1
#include "infer.h"

#include "record.h"
#include "stdio_hook.h"
#include "stdio_model.h"
#include "streams.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_events.h"

/* The stream and its read window when the interposed call began. */
struct snapshot {
    FILE *fp;
    struct st_stream *s;
    char *base, *ptr, *end;
    off64_t offset; /* glibc's idea of the fd offset, -1 if it has none */
    int in_backup;  /* in ungetc's backup area */
};

/* glibc's flag for a stream reading from its backup area (libio.h). */
#define ST_IO_IN_BACKUP 0x100

static __thread struct snapshot snap __attribute__((tls_model("initial-exec")));

void st_infer_begin(struct st_stream *s, FILE *fp)
{
    snap.fp = fp;
    snap.s = s;
    snap.base = fp->_IO_read_base;
    snap.ptr = fp->_IO_read_ptr;
    snap.end = fp->_IO_read_end;
    snap.offset = fp->_offset;
    snap.in_backup = (fp->_flags & ST_IO_IN_BACKUP) != 0;
}

/* From glibc 2.42, fclose puts the offset of an input stream that holds
 * unread bytes where the program stopped reading: an lseek, after one more
 * to learn the offset when glibc does not know it (stdio_model.c,
 * do_close). fp is gone by now: only the snapshot is read. */
static void infer_fclose(const struct snapshot *b, struct st_tally *c)
{
    if (!st_model_fclose_syncs_input(st_glibc_rules) || (!b->in_backup && b->ptr >= b->end))
        return;
    for (int n = b->offset == -1 ? 2 : 1; n > 0; n--) {
        st_record_lseek(c, ST_CALL_FCLOSE);
        st_trace_lseek(c, ST_CALL_FCLOSE, -1);
    }
}

static int is_seek(enum st_call c)
{
    return c == ST_CALL_FSEEK || c == ST_CALL_FSETPOS || c == ST_CALL_REWIND;
}

static int is_read(enum st_call c)
{
    return c == ST_CALL_FREAD || c == ST_CALL_GETLINE ||
           c == ST_CALL_FSCANF || c == ST_CALL_UNGETC;
}

void st_infer_end(void)
{
    struct snapshot *b = &snap;
    if (!b->s)
        return;
    FILE *fp = b->fp;
    struct st_stream *s = b->s;
    b->s = NULL;
    enum st_call call = st_self.call;
    struct st_tally *c = st_stream_counts(s);
    if (!c)
        return;
    if (call == ST_CALL_FCLOSE) {
        infer_fclose(b, c);
        return;
    }

    /* glibc resyncs the fd offset on every fseek, and ftell asks the kernel
     * only when it does not know the offset itself. */
    if (is_seek(call) || ((call == ST_CALL_FTELL || call == ST_CALL_FGETPOS) && b->offset == -1)) {
        st_record_lseek(c, call);
        st_trace_lseek(c, call, -1);
    }

    char *base = fp->_IO_read_base, *ptr = fp->_IO_read_ptr, *end = fp->_IO_read_end;
    /* A refill shows as a new window, or, when glibc refilled the same
     * buffer in place (fseek reads a whole block), as a moved offset. */
    int refilled = base != b->base || end != b->end ||
                   (b->offset != -1 && fp->_offset != -1 && fp->_offset != b->offset);
    /* Reading only moves forward in a window: a read position that went
     * back, or any progress from an exhausted buffer, means a refill of the
     * same buffer (the offset is unknown on a fresh stream). */
    if (is_read(call) && ptr && (ptr < b->ptr || (b->ptr == b->end && ptr > base)))
        refilled = 1;
    if (refilled && (end > base || is_read(call)))
        st_record_read(s->file, c, call, -1, end - base);
    if (is_seek(call)) {
        int kept = !refilled && b->end > b->base;
        st_add(kept ? &c->seeks_in_buffer : &c->seeks_discarding_buffer, 1);
        st_trace_seek(c, kept, 0);
    }
    if (!is_read(call) || !ptr)
        return;
    /* Consumed: the rest of the old window, then the new one up to ptr. */
    long delivered = !refilled ? ptr - b->ptr : (b->end - b->ptr) + (ptr - base);
    if (delivered > 0) {
        st_add(&c->delivered_bytes, (uint64_t)delivered);
        st_add(&c->requested_bytes, (uint64_t)delivered);
        st_trace_deliver(c, (uint64_t)delivered, (uint64_t)delivered);
    }
    if (st_stream_observe_buffer(s, fp))
        st_trace_buffer(s);
}
