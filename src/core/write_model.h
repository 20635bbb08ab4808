/* write_model.h — what a stream's writes would cost the kernel with another
 * buffer: write syscalls and kernel bytes written, followed call by call.
 *
 * glibc 2.36's rules (libio/fileops.c), for what a trace records of a
 * stream's writes: the bytes each writing call handed over (WRITTEN events,
 * summed per call) and the calls that flush it.
 *   - fwrite, fputs (_IO_file_xsputn): bytes fill the room left in the put
 *     area; if more remain, the area is written, then as many whole buffers
 *     as remain straight from the caller (all of it when the buffer is under
 *     128 bytes, as an unbuffered stream's one byte is), and the rest is
 *     kept. Right after fopen, a seek or a read the area is not set up and
 *     has no room: a call of a buffer or more writes its whole buffers
 *     straight at once.
 *   - putc and the bytes of printf's pieces: byte by byte; a byte that
 *     finds the buffer full writes it first. Unbuffered: a write per byte,
 *     except printf, which stages its output in an 8 KiB buffer of its own
 *     (a write per 8 KiB, or per call).
 *   - puts: its string as fwrite, then the newline as putc.
 *   - fflush, fclose, exit write what the buffer holds; a seek or a read
 *     does too, and leaves the area unset. On a read/write stream ("w+")
 *     a seek reads the block holding its target, and the next write
 *     starts at the target inside that block (the area is shorter once).
 *   - Line buffered: as full buffering, and a call whose last byte is a
 *     newline writes all the buffer holds (fwrite's room is the whole
 *     buffer's: glibc looks for the newline only when the call fits).
 * Traces say whether each call's bytes ended in a newline (OP OTHER's F1),
 * not where other newlines were: line buffering is exact when a call's
 * only newline is its last byte, and takes putc's bytes as holding none.
 * printf's pieces are taken as bytes, which is exact while no single piece
 * (a conversion, a literal run) is as large as the buffer. */
#ifndef SEEKTRACE_WRITE_MODEL_H
#define SEEKTRACE_WRITE_MODEL_H

#include <stdint.h>

/* How a writing call handed its bytes over. */
enum st_wm_put {
    ST_WM_XSPUTN, /* fwrite, fputs: one block */
    ST_WM_PRINTF, /* the printf family */
    ST_WM_PUTS,   /* puts: a string and a newline */
    ST_WM_BYTES,  /* putc, the inline macro, bytes booked outside a call */
};

enum st_wm_mode { ST_WM_FULL, ST_WM_LINE, ST_WM_NONE };

struct st_write_model {
    enum st_wm_mode mode;
    uint64_t size;   /* the buffer (full and line buffering) */
    uint64_t fill;   /* bytes the put area holds */
    uint64_t base;   /* where the put area starts in the buffer */
    int putting;     /* the put area is set up: its room can be filled */
    uint64_t write_syscalls, kernel_write_bytes;
};

/* A stream just opened, in mode, with a buffer of size bytes (unbuffered:
 * size unused). */
void st_write_model_init(struct st_write_model *m, enum st_wm_mode mode, uint64_t size);

/* n bytes handed over by one call of the given kind; ends_line: its last
 * byte was a newline (always so for puts). */
void st_write_model_put(struct st_write_model *m, enum st_wm_put how, uint64_t n, int ends_line);

/* fflush, fclose, exit: what the buffer holds is written. */
void st_write_model_flush(struct st_write_model *m);

/* A seek or a read on the stream: written as by flush, the area unset.
 * read_at >= 0: a read/write stream sought that offset, and glibc read the
 * block holding it; the next write starts there, inside the buffer. */
void st_write_model_reposition(struct st_write_model *m, int64_t read_at);

#endif
