/* units.h — numbers as people read them. */
#ifndef SEEKTRACE_UNITS_H
#define SEEKTRACE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "16 B", "4.0 KiB", "25.0 GiB": three significant digits at most. */
const char *st_fmt_bytes(char *buf, size_t size, uint64_t bytes);

/* "200,001". */
const char *st_fmt_count(char *buf, size_t size, uint64_t n);

/* "256x", "8,192x", "1.6x", "-" when zero. */
const char *st_fmt_ratio(char *buf, size_t size, double ratio);

/* Parses "4096", "4k", "128KiB", "1M", "2g" (powers of 1024). Returns 0 and
 * sets *out, or -1 if s is not such a size. */
int st_parse_size(const char *s, uint64_t *out);

#endif
