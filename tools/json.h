/* json.h — a small, strict JSON reader for seektrace's own reports.
 *
 * RFC 8259, with limits that keep hostile input harmless: nesting at most
 * 64 deep, and every node allocated from one arena freed at once. Integers
 * without fraction or exponent keep their exact 64-bit value. */
#ifndef SEEKTRACE_TOOLS_JSON_H
#define SEEKTRACE_TOOLS_JSON_H

#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval {
    enum jtype type;
    double number;
    int is_u64;         /* a non-negative integer that fits */
    uint64_t u64;
    char *str;          /* J_STRING (NUL-terminated; may hold \u0000 as bytes), the
                         * document's own copy: its reader may rewrite it shorter */
    size_t len;
    size_t n;           /* J_ARRAY, J_OBJECT: members */
    struct jval *items; /* members' values */
    const char **keys;  /* J_OBJECT: members' names */
};

struct jdoc;

/* Parses one JSON value from text[*pos .. len), skipping whitespace before
 * and after it; *pos ends past it. Returns NULL with a message (and the
 * byte offset where parsing failed in *pos) on bad input. */
struct jval *json_parse(struct jdoc **doc, const char *text, size_t len, size_t *pos,
                        char *err, size_t errsize);
void json_free(struct jdoc *doc);

/* The member named key of an object, or NULL. */
const struct jval *json_get(const struct jval *obj, const char *key);

#endif
