/* utf8_reference.h — well-formed UTF-8 worked out from the code points, not
 * from Unicode's Table 3-7 as src/core/name_text.c does, for the tests to
 * hold that table against (tests/unit/test_name_text.c, the fuzz harness). */
#ifndef SEEKTRACE_UTF8_REFERENCE_H
#define SEEKTRACE_UTF8_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* The length of the well-formed sequence at s (n > 0 bytes available), or
 * 0: RFC 3629's bit patterns, then the shortest form of a code point that
 * is not a surrogate and at most U+10FFFF. */
static inline size_t utf8_reference_len(const unsigned char *s, size_t n)
{
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xC0 && s[0] < 0xE0 ? 2 : s[0] >= 0xE0 && s[0] < 0xF0 ? 3
               : s[0] >= 0xF0 && s[0] < 0xF8 ? 4 : 0;
    if (!len || n < len)
        return 0;
    uint32_t cp = s[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < least[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return len;
}

/* Whether all n bytes of s are well-formed UTF-8. */
static inline int utf8_reference_valid(const unsigned char *s, size_t n)
{
    for (size_t k; n; s += k, n -= k)
        if (!(k = utf8_reference_len(s, n)))
            return 0;
    return 1;
}

#endif
