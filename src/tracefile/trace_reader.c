/* trace_reader.c — see trace_reader.h; the format is in
 * include/seektrace/trace_format.h. */
#define _GNU_SOURCE 1
#include "trace_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "labels.h"
#include "trace_mem.h"
#include "trace_reader_internal.h"
#include "trace_codec.h"
#include "trace_decode.h"

#define BLOCK_BYTES (1u << 20)
#define MAX_CHUNK_SIZE (16u << 20)
#define MAX_HEADER_SIZE (16u << 20)
#define MAX_FOOTER (1ull << 30)

struct st_trace_reader {
    char *path;
    int fd;
    struct st_trace_info info;
    uint64_t nslots;               /* chunk slots to visit */
    uint64_t skip_from, skip_to;   /* the footer's chunk slots */
    uint8_t *block;
    uint64_t block_first, block_n; /* chunk slots held in block */
    uint64_t slot;                 /* next slot to decode */
    /* the chunk being decoded */
    int in_chunk;
    const uint8_t *base, *p, *end;
    uint64_t chunk_index;
    uint32_t tid;
    struct st_trace_decoder dec;
    /* statistics */
    uint64_t bytes, chunks_read;
};

void st_trace_fail(char *err, const char *path, const char *fmt, ...)
{
    int n = snprintf(err, ST_TRACE_ERROR_MAX, "%s: ", path);
    if (n < 0 || n >= ST_TRACE_ERROR_MAX)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, ST_TRACE_ERROR_MAX - (size_t)n, fmt, ap);
    va_end(ap);
    /* One line, whatever a path held. */
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

const char *st_trace_status(const struct st_trace_info *info)
{
    if (info->truncated || info->lost)
        return "truncated";
    return info->finished ? "complete" : "partial";
}

const char *st_trace_op_name(unsigned op)
{
    static const char *const names[] = {
        [ST_OP_OPEN] = "open",         [ST_OP_SIZE] = "size",         [ST_OP_FREAD] = "fread",
        [ST_OP_GETC_RUN] = "getc_run", [ST_OP_GETC_EOF] = "getc_eof", [ST_OP_FGETS] = "fgets",
        [ST_OP_GETDELIM] = "getdelim", [ST_OP_UNGETC] = "ungetc",     [ST_OP_FSEEK] = "fseek",
        [ST_OP_FTELL] = "ftell",       [ST_OP_REWIND] = "rewind",     [ST_OP_FFLUSH] = "fflush",
        [ST_OP_CLEARERR] = "clearerr", [ST_OP_EXIT] = "exit",         [ST_OP_OTHER] = "other",
    };
    return op < sizeof names / sizeof names[0] && names[op] ? names[op] : "?";
}

void st_trace_op_fields(const struct st_trace_event *ev, uint64_t *n, int64_t *x)
{
    *n = ev->op == ST_OP_FSEEK ? ev->whence : ev->n;
    *x = ev->op == ST_OP_FGETS ? ev->result : ev->offset;
}

/* Reads exactly n bytes at off; -1 with errno, or -2 when the file ends. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0)
            return -2;
        done += (size_t)k;
    }
    return 0;
}

static char *dup_bytes(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* Splits NUL-terminated strings; NULL on a malformed list or no memory. */
static char **split_nul(const uint8_t *p, size_t n, int *count)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] == '\0';
    if (n && p[n - 1] != '\0')
        k++; /* a last argument cut short: kept */
    if (k > 65536)
        return NULL;
    char **v = calloc(k + 1, sizeof *v);
    if (!v)
        return NULL;
    size_t start = 0, j = 0;
    for (size_t i = 0; i <= n && j < k; i++)
        if (i == n || p[i] == '\0') {
            if (i > start || i < n)
                v[j++] = dup_bytes(p + start, i - start);
            start = i + 1;
        }
    *count = (int)j;
    return v;
}

static int parse_info(struct st_trace_reader *r, const uint8_t *p, const uint8_t *end, char *err)
{
    struct st_trace_info *in = &r->info;
    const uint8_t *start = p;
    while (p < end) {
        uint64_t tag, len;
        const uint8_t *at = p;
        if (st_get_u(&p, end, &tag) != 0 || st_get_u(&p, end, &len) != 0 ||
            len > (uint64_t)(end - p)) {
            st_trace_fail(err, r->path, "corrupt process info record at byte %zu",
                 (size_t)(ST_TRACE_FIXED_HEADER + (size_t)(at - start)));
            return -1;
        }
        switch (tag) {
        case ST_TRACE_INFO_CALLS: {
            int n = 0;
            char **names = split_nul(p, (size_t)len, &n);
            if (!names || n > 255) {
                st_trace_fail(err, r->path, "corrupt call table at byte %zu",
                     (size_t)(ST_TRACE_FIXED_HEADER + (size_t)(at - start)));
                if (names)
                    for (int i = 0; i < n; i++)
                        free(names[i]);
                free(names);
                return -1;
            }
            in->ncalls = (size_t)n;
            for (int i = 0; i < n; i++) {
                in->call_map[i] = ST_CALL_OTHER;
                for (int k = 0; k < ST_CALL_COUNT; k++)
                    if (names[i] && strcmp(names[i], st_call_name((enum st_call)k)) == 0)
                        in->call_map[i] = (uint8_t)k;
                free(names[i]);
            }
            free(names);
            break;
        }
        case ST_TRACE_INFO_ARGV:
            if (!in->argv)
                in->argv = split_nul(p, (size_t)len, &in->argc);
            break;
        case ST_TRACE_INFO_EXE:
            if (!in->exe)
                in->exe = dup_bytes(p, (size_t)len);
            break;
        case ST_TRACE_INFO_CAPTURE:
            if (!in->capture)
                in->capture = dup_bytes(p, (size_t)len);
            break;
        case ST_TRACE_INFO_CAPTURE_REASON:
            if (!in->capture_reason)
                in->capture_reason = dup_bytes(p, (size_t)len);
            break;
        case ST_TRACE_INFO_HOST:
            if (!in->host)
                in->host = dup_bytes(p, (size_t)len);
            break;
        case ST_TRACE_INFO_LIBC_VERSION:
            if (!in->libc_version)
                in->libc_version = dup_bytes(p, (size_t)len);
            break;
        case ST_TRACE_INFO_LABELS:
            if (!in->labels) {
                /* Only what the writer could have written: a label that
                 * fails labels.h's rules is dropped, not passed on. */
                in->labels = split_nul(p, (size_t)len, &in->nlabels);
                int kept = 0;
                for (int i = 0; in->labels && i < in->nlabels; i++) {
                    if (in->labels[i] && !st_label_check(in->labels[i], strlen(in->labels[i])))
                        in->labels[kept++] = in->labels[i];
                    else
                        free(in->labels[i]);
                }
                in->nlabels = kept;
            }
            break;
        case ST_TRACE_INFO_PARENT_TRACE:
            if (!in->parent_trace)
                in->parent_trace = dup_bytes(p, (size_t)len);
            break;
        default:
            break; /* a newer minor version's record */
        }
        p += len;
    }
    return 0;
}

static void free_info(struct st_trace_info *in)
{
    if (in->argv)
        for (int i = 0; i < in->argc; i++)
            free(in->argv[i]);
    free(in->argv);
    if (in->labels)
        for (int i = 0; i < in->nlabels; i++)
            free(in->labels[i]);
    free(in->labels);
    free(in->exe);
    free(in->capture);
    free(in->capture_reason);
    free(in->host);
    free(in->libc_version);
    free(in->parent_trace);
}

void st_trace_close(struct st_trace_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free_info(&r->info);
    free(r->block);
    free(r->path);
    free(r);
}

struct st_trace_reader *st_trace_open(const char *path, char err[ST_TRACE_ERROR_MAX])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        st_trace_fail(err, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    return st_trace_open_fd(fd, path, err);
}

struct st_trace_reader *st_trace_open_fd(int fd, const char *path, char err[ST_TRACE_ERROR_MAX])
{
    struct st_trace_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        close(fd);
        st_trace_fail(err, path, "out of memory");
        return NULL;
    }
    r->fd = fd;
    struct stat st;
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        st_trace_fail(err, path, "cannot open: %s", strerror(errno));
        goto bad;
    }
    if (S_ISDIR(st.st_mode)) {
        st_trace_fail(err, path, "is a directory, not a trace");
        goto bad;
    }
    struct st_trace_header h;
    memset(&h, 0, sizeof h);
    uint64_t size = (uint64_t)st.st_size;
    size_t got = size < sizeof h ? (size_t)size : sizeof h;
    if (read_at(r->fd, &h, got, 0) == -1) {
        st_trace_fail(err, path, "cannot read: %s", strerror(errno));
        goto bad;
    }
    if (got < ST_TRACE_MAGIC_LEN || memcmp(h.magic, ST_TRACE_MAGIC, ST_TRACE_MAGIC_LEN) != 0) {
        st_trace_fail(err, path, "not a seektrace trace (no \\x89SKTRACE magic at byte 0)");
        goto bad;
    }
    if (got < sizeof h) {
        st_trace_fail(err, path, "truncated: the file ends at byte %" PRIu64 ", inside its %u-byte header",
             size, (unsigned)sizeof h);
        goto bad;
    }
    if (h.endian != ST_TRACE_ENDIAN) {
        st_trace_fail(err, path, "written with the other byte order (endian mark 0x%08x at byte 8); "
                        "this seektrace reads only little-endian traces", h.endian);
        goto bad;
    }
    /* Version 2 only added OP events to version 1, version 3 the F2 flags
     * of CALL and OP, version 4 WRITTEN events, version 5 rows chunks. */
    if (h.version_major < 1 || h.version_major > ST_TRACE_VERSION_MAJOR) {
        st_trace_fail(err, path, "trace format version %u.%u (byte 12); this seektrace reads versions "
                        "1.x to %d.x%s",
             h.version_major, h.version_minor, ST_TRACE_VERSION_MAJOR,
             h.version_major > ST_TRACE_VERSION_MAJOR ? ": upgrade seektrace" : "");
        goto bad;
    }
    if (h.chunk_size < 4096 || h.chunk_size > MAX_CHUNK_SIZE || h.chunk_size % 4096 ||
        h.header_size < 4096 || h.header_size > MAX_HEADER_SIZE || h.header_size % 4096 ||
        h.info_size > h.header_size - ST_TRACE_FIXED_HEADER) {
        st_trace_fail(err, path, "corrupt header at byte 16: header size %u, chunk size %u, info size %u",
             h.header_size, h.chunk_size, h.info_size);
        goto bad;
    }
    if (h.clock != ST_TRACE_CLOCK_MONOTONIC || h.state > ST_TRACE_STATE_FINISHED) {
        st_trace_fail(err, path, "corrupt header at byte %s: unknown %s %u",
             h.clock != ST_TRACE_CLOCK_MONOTONIC ? "28" : "80",
             h.clock != ST_TRACE_CLOCK_MONOTONIC ? "clock" : "state",
             h.clock != ST_TRACE_CLOCK_MONOTONIC ? h.clock : h.state);
        goto bad;
    }
    if (size < h.header_size) {
        st_trace_fail(err, path, "truncated: the file ends at byte %" PRIu64 ", inside its %u-byte header",
             size, h.header_size);
        goto bad;
    }
    struct st_trace_info *in = &r->info;
    in->version_major = h.version_major;
    in->version_minor = h.version_minor;
    in->pid = (long)h.pid;
    in->ppid = (long)h.ppid;
    in->start_realtime_ns = h.start_realtime_ns;
    in->start_ns = h.start_ns;
    in->end_ns = h.end_ns;
    in->header_size = h.header_size;
    in->chunk_size = h.chunk_size;
    in->flags = h.flags;
    in->file_size = size;
    in->cap_bytes = h.cap_bytes;
    in->events_lost = h.events_lost;
    in->truncated = (h.live_flags & ST_TRACE_LIVE_TRUNCATED) != 0;
    in->lost = (h.live_flags & ST_TRACE_LIVE_LOST) != 0;
    in->stop_reason = h.stop_reason;
    if (h.info_size) {
        uint8_t *info = malloc(h.info_size);
        if (!info || read_at(r->fd, info, h.info_size, ST_TRACE_FIXED_HEADER) != 0) {
            free(info);
            st_trace_fail(err, path, "cannot read the process info");
            goto bad;
        }
        int ok = parse_info(r, info, info + h.info_size, err);
        free(info);
        if (ok != 0)
            goto bad;
    }
    uint64_t slots = (size - h.header_size) / h.chunk_size;
    if (h.state == ST_TRACE_STATE_FINISHED) {
        uint64_t fo = h.footer_offset, fs = h.footer_size;
        if (fo < h.header_size || (fo - h.header_size) % h.chunk_size || fs < ST_TRACE_FOOTER_FRAME ||
            fs > MAX_FOOTER || fo > size || fs > size - fo) {
            st_trace_fail(err, path, "%s: footer at byte %" PRIu64 " (%" PRIu64 " bytes) %s",
                 fo > size || (fo <= size && fs > size - fo) ? "truncated" : "corrupt header",
                 fo, fs, fo > size || (fo <= size && fs > size - fo)
                             ? "lies beyond the end of the file" : "is not where a footer can be");
            goto bad;
        }
        in->finished = 1;
        in->footer_offset = fo;
        in->footer_size = fs;
        r->skip_from = (fo - h.header_size) / h.chunk_size;
        r->skip_to = r->skip_from + (fs + h.chunk_size - 1) / h.chunk_size;
        /* A finished trace ends with its footer, whose last chunk may be
         * short; every chunk the header counts is read (a missing one is
         * reported as the file being truncated). */
        in->chunks = h.chunks;
    } else {
        /* A partial trace may end in chunks handed out but never counted in
         * the header (killed in between) and in zeroed space grown ahead. */
        in->chunks = h.chunks + 4096 < slots ? h.chunks + 4096 : slots;
    }
    r->nslots = in->chunks;
    /* One block of chunks, never more than the file holds. */
    uint64_t want = (size - h.header_size) < BLOCK_BYTES ? size - h.header_size : BLOCK_BYTES;
    r->block = malloc(want > h.chunk_size ? want : h.chunk_size);
    if (!r->block) {
        st_trace_fail(err, path, "out of memory");
        goto bad;
    }
    return r;
bad:
    st_trace_close(r);
    return NULL;
}

const struct st_trace_info *st_trace_info(const struct st_trace_reader *r)
{
    return &r->info;
}

const char *st_trace_path(const struct st_trace_reader *r)
{
    return r->path;
}

uint64_t st_trace_bytes_read(const struct st_trace_reader *r)
{
    return r->bytes;
}

uint64_t st_trace_chunks_read(const struct st_trace_reader *r)
{
    return r->chunks_read;
}

/* Loads the block holding slot; 0, or -1 (err set). */
static int load_block(struct st_trace_reader *r, uint64_t slot, char *err)
{
    uint32_t cs = r->info.chunk_size;
    uint64_t room = r->info.file_size - r->info.header_size;
    uint64_t per = (room < BLOCK_BYTES ? room : BLOCK_BYTES) / cs;
    if (!per)
        per = 1;
    uint64_t n = r->nslots - slot < per ? r->nslots - slot : per;
    uint64_t off = r->info.header_size + slot * (uint64_t)cs;
    /* Only whole chunks the file holds (the footer's may be short: it is
     * never loaded). */
    uint64_t whole = off < r->info.file_size ? (r->info.file_size - off) / cs : 0;
    if (n > whole)
        n = whole;
    int rc = n ? read_at(r->fd, r->block, (size_t)(n * cs), off) : -2;
    if (rc != 0) {
        st_trace_fail(err, r->path, rc == -2 ? "truncated: the file ends inside chunk %" PRIu64 " (byte %" PRIu64 ")"
                                    : "cannot read chunk %" PRIu64 " (byte %" PRIu64 ")",
             slot, off);
        return -1;
    }
    r->block_first = slot;
    r->block_n = n;
    return 0;
}

/* Moves to the next chunk with data: 1, 0 at the end, -1 on bad input. */
static int next_chunk(struct st_trace_reader *r, char *err)
{
    uint32_t cs = r->info.chunk_size;
    while (r->slot < r->nslots) {
        uint64_t slot = r->slot++;
        if (slot >= r->skip_from && slot < r->skip_to)
            continue;
        if (slot < r->block_first || slot >= r->block_first + r->block_n || !r->block_n)
            if (load_block(r, slot, err) != 0)
                return -1;
        const uint8_t *c = r->block + (slot - r->block_first) * cs;
        struct st_trace_chunk ch;
        memcpy(&ch, c, sizeof ch);
        uint64_t at = r->info.header_size + slot * (uint64_t)cs;
        if (ch.magic == 0)
            continue; /* handed out ahead, never written */
        if (ch.magic != ST_TRACE_CHUNK_MAGIC) {
            st_trace_fail(err, r->path, "corrupt chunk %" PRIu64 " at byte %" PRIu64 ": bad magic 0x%08x",
                 slot, at, ch.magic);
            return -1;
        }
        if (ch.index != (uint32_t)slot || ch.used > cs - ST_TRACE_CHUNK_HEADER) {
            st_trace_fail(err, r->path, "corrupt chunk %" PRIu64 " at byte %" PRIu64 ": %s", slot, at,
                 ch.index != (uint32_t)slot ? "its header names another chunk"
                                            : "it claims more bytes than it holds");
            return -1;
        }
        if (r->info.version_major >= 5 && (ch.flags & ST_TRACE_CHUNK_ROWS))
            continue; /* rows, not events: the footer's (footer_report.c) */
        r->chunks_read++;
        r->in_chunk = 1;
        r->base = c;
        r->p = c + ST_TRACE_CHUNK_HEADER;
        r->end = r->p + ch.used;
        r->chunk_index = slot;
        r->tid = ch.tid;
        st_trace_decoder_start(&r->dec, &r->info, ch.base_ns);
        r->bytes += ch.used;
        return 1;
    }
    return 0;
}

/* An event with nothing decoded yet, starting at file offset at. */
static void clear_event(const struct st_trace_reader *r, struct st_trace_event *ev, uint64_t at)
{
    memset(ev, 0, offsetof(struct st_trace_event, frames));
    ev->nframes = 0;
    ev->tid = r->tid;
    ev->chunk = r->chunk_index;
    ev->file_offset = at;
    ev->call = -1;
}

int st_trace_next(struct st_trace_reader *r, struct st_trace_event *ev,
                  char err[ST_TRACE_ERROR_MAX])
{
    struct st_trace_decoder *d = &r->dec;
    if (d->end_pending) {
        d->end_pending = 0;
        clear_event(r, ev, d->end_offset);
        ev->kind = ST_EV_END;
        d->time += d->end_dt;
        ev->time_ns = d->time;
        ev->target = d->target;
        return 1;
    }
    for (;;) {
        if (!r->in_chunk || r->p >= r->end) {
            r->in_chunk = 0;
            int rc = next_chunk(r, err);
            if (rc <= 0)
                return rc;
            continue;
        }
        clear_event(r, ev, r->info.header_size + r->chunk_index * (uint64_t)r->info.chunk_size +
                               (uint64_t)(r->p - r->base));
        const char *why;
        if (st_trace_decode(d, &r->p, r->end, ev, &why) == 0)
            return 1;
        d->end_pending = 0;
        st_trace_fail(err, r->path, "corrupt event at byte %" PRIu64 " (chunk %" PRIu64 ", a %s event): %s",
             ev->file_offset, r->chunk_index, st_trace_kind_name(ev->kind), why);
        return -1;
    }
}

/* ---- the footer's bytes (footer_report.c reads them) ---------------------- */

int st_trace_footer_bytes(struct st_trace_reader *r, uint8_t **bufp, const uint8_t **payloadp,
                          uint32_t *lenp, char *err)
{
    const struct st_trace_info *in = &r->info;
    uint8_t *buf = malloc((size_t)in->footer_size);
    if (!buf) {
        st_trace_fail(err, r->path, "out of memory reading the footer");
        return -1;
    }
    int rc = read_at(r->fd, buf, (size_t)in->footer_size, in->footer_offset);
    uint32_t len = 0, crc = 0;
    if (rc == 0) { /* else buf holds less than was asked for */
        memcpy(&len, buf + 8, 4);
        memcpy(&crc, buf + 12, 4);
    }
    if (rc != 0 || memcmp(buf, ST_TRACE_FOOTER_MAGIC, 8) != 0 ||
        len != in->footer_size - ST_TRACE_FOOTER_FRAME) {
        st_trace_fail(err, r->path, "corrupt footer at byte %" PRIu64 ": %s", in->footer_offset,
             rc != 0 ? "cannot read it" : memcmp(buf, ST_TRACE_FOOTER_MAGIC, 8) ? "bad magic"
                                                                                : "bad length");
        free(buf);
        return -1;
    }
    const uint8_t *payload = buf + ST_TRACE_FOOTER_FRAME;
    if (st_crc32(0, payload, len) != crc) {
        st_trace_fail(err, r->path, "corrupt footer at byte %" PRIu64 ": checksum mismatch",
             in->footer_offset);
        free(buf);
        return -1;
    }
    *bufp = buf;
    *payloadp = payload;
    *lenp = len;
    return 0;
}

int st_trace_rows_bytes(struct st_trace_reader *r, uint64_t idx, uint64_t used, uint64_t crc,
                        uint8_t *buf, const uint8_t **payload, char *err)
{
    const struct st_trace_info *in = &r->info;
    uint64_t at = in->header_size + idx * (uint64_t)in->chunk_size;
    const char *why = NULL;
    struct st_trace_chunk ch;
    if (idx >= r->nslots || (idx >= r->skip_from && idx < r->skip_to) ||
        used > in->chunk_size - ST_TRACE_CHUNK_HEADER)
        why = "the footer's ROWS record names no chunk of rows";
    else if (read_at(r->fd, buf, ST_TRACE_CHUNK_HEADER + (size_t)used, at) != 0)
        why = "cannot read it";
    if (!why) {
        memcpy(&ch, buf, sizeof ch);
        if (ch.magic != ST_TRACE_CHUNK_MAGIC || ch.index != (uint32_t)idx ||
            !(ch.flags & ST_TRACE_CHUNK_ROWS) || ch.used != used)
            why = "its header is not the rows chunk the footer names";
        else if (st_crc32(0, buf + ST_TRACE_CHUNK_HEADER, (size_t)used) != (uint32_t)crc ||
                 crc > UINT32_MAX)
            why = "checksum mismatch";
    }
    if (why) {
        st_trace_fail(err, r->path, "corrupt rows chunk %" PRIu64 " at byte %" PRIu64 ": %s", idx,
                      at, why);
        return -1;
    }
    *payload = buf + ST_TRACE_CHUNK_HEADER;
    return 0;
}
