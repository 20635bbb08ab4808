/* infer.c — see infer.h. */
#define _GNU_SOURCE 1
#include "infer.h"

#include "record.h"
#include "streams.h"
#include "sync.h"
#include "thread_state.h"
#include "trace_writer.h"

int st_capture_inferred;

/* The stream and its read window when the interposed call began. */
struct snapshot {
    FILE *fp;
    struct st_stream *s;
    char *base, *ptr, *end;
    off64_t offset; /* glibc's idea of the fd offset, -1 if it has none */
};

static __thread struct snapshot snap __attribute__((tls_model("initial-exec")));

void st_infer_begin(struct st_stream *s, FILE *fp)
{
    snap.fp = fp;
    snap.s = s;
    snap.base = fp->_IO_read_base;
    snap.ptr = fp->_IO_read_ptr;
    snap.end = fp->_IO_read_end;
    snap.offset = fp->_offset;
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
