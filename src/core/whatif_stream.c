/* whatif_stream.c — see whatif_stream.h. */
#include "whatif_stream.h"

#include "seektrace/trace_format.h"

/* A file whose size is not known yet: larger than any offset reached. */
#define UNKNOWN_SIZE (UINT64_C(1) << 62)

int st_model_op_from_trace(unsigned op, int flag, uint64_t n, int64_t x, struct st_model_op *out)
{
    *out = (struct st_model_op){0};
    switch (op) {
    case ST_OP_OPEN:
        out->kind = ST_M_OPEN;
        out->arg = x;
        return 1;
    case ST_OP_FREAD:
        out->kind = ST_M_FREAD;
        out->arg = n > INT64_MAX ? INT64_MAX : (int64_t)n;
        return 1;
    case ST_OP_GETC_RUN:
        out->kind = ST_M_GETC_RUN;
        out->arg = n > INT64_MAX ? INT64_MAX : (int64_t)n;
        return 1;
    case ST_OP_GETC_EOF:
        out->kind = ST_M_GETC;
        return 1;
    case ST_OP_FGETS:
        out->kind = ST_M_FGETS;
        out->arg = n > INT32_MAX ? INT32_MAX : (int64_t)n;
        out->len = x;
        out->delim_seen = flag;
        return 1;
    case ST_OP_GETDELIM:
        out->kind = ST_M_GETDELIM;
        out->len = n > INT64_MAX ? INT64_MAX : (int64_t)n;
        out->delim_seen = flag;
        return 1;
    case ST_OP_UNGETC:
        out->kind = ST_M_UNGETC;
        out->matches_prev = flag;
        return 1;
    case ST_OP_FSEEK:
        out->kind = ST_M_FSEEK;
        out->whence = (int)n;
        out->arg = x;
        return 1;
    case ST_OP_FTELL:
        out->kind = ST_M_FTELL;
        return 1;
    case ST_OP_REWIND:
        out->kind = ST_M_REWIND;
        return 1;
    case ST_OP_FFLUSH:
        out->kind = ST_M_FFLUSH;
        return 1;
    case ST_OP_CLEARERR:
        out->kind = ST_M_CLEARERR;
        return 1;
    case ST_OP_EXIT:
        out->kind = ST_M_EXIT;
        return 1;
    }
    return 0;
}

void st_whatif_stream_op(struct st_whatif_stream *w, uint64_t buffer_size, unsigned op, int flag,
                         uint64_t n, int64_t x)
{
    if (op == ST_OP_OPEN) {
        w->on = flag && x >= 0;
        if (w->on) {
            struct st_model_config cfg = {
                .file_size = UNKNOWN_SIZE, .bufsize = ST_WHATIF_BUFFER,
                .buffering = ST_M_BUF_USER, .glibc = w->glibc
            };
            st_model_init(&w->model, &cfg);
        }
    }
    if (!w->on)
        return;
    if (buffer_size && buffer_size <= ST_WHATIF_BUFFER) {
        w->on = 0;
        return;
    }
    if (op == ST_OP_SIZE) {
        if (flag && w->model.cfg.file_size == UNKNOWN_SIZE)
            w->model.cfg.file_size = n;
        return;
    }
    struct st_model_op mop;
    if (st_model_op_from_trace(op, flag, n, x, &mop))
        st_model_step(&w->model, &mop);
}

void st_whatif_stream_counts(const struct st_whatif_stream *w, struct st_counts *c)
{
    if (!w || !w->on)
        return;
    c->whatif_4k_kernel_read_bytes += w->model.cost.kernel_read_bytes;
    c->whatif_4k_recorded_bytes += c->kernel_read_bytes;
}
