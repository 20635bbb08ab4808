/* outbuf.c — see outbuf.h. */
#include "outbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void st_out_init(struct st_outbuf *o, int fd)
{
    o->fd = fd;
    o->failed = 0;
    o->len = 0;
}

static void drain(struct st_outbuf *o)
{
    size_t done = 0;
    while (done < o->len && !o->failed) {
        ssize_t n = write(o->fd, o->buf + done, o->len - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            o->failed = 1;
    }
    o->len = 0;
}

void st_out_write(struct st_outbuf *o, const char *s, size_t n)
{
    while (n > 0) {
        if (o->len == sizeof o->buf)
            drain(o);
        size_t room = sizeof o->buf - o->len;
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void st_out_str(struct st_outbuf *o, const char *s)
{
    st_out_write(o, s, strlen(s));
}

void st_out_printf(struct st_outbuf *o, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    st_out_write(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void st_out_text(struct st_outbuf *o, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            char esc[5];
            snprintf(esc, sizeof esc, "\\x%02x", *p);
            st_out_write(o, esc, 4);
        } else {
            st_out_write(o, (const char *)p, 1);
        }
    }
}

int st_out_flush(struct st_outbuf *o)
{
    drain(o);
    return o->failed ? -1 : 0;
}
