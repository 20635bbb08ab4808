/* json.c — see json.h. */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct blk {
    struct blk *next;
    size_t used, size;
    max_align_t data[];
};

struct jdoc {
    struct blk *head;
};

struct parser {
    struct jdoc *doc;
    const char *s;
    size_t len, pos;
    const char *why;
};

static void *alloc(struct parser *p, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct blk *b = p->doc->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > 65536 ? n : 65536;
        struct blk *nb = malloc(sizeof *nb + size);
        if (!nb) {
            p->why = "out of memory";
            return NULL;
        }
        nb->size = size;
        nb->used = 0;
        nb->next = b;
        p->doc->head = nb;
        b = nb;
    }
    void *r = (char *)b->data + b->used;
    b->used += n;
    return r;
}

void json_free(struct jdoc *doc)
{
    if (!doc)
        return;
    for (struct blk *b = doc->head; b;) {
        struct blk *next = b->next;
        free(b);
        b = next;
    }
    free(doc);
}

static void ws(struct parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int parse_value(struct parser *p, struct jval *v, int depth);

static int hex4(struct parser *p, unsigned *out)
{
    if (p->len - p->pos < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static int parse_string(struct parser *p, char **out, size_t *outlen)
{
    /* The decoded string is never longer than the encoded one. */
    size_t start = ++p->pos, max = 0;
    while (start + max < p->len && p->s[start + max] != '"')
        max += p->s[start + max] == '\\' ? 2 : 1;
    char *d = alloc(p, max + 1);
    if (!d)
        return -1;
    size_t n = 0;
    for (;;) {
        if (p->pos >= p->len) {
            p->why = "a string is not closed";
            return -1;
        }
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c == '"')
            break;
        if (c < 0x20) {
            p->why = "a control character inside a string";
            return -1;
        }
        if (c != '\\') {
            d[n++] = (char)c;
            continue;
        }
        if (p->pos >= p->len) {
            p->why = "a string is not closed";
            return -1;
        }
        c = (unsigned char)p->s[p->pos++];
        switch (c) {
        case '"': case '\\': case '/': d[n++] = (char)c; break;
        case 'b': d[n++] = '\b'; break;
        case 'f': d[n++] = '\f'; break;
        case 'n': d[n++] = '\n'; break;
        case 'r': d[n++] = '\r'; break;
        case 't': d[n++] = '\t'; break;
        case 'u': {
            unsigned u;
            if (hex4(p, &u) != 0) {
                p->why = "a bad \\u escape";
                return -1;
            }
            if (u >= 0xD800 && u < 0xDC00 && p->len - p->pos >= 6 && p->s[p->pos] == '\\' &&
                p->s[p->pos + 1] == 'u') {
                unsigned lo;
                size_t save = p->pos;
                p->pos += 2;
                if (hex4(p, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000)
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                else
                    p->pos = save;
            }
            /* UTF-8; at most 4 bytes for 6 input characters. A lone
             * U+DC80..U+DCFF is how seektrace.report/1 wrote a byte that
             * was not UTF-8: the byte itself. */
            if (u >= 0xDC80 && u <= 0xDCFF) {
                d[n++] = (char)(u & 0xFF);
            } else if (u < 0x80) {
                d[n++] = (char)u;
            } else if (u < 0x800) {
                d[n++] = (char)(0xC0 | u >> 6);
                d[n++] = (char)(0x80 | (u & 0x3F));
            } else if (u < 0x10000) {
                d[n++] = (char)(0xE0 | u >> 12);
                d[n++] = (char)(0x80 | ((u >> 6) & 0x3F));
                d[n++] = (char)(0x80 | (u & 0x3F));
            } else {
                d[n++] = (char)(0xF0 | u >> 18);
                d[n++] = (char)(0x80 | ((u >> 12) & 0x3F));
                d[n++] = (char)(0x80 | ((u >> 6) & 0x3F));
                d[n++] = (char)(0x80 | (u & 0x3F));
            }
            break;
        }
        default:
            p->why = "a bad escape in a string";
            return -1;
        }
    }
    d[n] = '\0';
    *out = d;
    *outlen = n;
    return 0;
}

static int parse_number(struct parser *p, struct jval *v)
{
    size_t start = p->pos;
    if (p->pos < p->len && p->s[p->pos] == '-')
        p->pos++;
    size_t digits = p->pos;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
        p->pos++;
    if (p->pos == digits || (p->s[digits] == '0' && p->pos - digits > 1)) {
        p->why = "a bad number";
        return -1;
    }
    int integer = 1;
    if (p->pos < p->len && p->s[p->pos] == '.') {
        integer = 0;
        size_t f = ++p->pos;
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
        if (p->pos == f) {
            p->why = "a bad number";
            return -1;
        }
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        integer = 0;
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        size_t e = p->pos;
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
        if (p->pos == e) {
            p->why = "a bad number";
            return -1;
        }
    }
    char buf[64];
    size_t n = p->pos - start;
    if (n >= sizeof buf) {
        /* Long digit strings: only their double value is kept. */
        integer = 0;
        n = sizeof buf - 1;
    }
    memcpy(buf, p->s + start, n);
    buf[n] = '\0';
    v->type = J_NUMBER;
    v->number = strtod(buf, NULL);
    if (integer && buf[0] != '-') {
        uint64_t u = 0;
        int ok = 1;
        for (const char *c = buf; *c; c++) {
            if (u > (UINT64_MAX - (uint64_t)(*c - '0')) / 10) {
                ok = 0;
                break;
            }
            u = u * 10 + (uint64_t)(*c - '0');
        }
        v->is_u64 = ok;
        v->u64 = u;
    }
    return 0;
}

static int literal(struct parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) {
        p->why = "an unexpected character";
        return -1;
    }
    p->pos += n;
    return 0;
}

/* Members are parsed into a growing list, then copied into place. */
struct member {
    char *key;
    struct jval val;
    struct member *next;
};

/* Recursive descent, no deeper than MAX_DEPTH (checked below). */
static int parse_container(struct parser *p, struct jval *v, int depth, int object) // NOLINT(misc-no-recursion)
{
    if (depth >= MAX_DEPTH) {
        p->why = "nested more than 64 deep";
        return -1;
    }
    p->pos++;
    v->type = object ? J_OBJECT : J_ARRAY;
    struct member *head = NULL, **tail = &head;
    size_t n = 0;
    ws(p);
    if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
        p->pos++;
        return 0;
    }
    for (;;) {
        struct member *m = alloc(p, sizeof *m);
        if (!m)
            return -1;
        memset(m, 0, sizeof *m);
        ws(p);
        if (object) {
            size_t klen;
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                p->why = "an object member without a name";
                return -1;
            }
            if (parse_string(p, &m->key, &klen) != 0)
                return -1;
            ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                p->why = "a ':' is missing";
                return -1;
            }
            p->pos++;
        }
        if (parse_value(p, &m->val, depth + 1) != 0)
            return -1;
        *tail = m;
        tail = &m->next;
        n++;
        ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
            p->pos++;
            break;
        }
        p->why = object ? "a ',' or '}' is missing" : "a ',' or ']' is missing";
        return -1;
    }
    v->n = n;
    v->items = alloc(p, n * sizeof *v->items);
    if (object)
        v->keys = alloc(p, n * sizeof *v->keys);
    if (!v->items || (object && !v->keys))
        return -1;
    size_t i = 0;
    for (struct member *m = head; m; m = m->next, i++) {
        v->items[i] = m->val;
        if (object)
            v->keys[i] = m->key;
    }
    return 0;
}

static int parse_value(struct parser *p, struct jval *v, int depth) // NOLINT(misc-no-recursion)
{
    memset(v, 0, sizeof *v);
    ws(p);
    if (p->pos >= p->len) {
        p->why = "the input ends where a value should be";
        return -1;
    }
    switch (p->s[p->pos]) {
    case '{': return parse_container(p, v, depth, 1);
    case '[': return parse_container(p, v, depth, 0);
    case '"':
        v->type = J_STRING;
        return parse_string(p, &v->str, &v->len);
    case 't': v->type = J_TRUE; return literal(p, "true");
    case 'f': v->type = J_FALSE; return literal(p, "false");
    case 'n': v->type = J_NULL; return literal(p, "null");
    default:
        if (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
            return parse_number(p, v);
        p->why = "an unexpected character";
        return -1;
    }
}

struct jval *json_parse(struct jdoc **docp, const char *text, size_t len, size_t *pos,
                        char *err, size_t errsize)
{
    if (!*docp && !(*docp = calloc(1, sizeof **docp))) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    struct parser p = {*docp, text, len, *pos, NULL};
    struct jval *v = alloc(&p, sizeof *v);
    if (!v || parse_value(&p, v, 0) != 0) {
        snprintf(err, errsize, "%s", p.why ? p.why : "bad JSON");
        *pos = p.pos;
        return NULL;
    }
    ws(&p);
    *pos = p.pos;
    return v;
}

const struct jval *json_get(const struct jval *obj, const char *key)
{
    if (!obj || obj->type != J_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}
