/* json_out.c — see json_out.h. */
#include "json_out.h"

#include <math.h>
#include <string.h>

#include "name_text.h"

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

/* The JSON text of the piece of a name in text (len bytes): ASCII that
 * RFC 8259 requires escaped (and DEL) as an escape in esc, the rest as is. */
static size_t json_quote(const char *text, size_t len, char esc[6], const char **out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c = (unsigned char)text[0];
    *out = esc;
    esc[0] = '\\';
    if (len == 1 && (c == '"' || c == '\\' || c == '\n' || c == '\t')) {
        esc[1] = (char)(c == '\n' ? 'n' : c == '\t' ? 't' : c);
        return 2;
    }
    if (len == 1 && (c < 0x20 || c == 0x7F)) {
        esc[1] = 'u';
        esc[2] = esc[3] = '0';
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 0xF];
        return 6;
    }
    *out = text;
    return len;
}

/* Text gathered so the sink is called once per run, not per character. */
struct run {
    st_json_sink *sink;
    void *ctx;
    size_t used;
    char buf[256];
};

static void run_add(struct run *r, const char *s, size_t n)
{
    if (r->used + n > sizeof r->buf) {
        r->sink(r->ctx, r->buf, r->used);
        r->used = 0;
    }
    if (n > sizeof r->buf) {
        r->sink(r->ctx, s, n);
        return;
    }
    memcpy(r->buf + r->used, s, n);
    r->used += n;
}

/* ASCII that JSON takes as it is. */
static int plain(char c)
{
    return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

void st_json_write_string(const char *s, st_json_sink *sink, void *ctx)
{
    struct run r = {.sink = sink, .ctx = ctx};
    size_t left = strlen(s);
    run_add(&r, "\"", 1);
    while (left) {
        size_t n = 0;
        while (n < left && plain(s[n]))
            n++;
        if (!n) {
            char piece[ST_NAME_PIECE_MAX], esc[6];
            size_t len;
            n = st_name_piece(s, left, piece, &len);
            const char *text;
            len = json_quote(piece, len, esc, &text);
            run_add(&r, text, len);
        } else {
            run_add(&r, s, n);
        }
        s += n;
        left -= n;
    }
    run_add(&r, "\"", 1);
    sink(ctx, r.buf, r.used);
}

static void outbuf_sink(void *out, const char *s, size_t n)
{
    st_out_write(out, s, n);
}

static void write_escaped(struct st_outbuf *o, const char *s)
{
    st_json_write_string(s, outbuf_sink, o);
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
