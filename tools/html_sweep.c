/* html_sweep.c — see html.h: a seektrace.sweep/1 document (sweep --json)
 * read for the what-if curve's measured points. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "json.h"
#include "tool.h"

/* A whole file in memory (at most 64 MiB: a sweep document is a few KiB). */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        tool_bad_input("--sweep %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    while (text) {
        n += fread(text + n, 1, cap - n, f);
        if (n < cap || cap >= (64u << 20))
            break;
        cap *= 2;
        char *t = realloc(text, cap);
        if (!t)
            free(text);
        text = t;
    }
    int bad = ferror(f);
    fclose(f);
    if (!text)
        tool_bad_input("out of memory");
    if (bad || n == cap)
        tool_bad_input("--sweep %s: %s", path, bad ? "cannot be read" : "larger than 64 MiB");
    *len = n;
    return text;
}

static uint64_t u64_of(const struct jval *o, const char *key, const char *path, size_t i)
{
    const struct jval *v = json_get(o, key);
    if (!v || v->type != J_NUMBER || !v->is_u64)
        tool_bad_input("--sweep %s: sizes[%zu].%s is not a count", path, i, key);
    return v->u64;
}

void html_sweep_read(const char *path, struct html_sweep *s)
{
    memset(s, 0, sizeof *s);
    size_t len, pos = 0;
    char *text = read_all(path, &len);
    struct jdoc *doc = NULL;
    char jerr[200];
    const struct jval *v = json_parse(&doc, text, len, &pos, jerr, sizeof jerr);
    if (!v)
        tool_bad_input("--sweep %s: not JSON at byte %zu: %s", path, pos, jerr);
    const struct jval *schema = json_get(v, "schema"), *sizes = json_get(v, "sizes");
    if (!schema || schema->type != J_STRING || strcmp(schema->str, "seektrace.sweep/1") != 0)
        tool_bad_input("--sweep %s: not a seektrace.sweep/1 document (seektrace sweep --json)",
                       path);
    if (!sizes || sizes->type != J_ARRAY || !sizes->n || sizes->n > TOOL_MAX_SIZES)
        tool_bad_input("--sweep %s: sizes is not a list of 1 to %d sizes", path, TOOL_MAX_SIZES);
    for (size_t i = 0; i < sizes->n; i++) {
        const struct jval *o = &sizes->items[i];
        if (o->type != J_OBJECT)
            tool_bad_input("--sweep %s: sizes[%zu] is not an object", path, i);
        s->size[i] = u64_of(o, "size", path, i);
        s->wall_ns[i] = u64_of(o, "wall_ns", path, i);
        s->read_syscalls[i] = u64_of(o, "read_syscalls", path, i);
        s->lseek_syscalls[i] = u64_of(o, "lseek_syscalls", path, i);
        s->kernel_read_bytes[i] = u64_of(o, "kernel_read_bytes", path, i);
        if (!s->size[i] || (i && s->size[i] <= s->size[i - 1]))
            tool_bad_input("--sweep %s: sizes are not increasing at sizes[%zu]", path, i);
    }
    s->n = sizes->n;
    json_free(doc);
    free(text);
}
