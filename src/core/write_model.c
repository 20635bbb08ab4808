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

/* glibc empties the put area to the buffer's start after each write. */
static void write_area(struct st_write_model *m, uint64_t n)
{
    syscall_of(m, n);
    if (n) {
        m->fill = 0;
        m->base = 0;
    }
}

void st_write_model_flush(struct st_write_model *m)
{
    write_area(m, m->fill);
}

void st_write_model_reposition(struct st_write_model *m, int64_t read_at)
{
    st_write_model_flush(m);
    m->putting = 0;
    /* _IO_new_file_seekoff reads the block holding the target, from
     * offset & ~(size - 1): the next write starts at the target inside it. */
    m->base = read_at >= 0 && m->mode != ST_WM_NONE ? (uint64_t)read_at & (m->size - 1) : 0;
}

/* _IO_new_file_xsputn on a buffered stream; nl: the bytes end in a
 * newline and the stream is line buffered (the remainder kept in the
 * buffer is then written at that newline). */
static void bytes(struct st_write_model *m, uint64_t n);

static void xsputn(struct st_write_model *m, uint64_t n, int nl)
{
    uint64_t room = m->putting ? m->size - m->base - m->fill : 0;
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
    write_area(m, straight);
    bytes(m, n - straight); /* _IO_default_xsputn: into the area, byte-wise */
    if (nl)
        st_write_model_flush(m);
}

/* Bytes put one at a time: a byte that finds the buffer full writes it.
 * An area that starts inside the buffer (base) is shorter the first time. */
static void bytes(struct st_write_model *m, uint64_t n)
{
    m->putting = 1;
    uint64_t cap = m->size - m->base;
    if (m->base && m->fill + n > cap) {
        n -= cap - m->fill;
        write_area(m, cap);
    }
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
