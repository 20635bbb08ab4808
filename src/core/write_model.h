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
 *     does too, and leaves the area unset.
 * Line buffering needs where each newline was, which traces do not
 * record: not modelled. printf's pieces are taken as bytes, which is
 * exact while no single piece (a conversion, a literal run) is as large as
 * the buffer. */
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

struct st_write_model {
    uint64_t size;   /* the buffer (full buffering); 0: unbuffered */
    uint64_t fill;   /* bytes the buffer holds */
    int putting;     /* the put area is set up: its room can be filled */
    uint64_t write_syscalls, kernel_write_bytes;
};

/* A stream just opened, fully buffered with size bytes, or unbuffered
 * (size 0). */
void st_write_model_init(struct st_write_model *m, uint64_t size);

/* n bytes handed over by one call of the given kind. */
void st_write_model_put(struct st_write_model *m, enum st_wm_put how, uint64_t n);

/* fflush, fclose, exit: what the buffer holds is written. */
void st_write_model_flush(struct st_write_model *m);

/* A seek or a read on the stream: written as by flush, the area unset. */
void st_write_model_reposition(struct st_write_model *m);

#endif
