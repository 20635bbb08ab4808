/* labels.c — see labels.h. */
#include "labels.h"

#include <string.h>

static int key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

const char *st_label_check(const char *kv, size_t len)
{
    const char *eq = memchr(kv, '=', len);
    if (!eq)
        return "a label is KEY=VALUE";
    size_t klen = (size_t)(eq - kv), vlen = len - klen - 1;
    if (klen == 0)
        return "the key is empty";
    if (klen > ST_LABEL_KEY_MAX)
        return "the key is longer than 64 bytes";
    if (kv[0] == '.' || kv[0] == '-')
        return "the key starts with '.' or '-'";
    for (size_t i = 0; i < klen; i++)
        if (!key_char(kv[i]))
            return "the key has a character other than A-Z a-z 0-9 _ . -";
    if (vlen > ST_LABEL_VALUE_MAX)
        return "the value is longer than 256 bytes";
    for (size_t i = 0; i < vlen; i++) {
        unsigned char c = (unsigned char)eq[1 + i];
        if (c == ',')
            return "the value has a ','";
        if (c < 0x20 || c == 0x7f)
            return "the value has a control character";
    }
    return NULL;
}

/* Is key (klen bytes) in the encoded list? */
static int has_key(const char *list, size_t len, const char *key, size_t klen)
{
    for (size_t at = 0; at < len;) {
        size_t n = strlen(list + at);
        if (n > klen && memcmp(list + at, key, klen) == 0 && list[at + klen] == '=')
            return 1;
        at += n + 1;
    }
    return 0;
}

static size_t count(const char *list, size_t len)
{
    size_t n = 0;
    for (size_t at = 0; at < len; at += strlen(list + at) + 1)
        n++;
    return n;
}

const char *st_labels_add(const char *spec, char *out, size_t size, size_t *len,
                          size_t *bad_at)
{
    size_t n = *len, labels = count(out, *len);
    const char *p = spec;
    *bad_at = 0;
    if (!*spec)
        return NULL;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        *bad_at = (size_t)(p - spec);
        const char *why = st_label_check(p, l);
        if (why)
            return why;
        size_t klen = (size_t)((const char *)memchr(p, '=', l) - p);
        if (has_key(out, n, p, klen))
            return "the key is given twice";
        if (++labels > ST_LABELS_MAX)
            return "more than 32 labels";
        if (n + l + 1 > size)
            return "the labels are too long";
        memcpy(out + n, p, l);
        n += l;
        out[n++] = '\0';
        if (!end)
            break;
        p = end + 1;
    }
    *len = n;
    return NULL;
}

void st_labels_merge(char *out, size_t size, size_t *len, char *const *labels, int n)
{
    for (int i = 0; i < n; i++) {
        size_t bad_at;
        if (!has_key(out, *len, labels[i], strcspn(labels[i], "=")))
            st_labels_add(labels[i], out, size, len, &bad_at);
    }
}
