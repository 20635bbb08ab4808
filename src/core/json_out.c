/* json_out.c — see json_out.h. */
#include "json_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void st_json_init(struct st_json *j, struct st_outbuf *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

/* Before any value: a comma if a sibling came before, unless we follow a key. */
static void value_prefix(struct st_json *j)
{
    if (j->need_comma[j->depth] == 1)
        st_out_write(j->out, ",", 1);
    j->need_comma[j->depth] = 1;
}

static void begin(struct st_json *j, char c)
{
    value_prefix(j);
    st_out_write(j->out, &c, 1);
    if (j->depth + 1 < (int)sizeof j->need_comma)
        j->depth++;
    j->need_comma[j->depth] = 0;
}

static void end(struct st_json *j, char c)
{
    st_out_write(j->out, &c, 1);
    if (j->depth > 0)
        j->depth--;
}

void st_json_begin_object(struct st_json *j) { begin(j, '{'); }
void st_json_end_object(struct st_json *j) { end(j, '}'); }
void st_json_begin_array(struct st_json *j) { begin(j, '['); }
void st_json_end_array(struct st_json *j) { end(j, ']'); }

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3
          : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && s[0] < 0xC2))
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

static void write_escaped(struct st_outbuf *o, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    char esc[8];
    st_out_write(o, "\"", 1);
    while (*s) {
        int n = utf8_len(s);
        if (n > 1) {
            st_out_write(o, (const char *)s, (size_t)n);
            s += n;
            continue;
        }
        unsigned char c = *s++;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            st_out_write(o, esc, 2);
        } else if (c == '\n') {
            st_out_write(o, "\\n", 2);
        } else if (c == '\t') {
            st_out_write(o, "\\t", 2);
        } else if (c < 0x20 || c == 0x7F) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            st_out_write(o, esc, 6);
        } else if (n == 0) {
            /* A byte that is not UTF-8 (file names are bytes): U+DC00 plus
             * the byte, the convention of Python's surrogateescape, so the
             * exact name comes back (os.fsencode) and no valid name reads
             * the same. */
            snprintf(esc, sizeof esc, "\\udc%02x", c);
            st_out_write(o, esc, 6);
        } else {
            st_out_write(o, (const char *)&c, 1);
        }
    }
    st_out_write(o, "\"", 1);
}

void st_json_key(struct st_json *j, const char *key)
{
    value_prefix(j);
    write_escaped(j->out, key);
    st_out_write(j->out, ":", 1);
    j->need_comma[j->depth] = 2; /* the value that follows needs no comma */
}

void st_json_string(struct st_json *j, const char *s)
{
    value_prefix(j);
    write_escaped(j->out, s ? s : "");
}

void st_json_u64(struct st_json *j, uint64_t v)
{
    value_prefix(j);
    st_out_printf(j->out, "%llu", (unsigned long long)v);
}

void st_json_i64(struct st_json *j, int64_t v)
{
    value_prefix(j);
    st_out_printf(j->out, "%lld", (long long)v);
}

void st_json_double(struct st_json *j, double v)
{
    value_prefix(j);
    if (!isfinite(v))
        st_out_str(j->out, "null");
    else
        st_out_printf(j->out, "%.6g", v);
}

void st_json_bool(struct st_json *j, int v)
{
    value_prefix(j);
    st_out_str(j->out, v ? "true" : "false");
}

void st_json_null(struct st_json *j)
{
    value_prefix(j);
    st_out_str(j->out, "null");
}
