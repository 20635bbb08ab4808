/* trace_builder.h — hand-made trace files for the reader's unit tests.
 *
 * Builds a trace in memory exactly as trace_format.h describes it, byte by
 * byte (not with the library's writer: the tests check the reader against
 * the documented format, not against another implementation of it). */
#ifndef SEEKTRACE_TRACE_BUILDER_H
#define SEEKTRACE_TRACE_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counts.h"
#include "seektrace/trace_format.h"
#include "trace_codec.h"

#define TB_HEADER 4096u
#define TB_CHUNK 4096u

struct tb {
    uint8_t *buf;
    size_t len;
    size_t chunk_at;  /* current chunk's offset, 0 when none */
    uint8_t *p;       /* write position in the current chunk */
    uint32_t nchunks;
};

static inline struct st_trace_header *tb_hdr(struct tb *t)
{
    return (struct st_trace_header *)t->buf;
}

static inline void tb_grow(struct tb *t, size_t len)
{
    if (len <= t->len)
        return;
    size_t cp = t->p ? (size_t)(t->p - t->buf) : 0;
    t->buf = realloc(t->buf, len);
    memset(t->buf + t->len, 0, len - t->len);
    t->len = len;
    if (cp)
        t->p = t->buf + cp;
}

/* A header with the call table, argv {"prog", "arg"} and capture exact. */
static inline void tb_init(struct tb *t, long pid)
{
    memset(t, 0, sizeof *t);
    tb_grow(t, TB_HEADER);
    struct st_trace_header *h = tb_hdr(t);
    memcpy(h->magic, ST_TRACE_MAGIC, ST_TRACE_MAGIC_LEN);
    h->endian = ST_TRACE_ENDIAN;
    h->version_major = ST_TRACE_VERSION_MAJOR;
    h->version_minor = ST_TRACE_VERSION_MINOR;
    h->header_size = TB_HEADER;
    h->chunk_size = TB_CHUNK;
    h->clock = ST_TRACE_CLOCK_MONOTONIC;
    h->pid = pid;
    h->ppid = 1;
    h->start_ns = 1000;
    h->cap_bytes = 1 << 20;
    h->state = ST_TRACE_STATE_RECORDING;
    uint8_t *p = t->buf + ST_TRACE_FIXED_HEADER;
    char names[1024];
    size_t n = 0;
    for (int k = 0; k < ST_CALL_COUNT; k++) {
        size_t l = strlen(st_call_name((enum st_call)k)) + 1;
        memcpy(names + n, st_call_name((enum st_call)k), l);
        n += l;
    }
    p = st_put_u(p, ST_TRACE_INFO_CALLS);
    p = st_put_u(p, n);
    memcpy(p, names, n);
    p += n;
    static const char argv[] = "prog\0arg";
    p = st_put_u(p, ST_TRACE_INFO_ARGV);
    p = st_put_u(p, sizeof argv);
    memcpy(p, argv, sizeof argv);
    p += sizeof argv;
    p = st_put_u(p, ST_TRACE_INFO_CAPTURE);
    p = st_put_u(p, 5);
    memcpy(p, "exact", 5);
    p += 5;
    h->info_size = (uint32_t)(p - (t->buf + ST_TRACE_FIXED_HEADER));
}

static inline void tb_chunk_end(struct tb *t)
{
    if (!t->chunk_at)
        return;
    struct st_trace_chunk *c = (struct st_trace_chunk *)(t->buf + t->chunk_at);
    c->used = (uint32_t)(t->p - (t->buf + t->chunk_at + ST_TRACE_CHUNK_HEADER));
    t->chunk_at = 0;
    t->p = NULL;
}

static inline void tb_chunk(struct tb *t, uint32_t tid, uint64_t base_ns)
{
    tb_chunk_end(t);
    size_t at = TB_HEADER + (size_t)t->nchunks * TB_CHUNK;
    tb_grow(t, at + TB_CHUNK);
    struct st_trace_chunk *c = (struct st_trace_chunk *)(t->buf + at);
    c->magic = ST_TRACE_CHUNK_MAGIC;
    c->tid = tid;
    c->index = t->nchunks;
    c->base_ns = base_ns;
    t->chunk_at = at;
    t->p = t->buf + at + ST_TRACE_CHUNK_HEADER;
    t->nchunks++;
    tb_hdr(t)->chunks = t->nchunks;
}

static inline void tb_byte(struct tb *t, unsigned b)
{
    *t->p++ = (uint8_t)b;
}

static inline void tb_u(struct tb *t, uint64_t v)
{
    t->p = st_put_u(t->p, v);
}

static inline void tb_s(struct tb *t, int64_t v)
{
    t->p = st_put_s(t->p, v);
}

static inline void tb_bytes(struct tb *t, const void *d, size_t n)
{
    memcpy(t->p, d, n);
    t->p += n;
}

static inline void tb_file(struct tb *t, uint32_t id, const char *path)
{
    tb_byte(t, ST_EV_FILE_DEF);
    tb_u(t, id);
    tb_u(t, strlen(path));
    tb_bytes(t, path, strlen(path));
}

static inline void tb_stream(struct tb *t, uint32_t id, uint32_t file, int fd, uint64_t ordinal,
                             uint64_t bufsize)
{
    tb_byte(t, ST_EV_STREAM_DEF);
    tb_u(t, id);
    tb_u(t, file);
    tb_s(t, fd);
    tb_u(t, ordinal);
    tb_u(t, bufsize);
    tb_u(t, 0);
    tb_byte(t, ST_TRACE_BUF_FULL);
    tb_u(t, 0); /* no caveat */
}

static inline void tb_cell(struct tb *t, uint32_t id, uint32_t owner, uint32_t site)
{
    tb_byte(t, ST_EV_CELL_DEF);
    tb_u(t, id);
    tb_u(t, owner);
    tb_u(t, site);
}

static inline void tb_site(struct tb *t, uint32_t id, uint64_t pc)
{
    tb_byte(t, ST_EV_SITE_DEF);
    tb_u(t, id);
    tb_u(t, 1);
    tb_u(t, pc);
}

static inline void tb_target(struct tb *t, uint32_t cell)
{
    tb_byte(t, ST_EV_TARGET);
    tb_u(t, cell);
}

static inline void tb_call(struct tb *t, uint64_t dt, enum st_call call, int counted)
{
    tb_byte(t, ST_EV_CALL | (counted ? ST_EV_F1 : 0));
    tb_u(t, dt);
    tb_byte(t, call);
}

static inline void tb_end(struct tb *t, uint64_t dt)
{
    tb_byte(t, ST_EV_END);
    tb_u(t, dt);
}

/* A read with every field given (no "same as before" flags). */
static inline void tb_read(struct tb *t, enum st_call call, uint64_t dt, uint64_t dur,
                           int64_t offset, int64_t result, int reread_all)
{
    tb_byte(t, reread_all ? ST_EV_READ_REREAD : ST_EV_READ);
    tb_byte(t, call);
    tb_u(t, dt);
    tb_u(t, dur);
    tb_s(t, offset);
    tb_s(t, result);
}

static inline void tb_deliver(struct tb *t, uint64_t req, uint64_t del)
{
    tb_byte(t, ST_EV_DELIVER);
    tb_u(t, req);
    tb_u(t, del);
}

/* Marks the trace finished with a footer holding `payload` (the records),
 * CRC and all. */
static inline void tb_footer(struct tb *t, const uint8_t *payload, size_t n)
{
    tb_chunk_end(t);
    size_t at = TB_HEADER + (size_t)t->nchunks * TB_CHUNK;
    size_t chunks = (ST_TRACE_FOOTER_FRAME + n + TB_CHUNK - 1) / TB_CHUNK;
    tb_grow(t, at + chunks * TB_CHUNK);
    memcpy(t->buf + at, ST_TRACE_FOOTER_MAGIC, 8);
    uint32_t len = (uint32_t)n, crc = st_crc32(0, payload, n);
    memcpy(t->buf + at + 8, &len, 4);
    memcpy(t->buf + at + 12, &crc, 4);
    memcpy(t->buf + at + ST_TRACE_FOOTER_FRAME, payload, n);
    t->nchunks += (uint32_t)chunks;
    struct st_trace_header *h = tb_hdr(t);
    h->chunks = t->nchunks;
    h->footer_offset = at;
    h->footer_size = ST_TRACE_FOOTER_FRAME + n;
    h->state = ST_TRACE_STATE_FINISHED;
}

/* Writes the trace to a new temporary file; returns its path (static). */
static inline const char *tb_write(struct tb *t)
{
    tb_chunk_end(t);
    static char path[64];
    snprintf(path, sizeof path, "/tmp/st_tb_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, t->buf, t->len) != (ssize_t)t->len)
        abort();
    close(fd);
    return path;
}

static inline void tb_free(struct tb *t)
{
    free(t->buf);
    memset(t, 0, sizeof *t);
}

#endif
