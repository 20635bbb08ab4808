/* capture.h — test helper: run a writer against an st_outbuf and get back
 * what it wrote, through an anonymous memory file. */
#ifndef SEEKTRACE_TEST_CAPTURE_H
#define SEEKTRACE_TEST_CAPTURE_H

#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "outbuf.h"

static inline int capture_open(struct st_outbuf *o)
{
    int fd = memfd_create("seektrace-test", 0);
    st_out_init(o, fd);
    return fd;
}

/* Flushes o and returns what was written (malloc'd, NUL-terminated). */
static inline char *capture_close(struct st_outbuf *o)
{
    st_out_flush(o);
    off_t n = lseek(o->fd, 0, SEEK_END);
    char *s = malloc((size_t)n + 1);
    pread(o->fd, s, (size_t)n, 0);
    s[n] = '\0';
    close(o->fd);
    return s;
}

#endif
