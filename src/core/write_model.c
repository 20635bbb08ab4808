/* write_model.c — see write_model.h. */
#include "write_model.h"

/* printf's staging buffer on an unbuffered stream (buffered_vfprintf). */
#define PRINTF_STAGING 8192u
/* Below this, glibc writes all that does not fit straight, not whole buffers. */
#define BLOCK_ALIGN_MIN 128u

static void syscall_of(struct st_write_model *m, uint64_t n)
{
    if (!n)
        return;
    m->write_syscalls++;
    m->kernel_write_bytes += n;
}

void st_write_model_init(struct st_write_model *m, enum st_wm_mode mode, uint64_t size)
{
    *m = (struct st_write_model){.mode = mode, .size = size};
}

void st_write_model_flush(struct st_write_model *m)
{
    syscall_of(m, m->fill);
    m->fill = 0;
}

void st_write_model_reposition(struct st_write_model *m)
{
    st_write_model_flush(m);
    m->putting = 0;
}

/* _IO_new_file_xsputn on a buffered stream; nl: the bytes end in a
 * newline and the stream is line buffered (the remainder kept in the
 * buffer is then written at that newline). */
static void xsputn(struct st_write_model *m, uint64_t n, int nl)
{
    uint64_t room = m->putting ? m->size - m->fill : 0;
    if (n <= room) {
        m->fill += n;
        if (nl)
            st_write_model_flush(m);
        return;
    }
    m->fill += room;
    n -= room;
    st_write_model_flush(m); /* _IO_OVERFLOW (f, EOF) sets the area up */
    m->putting = 1;
    uint64_t straight = n - (m->size >= BLOCK_ALIGN_MIN ? n % m->size : 0);
    syscall_of(m, straight);
    m->fill = n - straight;
    if (nl)
        st_write_model_flush(m);
}

/* Bytes put one at a time: a byte that finds the buffer full writes it. */
static void bytes(struct st_write_model *m, uint64_t n)
{
    m->putting = 1;
    uint64_t total = m->fill + n;
    if (total > m->size) {
        uint64_t full = (total - 1) / m->size;
        m->write_syscalls += full;
        m->kernel_write_bytes += full * m->size;
        total -= full * m->size;
    }
    m->fill = total;
}

void st_write_model_put(struct st_write_model *m, enum st_wm_put how, uint64_t n, int ends_line)
{
    if (!n)
        return;
    if (m->mode == ST_WM_NONE) {
        switch (how) {
        case ST_WM_XSPUTN: syscall_of(m, n); break;
        case ST_WM_PUTS: syscall_of(m, n - 1); syscall_of(m, 1); break;
        case ST_WM_BYTES: m->write_syscalls += n; m->kernel_write_bytes += n; break;
        case ST_WM_PRINTF:
            for (; n > PRINTF_STAGING; n -= PRINTF_STAGING)
                syscall_of(m, PRINTF_STAGING);
            syscall_of(m, n);
            break;
        }
        return;
    }
    int line = m->mode == ST_WM_LINE;
    switch (how) {
    case ST_WM_XSPUTN: xsputn(m, n, line && ends_line); return;
    case ST_WM_PUTS: xsputn(m, n - 1, 0); bytes(m, 1); break;
    case ST_WM_BYTES:
    case ST_WM_PRINTF: bytes(m, n); break;
    }
    if (line && (ends_line || how == ST_WM_PUTS))
        st_write_model_flush(m);
}
