/* libFuzzer harness for names in JSON (src/core/name_text.c through
 * json_out.c's st_json_write_string): any bytes up to the first NUL (a name
 * is a C string) come out as one JSON string that is well-formed UTF-8 by a
 * check independent of the writer's (tests/utf8_reference.h), holds no raw
 * control character, parses with the command's reader (tools/json.c) and
 * decodes back to exactly those bytes. Decoding arbitrary text never grows
 * it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_out.h"
#include "name_text.h"
#include "utf8_reference.h"

struct text {
    char *s;
    size_t len, cap;
};

static void to_text(void *ctx, const char *s, size_t n)
{
    struct text *t = ctx;
    if (t->len + n > t->cap)
        abort();
    memcpy(t->s + t->len, s, n);
    t->len += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = malloc(size + 1), *copy = malloc(size + 1);
    memcpy(name, data, size);
    name[size] = '\0';
    size_t n = strlen(name);
    /* At most 6 bytes of text per byte (a control byte's \u00XX), and quotes. */
    struct text t = {malloc(6 * n + 2), 0, 6 * n + 2};
    st_json_write_string(name, to_text, &t);
    if (!utf8_reference_valid((const unsigned char *)t.s, t.len))
        abort();
    for (size_t i = 0; i < t.len; i++)
        if ((unsigned char)t.s[i] < 0x20)
            abort();
    struct jdoc *doc = NULL;
    char err[256];
    size_t pos = 0;
    struct jval *v = json_parse(&doc, t.s, t.len, &pos, err, sizeof err);
    if (!v || v->type != J_STRING || pos != t.len)
        abort();
    if (st_name_decode(v->str, v->len) != n || memcmp(v->str, name, n) != 0)
        abort();
    json_free(doc);
    memcpy(copy, data, size);
    if (st_name_decode(copy, size) > size)
        abort();
    free(t.s);
    free(name);
    free(copy);
    return 0;
}
