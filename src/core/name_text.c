/* name_text.c — see name_text.h. */
#include "name_text.h"

#include <string.h>

static const char replacement[3] = {'\xEF', '\xBF', '\xBD'}; /* U+FFFD */
static const char hex_digits[] = "0123456789ABCDEF";

/* Unicode §3.9 Table 3-7: a lead byte fixes the length and the range of the
 * second byte (narrower after E0, ED, F0, F4, which would otherwise encode
 * overlong forms, surrogates or code points past U+10FFFF); every later
 * byte is 80-BF. C0, C1 and F5-FF lead nothing. */
size_t st_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t len;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : lo;
        hi = c == 0xED ? 0x9F : hi;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : lo;
        hi = c == 0xF4 ? 0x8F : hi;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

size_t st_name_piece(const char *s, size_t n, char out[ST_NAME_PIECE_MAX], size_t *out_len)
{
    size_t len = st_utf8_len((const unsigned char *)s, n);
    if (len == sizeof replacement && memcmp(s, replacement, len) == 0) {
        memcpy(out, replacement, len);
        memcpy(out + len, replacement, len);
        *out_len = 2 * len;
        return len;
    }
    if (len) {
        memcpy(out, s, len);
        *out_len = len;
        return len;
    }
    unsigned char byte = (unsigned char)s[0];
    memcpy(out, replacement, sizeof replacement);
    out[3] = hex_digits[byte >> 4];
    out[4] = hex_digits[byte & 0xF];
    *out_len = 5;
    return 1;
}

/* The value of an uppercase hex digit, or -1. */
static int hex_value(char c)
{
    const char *at = c ? strchr(hex_digits, c) : NULL;
    return at ? (int)(at - hex_digits) : -1;
}

size_t st_name_decode(char *s, size_t len)
{
    const size_t r = sizeof replacement;
    size_t in = 0, out = 0;
    while (in < len) {
        if (len - in >= 2 * r && memcmp(s + in, replacement, r) == 0 &&
            memcmp(s + in + r, replacement, r) == 0) {
            memmove(s + out, replacement, r);
            out += r;
            in += 2 * r;
            continue;
        }
        /* Only bytes 80-FF are ever escaped: ASCII is always well-formed. */
        int high = len - in >= r + 2 && memcmp(s + in, replacement, r) == 0
                       ? hex_value(s[in + r]) : -1;
        int low = high >= 8 ? hex_value(s[in + r + 1]) : -1;
        if (low >= 0) {
            s[out++] = (char)(high << 4 | low);
            in += r + 2;
            continue;
        }
        s[out++] = s[in++];
    }
    return out;
}
