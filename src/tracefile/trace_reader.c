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
#include "report_select.h"
#include "trace_mem.h"
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

static void fail(char *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(char *err, const char *path, const char *fmt, ...)
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
            fail(err, r->path, "corrupt process info record at byte %zu",
                 (size_t)(ST_TRACE_FIXED_HEADER + (size_t)(at - start)));
            return -1;
        }
        switch (tag) {
        case ST_TRACE_INFO_CALLS: {
            int n = 0;
            char **names = split_nul(p, (size_t)len, &n);
            if (!names || n > 255) {
                fail(err, r->path, "corrupt call table at byte %zu",
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
        fail(err, path, "cannot open: %s", strerror(errno));
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
        fail(err, path, "out of memory");
        return NULL;
    }
    r->fd = fd;
    struct stat st;
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        fail(err, path, "cannot open: %s", strerror(errno));
        goto bad;
    }
    if (S_ISDIR(st.st_mode)) {
        fail(err, path, "is a directory, not a trace");
        goto bad;
    }
    struct st_trace_header h;
    memset(&h, 0, sizeof h);
    uint64_t size = (uint64_t)st.st_size;
    size_t got = size < sizeof h ? (size_t)size : sizeof h;
    if (read_at(r->fd, &h, got, 0) == -1) {
        fail(err, path, "cannot read: %s", strerror(errno));
        goto bad;
    }
    if (got < ST_TRACE_MAGIC_LEN || memcmp(h.magic, ST_TRACE_MAGIC, ST_TRACE_MAGIC_LEN) != 0) {
        fail(err, path, "not a seektrace trace (no \\x89SKTRACE magic at byte 0)");
        goto bad;
    }
    if (got < sizeof h) {
        fail(err, path, "truncated: the file ends at byte %" PRIu64 ", inside its %u-byte header",
             size, (unsigned)sizeof h);
        goto bad;
    }
    if (h.endian != ST_TRACE_ENDIAN) {
        fail(err, path, "written with the other byte order (endian mark 0x%08x at byte 8); "
                        "this seektrace reads only little-endian traces", h.endian);
        goto bad;
    }
    /* Version 2 only added OP events to version 1, version 3 the F2 flags
     * of CALL and OP, version 4 WRITTEN events. */
    if (h.version_major < 1 || h.version_major > ST_TRACE_VERSION_MAJOR) {
        fail(err, path, "trace format version %u.%u (byte 12); this seektrace reads versions "
                        "1.x to %d.x%s",
             h.version_major, h.version_minor, ST_TRACE_VERSION_MAJOR,
             h.version_major > ST_TRACE_VERSION_MAJOR ? ": upgrade seektrace" : "");
        goto bad;
    }
    if (h.chunk_size < 4096 || h.chunk_size > MAX_CHUNK_SIZE || h.chunk_size % 4096 ||
        h.header_size < 4096 || h.header_size > MAX_HEADER_SIZE || h.header_size % 4096 ||
        h.info_size > h.header_size - ST_TRACE_FIXED_HEADER) {
        fail(err, path, "corrupt header at byte 16: header size %u, chunk size %u, info size %u",
             h.header_size, h.chunk_size, h.info_size);
        goto bad;
    }
    if (h.clock != ST_TRACE_CLOCK_MONOTONIC || h.state > ST_TRACE_STATE_FINISHED) {
        fail(err, path, "corrupt header at byte %s: unknown %s %u",
             h.clock != ST_TRACE_CLOCK_MONOTONIC ? "28" : "80",
             h.clock != ST_TRACE_CLOCK_MONOTONIC ? "clock" : "state",
             h.clock != ST_TRACE_CLOCK_MONOTONIC ? h.clock : h.state);
        goto bad;
    }
    if (size < h.header_size) {
        fail(err, path, "truncated: the file ends at byte %" PRIu64 ", inside its %u-byte header",
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
            fail(err, path, "cannot read the process info");
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
            fail(err, path, "%s: footer at byte %" PRIu64 " (%" PRIu64 " bytes) %s",
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
        fail(err, path, "out of memory");
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
        fail(err, r->path, rc == -2 ? "truncated: the file ends inside chunk %" PRIu64 " (byte %" PRIu64 ")"
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
            fail(err, r->path, "corrupt chunk %" PRIu64 " at byte %" PRIu64 ": bad magic 0x%08x",
                 slot, at, ch.magic);
            return -1;
        }
        if (ch.index != (uint32_t)slot || ch.used > cs - ST_TRACE_CHUNK_HEADER) {
            fail(err, r->path, "corrupt chunk %" PRIu64 " at byte %" PRIu64 ": %s", slot, at,
                 ch.index != (uint32_t)slot ? "its header names another chunk"
                                            : "it claims more bytes than it holds");
            return -1;
        }
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
        fail(err, r->path, "corrupt event at byte %" PRIu64 " (chunk %" PRIu64 ", a %s event): %s",
             ev->file_offset, r->chunk_index, st_trace_kind_name(ev->kind), why);
        return -1;
    }
}

/* ---- the footer ---------------------------------------------------------- */

struct fcur {
    const uint8_t *p, *end;
    struct st_trace_mem **mem;
};

static int f_u(struct fcur *c, uint64_t *v)
{
    return st_get_u(&c->p, c->end, v);
}

/* A length-prefixed string; *s NULL for length 0. */
static int f_str(struct fcur *c, const char **s)
{
    uint64_t n;
    if (f_u(c, &n) != 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    if (n == 0) {
        *s = NULL;
        return 0;
    }
    char *d = st_trace_mem_alloc(c->mem, (size_t)n + 1);
    if (!d)
        return -1;
    memcpy(d, c->p, (size_t)n);
    c->p += n;
    *s = d;
    return 0;
}

static int f_counts(struct fcur *c, struct st_counts *out, const struct st_trace_info *in)
{
    return st_counts_decode(&c->p, c->end, out, in->call_map, in->ncalls);
}

static int f_process(struct fcur *c, struct st_report *r)
{
    uint64_t pid, ppid, argc;
    if (f_u(c, &pid) != 0 || f_u(c, &ppid) != 0 || f_u(c, &argc) != 0 ||
        argc > (uint64_t)(c->end - c->p))
        return -1;
    r->pid = (long)pid;
    r->ppid = (long)ppid;
    const char **argv = st_trace_mem_alloc(c->mem, sizeof *argv * (size_t)(argc ? argc : 1));
    if (!argv)
        return -1;
    for (uint64_t i = 0; i < argc; i++) {
        if (f_str(c, &argv[i]) != 0)
            return -1;
        if (!argv[i])
            argv[i] = "";
    }
    r->argv = argv;
    r->argc = (int)argc;
    if (f_str(c, &r->capture) != 0 || f_str(c, &r->capture_reason) != 0)
        return -1;
    if (!r->capture)
        r->capture = "exact";
    return 0;
}

static int f_file(struct fcur *c, struct st_report_file *f, const struct st_trace_info *in)
{
    uint64_t n;
    if (f_str(c, &f->path) != 0 || f_counts(c, &f->counts, in) != 0 || f_u(c, &n) != 0 ||
        n > (uint64_t)(c->end - c->p))
        return -1;
    if (!f->path)
        f->path = "";
    f->nstreams = (size_t)n;
    f->streams = n ? st_trace_mem_alloc(c->mem, sizeof *f->streams * (size_t)n) : NULL;
    if (n && !f->streams)
        return -1;
    for (size_t i = 0; i < f->nstreams; i++) {
        struct st_report_stream *s = &f->streams[i];
        uint64_t fd, size, req;
        if (f_u(c, &fd) != 0 || f_u(c, &size) != 0 || f_u(c, &req) != 0 || c->p >= c->end)
            return -1;
        int64_t sfd = st_unzigzag(fd);
        uint8_t b = *c->p++;
        if (sfd < -1 || sfd > INT32_MAX || (b & 15) > ST_TRACE_BUF_NONE ||
            (b >> 4) > ST_TRACE_ORIGIN_SIZE_IGNORED)
            return -1;
        s->fd = (int)sfd;
        s->buffer_size = size;
        s->requested_buffer_size = req;
        s->mode = (enum st_buf_mode)(b & 15);
        s->origin = (enum st_buf_origin)(b >> 4);
        if (f_str(c, &s->caveat) != 0 || f_counts(c, &s->counts, in) != 0)
            return -1;
    }
    if (f_u(c, &n) != 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    f->nsites = (size_t)n;
    f->sites = n ? st_trace_mem_alloc(c->mem, sizeof *f->sites * (size_t)n) : NULL;
    if (n && !f->sites)
        return -1;
    for (size_t i = 0; i < f->nsites; i++) {
        struct st_report_site *s = &f->sites[i];
        uint64_t nf;
        if (f_u(c, &nf) != 0 || nf > 64)
            return -1;
        struct st_report_frame *frames = nf ? st_trace_mem_alloc(c->mem, sizeof *frames * (size_t)nf) : NULL;
        if (nf && !frames)
            return -1;
        for (uint64_t k = 0; k < nf; k++) {
            uint64_t line;
            if (f_str(c, &frames[k].function) != 0 || f_str(c, &frames[k].source) != 0 ||
                f_u(c, &line) != 0 || line > INT32_MAX || f_str(c, &frames[k].module) != 0 ||
                f_u(c, &frames[k].offset) != 0)
                return -1;
            frames[k].line = (int)line;
        }
        s->frames = frames;
        s->nframes = (int)nf;
        if (f_counts(c, &s->counts, in) != 0)
            return -1;
    }
    return 0;
}

/* The rows a bounded footer report keeps: the FILE records selected, by
 * where they start in the footer, ascending. */
struct kept_rows {
    const void **at;
    size_t n;
    uint64_t *ordinal; /* each kept record's place among the FILE records */
};

/* The row of the ordinal-th FILE record, or NULL when it has none. */
static struct st_report_file *row_of(struct st_report *out, const struct kept_rows *kept,
                                     uint64_t ordinal)
{
    if (!kept)
        return ordinal < out->nfiles ? &out->files[ordinal] : NULL;
    size_t lo = 0, hi = out->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kept->ordinal[mid] < ordinal)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < out->nfiles && kept->ordinal[lo] == ordinal ? &out->files[lo] : NULL;
}

/* STORAGE (4.1): the device's figures, and per file when measured so
 * (files: how many FILE records the footer has). */
static int f_storage(struct fcur *c, struct st_report *out, const struct kept_rows *kept,
                     size_t files)
{
    struct st_report_storage *s = &out->storage;
    uint64_t flags, n;
    if (f_u(c, &flags) != 0 || f_u(c, &s->device_read_bytes) != 0 ||
        f_u(c, &s->device_write_bytes) != 0 || f_str(c, &s->why_not) != 0 || f_u(c, &n) != 0 ||
        n > files)
        return -1;
    s->measured = (flags & ST_FOOT_STORAGE_MEASURED) != 0;
    s->per_file = (flags & ST_FOOT_STORAGE_PER_FILE) != 0;
    s->processes = 1;
    s->processes_unmeasured = !s->measured;
    if (!s->measured && !s->why_not)
        s->why_not = "not measured";
    for (uint64_t i = 0; i < n; i++) {
        uint64_t file, bytes;
        if (f_u(c, &file) != 0 || f_u(c, &bytes) != 0 || file >= files)
            return -1;
        struct st_report_file *f = row_of(out, kept, file);
        if (f) {
            f->device_measured = 1;
            f->device_read_bytes = bytes;
        }
    }
    return 0;
}

/* One record of the footer: its tag and bytes; 0, or -1 when it is cut. */
static int next_record(struct fcur *c, uint64_t *tag, struct fcur *rec)
{
    uint64_t n;
    if (f_u(c, tag) != 0 || f_u(c, &n) != 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    *rec = (struct fcur){c->p, c->p + n, c->mem};
    c->p += n;
    return 0;
}

/* Whether a record was read whole: a newer minor version may append to
 * the records this reader knows only after their last field. */
static int record_whole(uint64_t tag, const struct fcur *rec)
{
    return rec->p == rec->end || (tag > ST_FOOT_FILE && tag != ST_FOOT_STORAGE);
}

/* The first pass of a bounded report: every FILE record decoded in
 * scratch memory, shown to each_file and offered to the selection; then
 * the records selected, in kept. Returns NULL, or where the footer is
 * corrupt (*oom set when memory ran out instead). */
static const uint8_t *select_rows(struct fcur c, const struct st_trace_info *in,
                                  const struct st_footer_rows *rows, struct st_report_select *sel,
                                  struct kept_rows *kept, int *oom)
{
    struct st_trace_mem *scratch = NULL;
    const uint8_t *bad = NULL;
    uint64_t ordinal = 0;
    while (!bad && c.p < c.end) {
        uint64_t tag;
        struct fcur rec;
        const uint8_t *at = c.p;
        if (next_record(&c, &tag, &rec) != 0) {
            bad = at;
            break;
        }
        if (tag != ST_FOOT_FILE)
            continue;
        struct st_report_file f;
        memset(&f, 0, sizeof f);
        rec.mem = &scratch;
        if (f_file(&rec, &f, in) != 0 || !record_whole(tag, &rec)) {
            bad = at;
            break;
        }
        if (rows->each_file)
            rows->each_file(rows->ctx, &f);
        if (sel->rows.cap)
            st_report_select_offer(sel, &f, at);
        st_trace_mem_reset(&scratch);
        ordinal++;
    }
    st_trace_mem_free(scratch);
    if (bad || !sel->rows.cap)
        return bad;
    size_t cap = sel->rows.cap + sel->pairs.cap + sel->findings.cap + ST_REPORT_SELECT_EXTRA;
    kept->at = malloc(cap * sizeof *kept->at);
    kept->ordinal = malloc(cap * sizeof *kept->ordinal);
    if (!kept->at || !kept->ordinal) {
        *oom = 1;
        return NULL;
    }
    kept->n = st_report_select_kept(sel, kept->at);
    return NULL;
}

int st_trace_footer_report(struct st_trace_reader *r, struct st_report *out, void **block,
                           char err[ST_TRACE_ERROR_MAX])
{
    return st_trace_footer_rows(r, NULL, out, block, err);
}

int st_trace_footer_rows(struct st_trace_reader *r, const struct st_footer_rows *rows,
                         struct st_report *out, void **block, char err[ST_TRACE_ERROR_MAX])
{
    memset(out, 0, sizeof *out);
    *block = NULL;
    const struct st_trace_info *in = &r->info;
    if (!in->finished)
        return 0;
    uint8_t *buf = malloc((size_t)in->footer_size);
    if (!buf) {
        fail(err, r->path, "out of memory reading the footer");
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
        fail(err, r->path, "corrupt footer at byte %" PRIu64 ": %s", in->footer_offset,
             rc != 0 ? "cannot read it" : memcmp(buf, ST_TRACE_FOOTER_MAGIC, 8) ? "bad magic"
                                                                                : "bad length");
        free(buf);
        return -1;
    }
    const uint8_t *payload = buf + ST_TRACE_FOOTER_FRAME;
    if (st_crc32(0, payload, len) != crc) {
        fail(err, r->path, "corrupt footer at byte %" PRIu64 ": checksum mismatch",
             in->footer_offset);
        free(buf);
        return -1;
    }
    struct st_trace_mem *mem = NULL;
    struct fcur c = {payload, payload + len, &mem};
    /* Files are counted first so the array is allocated once. */
    size_t nfiles = 0;
    {
        struct fcur k = c, rec;
        uint64_t tag;
        while (k.p < k.end && next_record(&k, &tag, &rec) == 0)
            nfiles += tag == ST_FOOT_FILE;
    }
    struct st_report_select sel;
    memset(&sel, 0, sizeof sel);
    struct st_rank *ranks = NULL;
    struct kept_rows kept = {0};
    int bounded = rows && rows->files && nfiles > rows->every_up_to;
    int oom = 0;
    if (bounded) {
        ranks = malloc((rows->files + rows->pairs + rows->findings + ST_REPORT_SELECT_EXTRA) *
                       sizeof *ranks);
        if (!ranks)
            oom = 1;
        else
            st_report_select_init(&sel, ranks, rows->files, rows->pairs, rows->findings);
    }
    if (!oom && rows && (bounded || rows->each_file)) {
        const uint8_t *bad = select_rows(c, in, rows, &sel, &kept, &oom);
        if (bad) {
            c.p = bad;
            goto corrupt_at;
        }
    }
    size_t nrows = bounded ? kept.n : nfiles;
    out->files = oom ? NULL : st_trace_mem_alloc(&mem, sizeof *out->files * (nrows ? nrows : 1));
    int have_process = 0;
    out->storage.processes = out->storage.processes_unmeasured = 1;
    out->storage.why_not = "the trace has no device figures (written before format 4.1)";
    uint64_t ordinal = 0;
    while (out->files && c.p < c.end) {
        uint64_t tag;
        struct fcur rec;
        const uint8_t *at = c.p;
        if (next_record(&c, &tag, &rec) != 0)
            goto corrupt_at;
        int ok = 0;
        if (tag == ST_FOOT_PROCESS) {
            ok = f_process(&rec, out);
            out->libc_version = in->libc_version; /* an info record, not in the footer */
            have_process = 1;
        } else if (tag == ST_FOOT_FILE && ordinal++ < nfiles) {
            /* Bounded: the records kept come in the footer's order. */
            if (bounded && (out->nfiles == kept.n || kept.at[out->nfiles] != at))
                continue;
            if (bounded)
                kept.ordinal[out->nfiles] = ordinal - 1;
            ok = f_file(&rec, &out->files[out->nfiles], in);
            if (ok == 0)
                out->nfiles++;
        } else if (tag == ST_FOOT_STORAGE) {
            ok = f_storage(&rec, out, bounded ? &kept : NULL, nfiles);
        }
        if (ok != 0 || !record_whole(tag, &rec)) {
            c.p = at;
            goto corrupt_at;
        }
    }
    if (!out->files || !have_process) {
        fail(err, r->path, "corrupt footer at byte %" PRIu64 ": %s", in->footer_offset,
             out->files ? "no process record" : "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < out->nfiles; i++)
        st_counts_add(&out->totals, &out->files[i].counts);
    if (bounded) {
        /* The other files, exactly: every file's counts less the rows'. */
        out->other = sel.all;
        st_counts_sub(&out->other, &out->totals);
        out->totals = sel.all;
        out->nfiles_other = sel.active - out->nfiles;
    }
    free(ranks);
    free(kept.at);
    free(kept.ordinal);
    free(buf);
    *block = mem;
    return 1;
corrupt_at:
    fail(err, r->path, "corrupt footer record at byte %" PRIu64,
         in->footer_offset + ST_TRACE_FOOTER_FRAME + (uint64_t)(c.p - payload));
fail:
    free(ranks);
    free(kept.at);
    free(kept.ordinal);
    st_trace_mem_free(mem);
    free(buf);
    return -1;
}
