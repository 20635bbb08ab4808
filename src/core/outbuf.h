/* outbuf.h — buffered text output straight to a file descriptor.
 *
 * The preload library must not print through stdio: a FILE of its own would
 * run through the very hooks it installs and disturb the program's streams.
 * So reports are built in a fixed buffer and written with write(2). */
#ifndef SEEKTRACE_OUTBUF_H
#define SEEKTRACE_OUTBUF_H

#include <stdarg.h>
#include <stddef.h>

struct st_outbuf {
    int fd;
    int failed; /* a write failed; later output is dropped */
    size_t len;
    char buf[8192];
};

void st_out_init(struct st_outbuf *o, int fd);
void st_out_write(struct st_outbuf *o, const char *s, size_t n);
void st_out_str(struct st_outbuf *o, const char *s);
void st_out_printf(struct st_outbuf *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Text from outside (file names, argv, symbols): control bytes are written
 * as \xNN, so a name cannot forge report lines or drive a terminal. */
void st_out_text(struct st_outbuf *o, const char *s);

/* Writes what is buffered; returns 0, or -1 if any write failed. */
int st_out_flush(struct st_outbuf *o);

#endif
