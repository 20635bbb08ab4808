/* units.c — see units.h. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

const char *st_fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, v < 10.0 ? "%.2f %s" : v < 100.0 ? "%.1f %s" : "%.0f %s",
             v, unit[u]);
    return buf;
}

const char *st_fmt_count(char *buf, size_t size, uint64_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *st_fmt_ratio(char *buf, size_t size, double ratio)
{
    if (ratio <= 0.0) {
        snprintf(buf, size, "-");
    } else if (ratio < 10.0) {
        snprintf(buf, size, "%.2fx", ratio);
    } else if (ratio < 1000.0) {
        snprintf(buf, size, "%.0fx", ratio);
    } else {
        char n[32];
        snprintf(buf, size, "%sx", st_fmt_count(n, sizeof n, (uint64_t)(ratio + 0.5)));
    }
    return buf;
}

int st_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    default: return -1;
    }
    if (*end) {
        end++;
        if (strcasecmp(end, "") != 0 && strcasecmp(end, "b") != 0 &&
            strcasecmp(end, "ib") != 0)
            return -1;
    }
    if (shift && v > (~0ULL >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}
