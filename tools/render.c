/* render.c — see tool.h: reports rendered by the core's renderers, and
 * the command's own output on stdout. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "json_out.h"
#include "outbuf.h"
#include "tool.h"

char *render_report(const struct st_report *r, int json, const struct st_text_opts *t,
                    size_t *len)
{
    int fd = memfd_create("seektrace-report", MFD_CLOEXEC);
    if (fd < 0)
        tool_bad_input("cannot render a report: %s", strerror(errno));
    static struct st_outbuf out;
    st_out_init(&out, fd);
    if (json)
        st_report_write_json(r, &out);
    else if (t)
        st_report_write_text_opts(r, t, &out);
    else
        st_report_write_text(r, &out);
    if (st_out_flush(&out) != 0)
        tool_bad_input("cannot render a report: %s", strerror(errno));
    off_t size = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)size + 1);
    if (!buf || pread(fd, buf, (size_t)size, 0) != size)
        tool_bad_input("cannot render a report");
    buf[size] = '\0';
    close(fd);
    *len = (size_t)size;
    return buf;
}

void out_report_json(const struct st_report *r, int open)
{
    static struct st_outbuf out;
    if (fflush(stdout) != 0)
        tool_bad_input("cannot write the output: %s", strerror(errno));
    st_out_init(&out, STDOUT_FILENO);
    if (open)
        st_report_write_json_open(r, &out);
    else
        st_report_write_json(r, &out);
    if (st_out_flush(&out) != 0)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

void argv_line(const struct st_report *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->argc && n + 1 < size; i++) {
        int k = snprintf(buf + n, size - n, "%s%s", i ? " " : "", r->argv[i]);
        if (k < 0)
            break;
        n += (size_t)k;
    }
    if (n >= size && size > 4)
        memcpy(buf + size - 4, "...", 4);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = '?';
}

void out_write(const char *buf, size_t len)
{
    if (fwrite(buf, 1, len, stdout) != len)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

void out_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vprintf(fmt, ap);
    va_end(ap);
    if (rc < 0)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

static void file_sink(void *f, const char *s, size_t n)
{
    fwrite(s, 1, n, f);
}

void json_str(FILE *f, const char *s)
{
    st_json_write_string(s ? s : "", file_sink, f);
}

void list_add_once(char *list, size_t size, const char *item, const char *sep)
{
    size_t len = strlen(item), seplen = strlen(sep), have = strlen(list);
    for (const char *p = list; *p;) {
        const char *end = strstr(p, sep);
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, item, len) == 0)
            return;
        p += n + (end ? seplen : 0);
    }
    if (have + (have ? seplen : 0) + len < size)
        snprintf(list + have, size - have, "%s%s", have ? sep : "", item);
}
