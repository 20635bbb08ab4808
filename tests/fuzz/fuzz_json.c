/* libFuzzer harness for the JSON reader the command uses on at-exit
 * reports (tools/json.c): any input is parsed or refused, never a crash,
 * a leak or a hang (nesting is bounded). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static size_t walk(const struct jval *v, int depth)
{
    size_t n = 1;
    if (v->type == J_STRING)
        n += v->len + strlen(v->str);
    for (size_t i = 0; (v->type == J_ARRAY || v->type == J_OBJECT) && i < v->n; i++) {
        n += walk(&v->items[i], depth + 1);
        if (v->type == J_OBJECT)
            n += strlen(v->keys[i]) + (json_get(v, v->keys[i]) != NULL);
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    while (pos < size) {
        struct jdoc *doc = NULL;
        char err[256];
        size_t before = pos;
        const struct jval *v = json_parse(&doc, (const char *)data, size, &pos, err, sizeof err);
        if (v)
            walk(v, 0);
        json_free(doc);
        if (!v || pos <= before)
            break;
    }
    return 0;
}
