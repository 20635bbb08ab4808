/* findings.c — the diagnosis rules. Thresholds are documented in
 * docs/findings.md; keep the two in step. */
#include "sort.h"
#include "findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* Below these a pattern is not worth a user's time. */
#define MIN_CALLS 100u
#define MIN_WASTE (1u << 20)
#define MIN_AMPLIFICATION 4.0
/* Writes averaging less than this are small: a stdio buffer (4 KiB and up)
 * would have gathered several of them into one syscall. */
#define SMALL_WRITE 1024u
/* The block the write rules predict with: glibc's buffer on most files. */
#define PREDICT_BUFFER 4096u

/* The stream with the largest buffer among those that did the given kind of
 * work; the buffer size is what the sentences talk about. */
static const struct st_report_stream *main_stream(const struct st_report_file *f)
{
    const struct st_report_stream *best = NULL;
    for (size_t i = 0; i < f->nstreams; i++) {
        const struct st_report_stream *s = &f->streams[i];
        if (!best || s->counts.kernel_read_bytes > best->counts.kernel_read_bytes)
            best = s;
    }
    return best;
}

/* What a rule measures at one site, to find where it happens most. */
typedef uint64_t (*site_metric)(const struct st_counts *c);

static const struct st_report_site *worst_site(const struct st_report_file *f, site_metric m)
{
    const struct st_report_site *best = NULL;
    uint64_t top = 0;
    for (size_t i = 0; i < f->nsites; i++) {
        uint64_t v = m(&f->sites[i].counts);
        if (v > top && f->sites[i].nframes > 0) {
            top = v;
            best = &f->sites[i];
        }
    }
    return best;
}

static struct st_finding *next(struct st_finding *out, size_t *n, size_t max,
                               const char *rule, const struct st_report_file *f,
                               uint64_t cost, site_metric m)
{
    if (*n >= max)
        return NULL;
    struct st_finding *x = &out[(*n)++];
    memset(x, 0, sizeof *x);
    x->rule = rule;
    x->file = f;
    x->cost = cost;
    x->site = worst_site(f, m);
    return x;
}

static uint64_t seek_waste(const struct st_counts *c)
{
    return c->by_call[ST_CALL_FSEEK].kernel_read_bytes + c->by_call[ST_CALL_FSETPOS].kernel_read_bytes +
           c->by_call[ST_CALL_REWIND].kernel_read_bytes + c->seeks_discarding_buffer;
}
static uint64_t resyncs(const struct st_counts *c) { return c->resync_lseeks; }
static uint64_t reads(const struct st_counts *c) { return c->read_syscalls; }
static uint64_t setvbufs(const struct st_counts *c) { return c->by_call[ST_CALL_SETVBUF].calls; }
static uint64_t tell_lseeks(const struct st_counts *c)
{
    return c->by_call[ST_CALL_FTELL].lseek_syscalls + c->by_call[ST_CALL_FGETPOS].lseek_syscalls;
}
static uint64_t rereads(const struct st_counts *c) { return c->reread_bytes; }
static uint64_t seek_reads(const struct st_counts *c)
{
    return c->by_call[ST_CALL_FSEEK].read_syscalls + c->by_call[ST_CALL_FSETPOS].read_syscalls +
           c->by_call[ST_CALL_REWIND].read_syscalls;
}

static uint64_t writes(const struct st_counts *c) { return c->write_syscalls; }
static uint64_t fflush_writes(const struct st_counts *c)
{
    return c->by_call[ST_CALL_FFLUSH].write_syscalls;
}
static uint64_t newline_flushes(const struct st_counts *c) { return c->flushes_newline; }
static uint64_t seek_writes(const struct st_counts *c)
{
    return c->by_call[ST_CALL_FSEEK].write_syscalls + c->by_call[ST_CALL_FSETPOS].write_syscalls +
           c->by_call[ST_CALL_REWIND].write_syscalls;
}
static uint64_t direct_writes(const struct st_counts *c)
{
    return c->by_call[ST_CALL_WRITE].write_syscalls + c->by_call[ST_CALL_PWRITE].write_syscalls;
}

static const char *plural_s(uint64_t n) { return n == 1 ? "" : "s"; }

/* The write syscalls that writing `bytes` in full blocks of `block` takes. */
static uint64_t blocks_of(uint64_t bytes, uint64_t block)
{
    return (bytes + block - 1) / block;
}

/* The largest buffer among the file's streams that wrote, else 4 KiB: what
 * the write rules predict with when the stream keeps its buffer. */
static uint64_t write_buffer(const struct st_report_file *f)
{
    uint64_t best = 0;
    for (size_t i = 0; i < f->nstreams; i++)
        if (f->streams[i].counts.write_syscalls && f->streams[i].buffer_size > best)
            best = f->streams[i].buffer_size;
    return best > 1 ? best : PREDICT_BUFFER;
}

/* Files where a buffer's flushes cost the same wherever they happen: not
 * pipes, sockets or terminals, whose reader may need each record now. */
static int regular_path(const char *path)
{
    return path[0] == '/' && strncmp(path, "/dev/", 5) != 0 && strncmp(path, "/proc/", 6) != 0;
}

/* The 2006 case: fseek outside the buffer throws it away and glibc reads a
 * whole buffer again (inside fseek, or at the next read). */
static void rule_fseek_discards(const struct st_report_file *f,
                                struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    const struct st_report_stream *s = main_stream(f);
    uint64_t seeks = c->by_call[ST_CALL_FSEEK].calls + c->by_call[ST_CALL_FSETPOS].calls +
                     c->by_call[ST_CALL_REWIND].calls;
    uint64_t waste = st_counts_wasted_bytes(c);
    if (!s || c->seeks_discarding_buffer < MIN_CALLS || waste < MIN_WASTE ||
        st_counts_amplification(c) < MIN_AMPLIFICATION)
        return;
    uint64_t fills = c->read_syscalls;
    uint64_t buf = s->buffer_size;
    struct st_finding *x = next(out, n, max, "fseek-discards-buffer", f, waste, seek_waste);
    if (!x)
        return;
    char b1[32], b2[32], b3[32], b4[32], n1[32], n2[32], n3[32], r[32];
    char who[96];
    if (c->seeks_discarding_buffer >= seeks)
        snprintf(who, sizeof who, "every fseek");
    else
        snprintf(who, sizeof who, "%s of %s fseeks",
                 st_fmt_count(n1, sizeof n1, c->seeks_discarding_buffer),
                 st_fmt_count(n3, sizeof n3, seeks));
    snprintf(x->what, sizeof x->what,
             "%s on %s threw away its %s buffer and glibc read it again: "
             "%s reads of %s to deliver %s (%s).",
             who, f->path, st_fmt_bytes(b1, sizeof b1, buf),
             st_fmt_count(n2, sizeof n2, fills),
             st_fmt_bytes(b2, sizeof b2, c->kernel_read_bytes),
             st_fmt_bytes(b3, sizeof b3, c->delivered_bytes),
             st_fmt_ratio(r, sizeof r, st_counts_amplification(c)));
    if (buf > 4096) {
        /* The model's prediction when every read stream of the file was
         * followed at 4 KiB (whatif_stream.h), else one buffer per read. */
        int predicted = c->whatif_4k_kernel_read_bytes &&
                        c->whatif_4k_recorded_bytes == c->kernel_read_bytes;
        snprintf(x->change, sizeof x->change,
                 "use a 4 KiB buffer (about %s for the same reads, %s) or pread() "
                 "exactly the bytes needed (%s); seektrace whatif on a trace ranks every size.",
                 st_fmt_bytes(b4, sizeof b4,
                              predicted ? c->whatif_4k_kernel_read_bytes : fills * 4096),
                 predicted ? "predicted" : "estimated",
                 st_fmt_bytes(b1, sizeof b1, c->requested_bytes));
    } else {
        snprintf(x->change, sizeof x->change,
                 "pread() exactly the bytes needed (%s) instead of fseek+fread, or mmap the file.",
                 st_fmt_bytes(b4, sizeof b4, c->requested_bytes));
    }
}

/* An fseek that lands inside the buffer reads nothing, yet glibc still
 * makes an lseek to resync the file offset. */
static void rule_resync_lseek(const struct st_report_file *f,
                              struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    if (c->seeks_in_buffer < 10 * MIN_CALLS || c->resync_lseeks < c->seeks_in_buffer / 2)
        return;
    struct st_finding *x = next(out, n, max, "fseek-resync-lseek", f,
                                c->resync_lseeks * ST_SYSCALL_COST_BYTES, resyncs);
    if (!x)
        return;
    char n1[32], n2[32];
    snprintf(x->what, sizeof x->what,
             "%s fseeks on %s stayed inside the buffer yet made %s lseek syscalls "
             "(glibc resyncs the file offset on every fseek).",
             st_fmt_count(n1, sizeof n1, c->seeks_in_buffer), f->path,
             st_fmt_count(n2, sizeof n2, c->resync_lseeks));
    snprintf(x->change, sizeof x->change,
             "skip short distances by reading forward, or mmap the file and index it directly.");
}

/* Many read syscalls that each return little: an unbuffered stream, a tiny
 * buffer, or the program's own small read() calls. */
static void rule_small_reads(const struct st_report_file *f,
                             struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    if (c->read_syscalls < 10 * MIN_CALLS)
        return;
    uint64_t avg = c->kernel_read_bytes / c->read_syscalls;
    if (avg >= 1024)
        return;
    uint64_t posix = c->by_call[ST_CALL_READ].read_syscalls + c->by_call[ST_CALL_PREAD].read_syscalls;
    int direct = posix * 2 > c->read_syscalls;
    struct st_finding *x = next(out, n, max, direct ? "small-direct-reads" : "small-buffer-reads",
                                f, c->read_syscalls * ST_SYSCALL_COST_BYTES, reads);
    if (!x)
        return;
    char n1[32], b1[32], b2[32];
    snprintf(x->what, sizeof x->what,
             "on %s, %s made %s read syscalls of %s on average (%s in all)%s.", f->path,
             direct ? "the program's own read()/pread() calls" : "stdio",
             st_fmt_count(n1, sizeof n1, c->read_syscalls),
             st_fmt_bytes(b1, sizeof b1, avg),
             st_fmt_bytes(b2, sizeof b2, c->kernel_read_bytes),
             direct ? "" : " because the stream is unbuffered or its buffer is tiny");
    snprintf(x->change, sizeof x->change,
             direct ? "read larger blocks (64 KiB or more) and split them in memory."
                    : "give the stream a buffer of at least 4 KiB (setvbuf with your own buffer).");
}

/* setvbuf(fp, NULL, _IOFBF, size): glibc ignores size and uses its default. */
static void rule_setvbuf_ignored(const struct st_report_file *f,
                                 struct st_finding *out, size_t *n, size_t max)
{
    for (size_t i = 0; i < f->nstreams; i++) {
        const struct st_report_stream *s = &f->streams[i];
        if (s->origin != ST_BUF_SIZE_IGNORED || s->requested_buffer_size == s->buffer_size)
            continue;
        struct st_finding *x = next(out, n, max, "setvbuf-size-ignored", f, 0, setvbufs);
        if (!x)
            return;
        char b1[32], b2[32];
        snprintf(x->what, sizeof x->what,
                 "setvbuf on %s asked for a %s buffer with a NULL pointer; glibc ignores the "
                 "size then and used %s.",
                 f->path, st_fmt_bytes(b1, sizeof b1, s->requested_buffer_size),
                 st_fmt_bytes(b2, sizeof b2, s->buffer_size));
        snprintf(x->change, sizeof x->change,
                 "pass a buffer of your own: setvbuf(fp, buf, _IOFBF, size).");
        return;
    }
}

/* ftell or SEEK_CUR while glibc does not know the offset: an lseek each. */
static void rule_ftell_lseek(const struct st_report_file *f,
                             struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    uint64_t lseeks = c->by_call[ST_CALL_FTELL].lseek_syscalls +
                      c->by_call[ST_CALL_FGETPOS].lseek_syscalls;
    if (lseeks < 10 * MIN_CALLS)
        return;
    struct st_finding *x = next(out, n, max, "ftell-lseek", f, lseeks * ST_SYSCALL_COST_BYTES,
                                tell_lseeks);
    if (!x)
        return;
    char n1[32], n2[32];
    snprintf(x->what, sizeof x->what,
             "%s ftell/fgetpos calls on %s made %s lseek syscalls because glibc did not "
             "know the stream's file offset.",
             st_fmt_count(n1, sizeof n1,
                          c->by_call[ST_CALL_FTELL].calls + c->by_call[ST_CALL_FGETPOS].calls),
             f->path, st_fmt_count(n2, sizeof n2, lseeks));
    snprintf(x->change, sizeof x->change,
             "count the bytes you consume yourself, or make one fseek(fp, 0, SEEK_SET) after "
             "fopen so glibc knows the offset.");
}

/* A read/write stream ("w+", "r+") that the program seeks and writes small
 * records on: each seek writes back what was put, and glibc fills the whole
 * buffer from the file before the next small write lands in it. The reads
 * deliver nothing to the program: neither a discarded buffer it read from
 * nor a re-read of its own. */
static void rule_read_modify_write(const struct st_report_file *f,
                                   struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    uint64_t fills = seek_reads(c);
    if (c->flushes_seek < MIN_CALLS || fills < MIN_CALLS || !c->written_bytes ||
        st_counts_wasted_bytes(c) < MIN_WASTE)
        return;
    struct st_finding *x = next(out, n, max, "read-modify-write", f, st_counts_wasted_bytes(c),
                                seek_reads);
    if (!x)
        return;
    char n1[32], n2[32], n3[32], b1[32], b2[32], b3[32];
    snprintf(x->what, sizeof x->what,
             "%s seeks on %s wrote back what was put (%s writes of %s in all) and glibc read "
             "the buffer from the file before the next write (%s reads of %s), for %s handed "
             "over.",
             st_fmt_count(n1, sizeof n1, c->flushes_seek), f->path,
             st_fmt_count(n2, sizeof n2, c->write_syscalls),
             st_fmt_bytes(b1, sizeof b1, c->kernel_write_bytes),
             st_fmt_count(n3, sizeof n3, fills),
             st_fmt_bytes(b2, sizeof b2, c->kernel_read_bytes),
             st_fmt_bytes(b3, sizeof b3, c->written_bytes));
    snprintf(x->change, sizeof x->change,
             "open it write-only (\"w\" or \"a\") if you do not read it back, or pwrite() "
             "each record at its offset.");
}

/* An unbuffered stream (_IONBF, or stderr) writing records: each fwrite,
 * fputs or fprintf is a write syscall of its own, each putc one of a
 * byte. */
static void rule_unbuffered_writes(const struct st_report_file *f,
                                   struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    uint64_t w = c->flushes_unbuffered;
    if (w < 10 * MIN_CALLS || w * 2 <= c->write_syscalls ||
        c->kernel_write_bytes / c->write_syscalls >= SMALL_WRITE)
        return;
    struct st_finding *x = next(out, n, max, "unbuffered-writes", f,
                                w * ST_SYSCALL_COST_BYTES, writes);
    if (!x)
        return;
    char n1[32], n2[32], b1[32], b2[32], b3[32];
    snprintf(x->what, sizeof x->what,
             "%s is unbuffered: %s of its %s write syscalls wrote one call's bytes each, "
             "%s on average (%s in all).",
             f->path, st_fmt_count(n1, sizeof n1, w),
             st_fmt_count(n2, sizeof n2, c->write_syscalls),
             st_fmt_bytes(b1, sizeof b1, c->kernel_write_bytes / c->write_syscalls),
             st_fmt_bytes(b2, sizeof b2, c->kernel_write_bytes));
    snprintf(x->change, sizeof x->change,
             "give the stream full buffering (setvbuf(fp, NULL, _IOFBF, 0)): about %s write "
             "syscall%s with a %s buffer.",
             st_fmt_count(n1, sizeof n1, blocks_of(c->kernel_write_bytes, PREDICT_BUFFER)),
             plural_s(blocks_of(c->kernel_write_bytes, PREDICT_BUFFER)),
             st_fmt_bytes(b3, sizeof b3, PREDICT_BUFFER));
}

/* fflush after every record to a file: the buffer never fills, each
 * record is a write syscall (on a pipe or a terminal the reader may be
 * waiting for each one). */
static void rule_fflush_per_record(const struct st_report_file *f,
                                   struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    const struct st_call_cost *ff = &c->by_call[ST_CALL_FFLUSH];
    if (!regular_path(f->path) || ff->write_syscalls < 10 * MIN_CALLS ||
        ff->write_syscalls * 2 <= c->write_syscalls ||
        ff->kernel_write_bytes / ff->write_syscalls >= SMALL_WRITE)
        return;
    struct st_finding *x = next(out, n, max, "fflush-per-record", f,
                                ff->write_syscalls * ST_SYSCALL_COST_BYTES, fflush_writes);
    if (!x)
        return;
    uint64_t buf = write_buffer(f);
    char n1[32], n2[32], b1[32], b2[32], b3[32];
    snprintf(x->what, sizeof x->what,
             "%s fflush calls on %s made %s write syscalls of %s on average (%s in all): "
             "the buffer is emptied after every record.",
             st_fmt_count(n1, sizeof n1, ff->calls), f->path,
             st_fmt_count(n2, sizeof n2, ff->write_syscalls),
             st_fmt_bytes(b1, sizeof b1, ff->kernel_write_bytes / ff->write_syscalls),
             st_fmt_bytes(b2, sizeof b2, ff->kernel_write_bytes));
    snprintf(x->change, sizeof x->change,
             "drop the fflush (or flush once at the end, or every few hundred records): "
             "about %s write syscall%s with the %s buffer.",
             st_fmt_count(n1, sizeof n1, blocks_of(c->kernel_write_bytes, buf)),
             plural_s(blocks_of(c->kernel_write_bytes, buf)),
             st_fmt_bytes(b3, sizeof b3, buf));
}

/* A regular file written through a line-buffered stream: a write syscall
 * per line, though no one reads the file line by line as it grows. */
static void rule_line_buffered_file(const struct st_report_file *f,
                                    struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    int line = 0;
    for (size_t i = 0; i < f->nstreams; i++)
        line |= f->streams[i].mode == ST_BUF_LINE && f->streams[i].counts.flushes_newline;
    if (!line || !regular_path(f->path) || c->flushes_newline < 10 * MIN_CALLS ||
        c->flushes_newline * 2 <= c->write_syscalls)
        return;
    struct st_finding *x = next(out, n, max, "line-buffered-file", f,
                                c->flushes_newline * ST_SYSCALL_COST_BYTES, newline_flushes);
    if (!x)
        return;
    uint64_t buf = write_buffer(f);
    char n1[32], n2[32], b1[32], b2[32];
    snprintf(x->what, sizeof x->what,
             "%s is a regular file written through a line-buffered stream: %s of its %s "
             "write syscalls wrote one line each (%s in all).",
             f->path, st_fmt_count(n1, sizeof n1, c->flushes_newline),
             st_fmt_count(n2, sizeof n2, c->write_syscalls),
             st_fmt_bytes(b1, sizeof b1, c->kernel_write_bytes));
    snprintf(x->change, sizeof x->change,
             "give it full buffering (setvbuf(fp, NULL, _IOFBF, 0), or drop the _IOLBF): about "
             "%s write syscall%s with a %s buffer.",
             st_fmt_count(n1, sizeof n1, blocks_of(c->kernel_write_bytes, buf)),
             plural_s(blocks_of(c->kernel_write_bytes, buf)),
             st_fmt_bytes(b2, sizeof b2, buf));
}

/* Seeks on a write stream, each writing back a buffer holding a record or
 * two: a write syscall (and an lseek) per record, the buffer wasted. */
static void rule_seek_flushes_buffer(const struct st_report_file *f,
                                     struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    uint64_t w = seek_writes(c);
    uint64_t bytes = c->by_call[ST_CALL_FSEEK].kernel_write_bytes +
                     c->by_call[ST_CALL_FSETPOS].kernel_write_bytes +
                     c->by_call[ST_CALL_REWIND].kernel_write_bytes;
    uint64_t buf = write_buffer(f);
    /* A read/write stream that also fills its buffer at each seek is
     * read-modify-write's, said once there. */
    if (w < MIN_CALLS || bytes / w * 2 >= buf || seek_reads(c) >= MIN_CALLS)
        return;
    uint64_t seeks = c->by_call[ST_CALL_FSEEK].calls + c->by_call[ST_CALL_FSETPOS].calls +
                     c->by_call[ST_CALL_REWIND].calls;
    struct st_finding *x = next(out, n, max, "seek-flushes-buffer", f,
                                w * ST_SYSCALL_COST_BYTES, seek_writes);
    if (!x)
        return;
    char n1[32], n2[32], n3[32], b1[32], b2[32], b3[32];
    snprintf(x->what, sizeof x->what,
             "%s of %s seeks on %s wrote back a partly filled %s buffer: %s on average, "
             "%s in all.",
             st_fmt_count(n1, sizeof n1, w), st_fmt_count(n2, sizeof n2, seeks), f->path,
             st_fmt_bytes(b1, sizeof b1, buf), st_fmt_bytes(b2, sizeof b2, bytes / w),
             st_fmt_bytes(b3, sizeof b3, bytes));
    snprintf(x->change, sizeof x->change,
             "pwrite() each record at its offset (%s write syscalls and no lseeks, against %s "
             "writes and %s lseeks), or sort the records by offset and write them in one pass.",
             st_fmt_count(n1, sizeof n1, w), st_fmt_count(n2, sizeof n2, c->write_syscalls),
             st_fmt_count(n3, sizeof n3, c->lseek_syscalls));
}

/* The program's own small write() calls, which a buffer would gather. */
static void rule_small_direct_writes(const struct st_report_file *f,
                                     struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    uint64_t w = direct_writes(c);
    if (w < 10 * MIN_CALLS || w * 2 <= c->write_syscalls ||
        c->kernel_write_bytes / c->write_syscalls >= SMALL_WRITE)
        return;
    struct st_finding *x = next(out, n, max, "small-direct-writes", f,
                                c->write_syscalls * ST_SYSCALL_COST_BYTES, direct_writes);
    if (!x)
        return;
    char n1[32], n2[32], b1[32], b2[32];
    snprintf(x->what, sizeof x->what,
             "on %s, the program's own write()/pwrite() calls made %s of its %s write syscalls, "
             "%s on average (%s in all).",
             f->path, st_fmt_count(n1, sizeof n1, w),
             st_fmt_count(n2, sizeof n2, c->write_syscalls),
             st_fmt_bytes(b1, sizeof b1, c->kernel_write_bytes / c->write_syscalls),
             st_fmt_bytes(b2, sizeof b2, c->kernel_write_bytes));
    snprintf(x->change, sizeof x->change,
             "buffer the writes (a stdio stream, or your own 64 KiB block written when full): "
             "about %s write syscall%s in 64 KiB blocks.",
             st_fmt_count(n1, sizeof n1, blocks_of(c->kernel_write_bytes, 65536)),
             plural_s(blocks_of(c->kernel_write_bytes, 65536)));
}

/* The same bytes read from the kernel again and again. */
static void rule_reread(const struct st_report_file *f,
                        struct st_finding *out, size_t *n, size_t max)
{
    const struct st_counts *c = &f->counts;
    if (c->reread_bytes < MIN_WASTE || c->reread_bytes * 2 < c->kernel_read_bytes)
        return;
    /* Discarded stream buffers are re-read by nature, and so are the
     * buffers a read/write stream fills before each write: said once,
     * there. */
    for (size_t i = 0; i < *n; i++)
        if (out[i].file == f && (strcmp(out[i].rule, "fseek-discards-buffer") == 0 ||
                                 strcmp(out[i].rule, "read-modify-write") == 0))
            return;
    struct st_finding *x = next(out, n, max, "reread", f, c->reread_bytes, rereads);
    if (!x)
        return;
    char b1[32], b2[32];
    snprintf(x->what, sizeof x->what,
             "%s of the %s read from %s had been read before by this process.",
             st_fmt_bytes(b1, sizeof b1, c->reread_bytes),
             st_fmt_bytes(b2, sizeof b2, c->kernel_read_bytes), f->path);
    snprintf(x->change, sizeof x->change,
             "keep what you read (a larger cache of your own), or read each region once.");
}

typedef void (*rule_fn)(const struct st_report_file *, struct st_finding *, size_t *, size_t);

static const rule_fn rules[] = {
    rule_fseek_discards, rule_resync_lseek, rule_small_reads,
    rule_setvbuf_ignored, rule_ftell_lseek, rule_read_modify_write, rule_reread,
    rule_unbuffered_writes, rule_fflush_per_record, rule_line_buffered_file,
    rule_seek_flushes_buffer, rule_small_direct_writes,
};

/* ## The storage tier: rules on the process's device figures
 * (docs/storage.md), said on the file the kernel read most from. */
#define MIN_TIER_BYTES (8u << 20)
#define CACHE_SHARE 10   /* page-cache-copies: the device read at most 1/10 */
#define OVERFETCH 2      /* readahead-overfetch: the device read 2x what was copied */
#define TIER_RANK 16     /* page-cache-copies ranks at 1/16 of the waste it explains */

static const struct st_report_file *most_read(const struct st_report *r)
{
    const struct st_report_file *best = NULL;
    for (size_t i = 0; i < r->nfiles; i++)
        if (!best || r->files[i].counts.kernel_read_bytes > best->counts.kernel_read_bytes)
            best = &r->files[i];
    return best && best->counts.kernel_read_bytes ? best : NULL;
}

/* Seeks and positioned reads: the program jumps about the file. */
static uint64_t jumps(const struct st_counts *c)
{
    return c->lseek_syscalls + c->by_call[ST_CALL_PREAD].read_syscalls +
           c->by_call[ST_CALL_FSEEK].calls + c->by_call[ST_CALL_FSETPOS].calls;
}

/* The 2006 case under the syscalls: the kernel copied far more than the
 * program used, and nearly all of it from the page cache. */
static void rule_page_cache_copies(const struct st_report *r, struct st_finding *out, size_t *n,
                                   size_t max)
{
    const struct st_report_storage *s = &r->storage;
    const struct st_counts *t = &r->totals;
    const struct st_report_file *f = most_read(r);
    uint64_t waste = st_counts_wasted_bytes(t);
    if (!s->measured || !f || waste < MIN_TIER_BYTES ||
        st_counts_amplification(t) < MIN_AMPLIFICATION ||
        s->device_read_bytes > t->kernel_read_bytes / CACHE_SHARE)
        return;
    /* Ranked after the file's own finding, which says what to change. */
    struct st_finding *x = next(out, n, max, "page-cache-copies", f, waste / TIER_RANK, reads);
    if (!x)
        return;
    char b1[32], b2[32], b3[32], b4[32], a[32];
    snprintf(x->what, sizeof x->what,
             "readahead will not help: %s came from the page cache; the buffer size will. "
             "The kernel copied %s to deliver %s (%s) and the device read %s.",
             st_fmt_bytes(b1, sizeof b1, t->kernel_read_bytes - s->device_read_bytes),
             st_fmt_bytes(b2, sizeof b2, t->kernel_read_bytes),
             st_fmt_bytes(b3, sizeof b3, t->delivered_bytes),
             st_fmt_ratio(a, sizeof a, st_counts_amplification(t)),
             st_fmt_bytes(b4, sizeof b4, s->device_read_bytes));
    snprintf(x->change, sizeof x->change,
             "make each read copy less (a smaller buffer or pread() of the bytes needed, on %s); "
             "readahead and fadvise change what the device reads, not what the kernel copies.",
             f->path);
}

/* Readahead that ramps up past the end of every short run the program
 * reads at a random place: the device reads what nobody asks for. */
static void rule_readahead_overfetch(const struct st_report *r, struct st_finding *out,
                                     size_t *n, size_t max)
{
    const struct st_report_storage *s = &r->storage;
    const struct st_counts *t = &r->totals;
    const struct st_report_file *f = most_read(r);
    if (!s->measured || !f || s->device_read_bytes < MIN_TIER_BYTES ||
        s->device_read_bytes < OVERFETCH * t->kernel_read_bytes || jumps(t) < MIN_CALLS)
        return;
    struct st_finding *x = next(out, n, max, "readahead-overfetch", f,
                                s->device_read_bytes - t->kernel_read_bytes, reads);
    if (!x)
        return;
    char b1[32], b2[32], n1[32], a[32];
    snprintf(x->what, sizeof x->what,
             "the device read %s for the %s the kernel handed over (%s) to a program that "
             "jumped %s times: readahead fetched past the short runs it reads.",
             st_fmt_bytes(b1, sizeof b1, s->device_read_bytes),
             st_fmt_bytes(b2, sizeof b2, t->kernel_read_bytes),
             st_fmt_ratio(a, sizeof a, (double)s->device_read_bytes /
                                           (double)(t->kernel_read_bytes ? t->kernel_read_bytes : 1)),
             st_fmt_count(n1, sizeof n1, jumps(t)));
    snprintf(x->change, sizeof x->change,
             "posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) on %s (SEEKTRACE_FADVISE=random tries it; "
             "seektrace sweep --cold --fadvise normal,random measures both).",
             f->path);
}

typedef void (*process_rule_fn)(const struct st_report *, struct st_finding *, size_t *, size_t);

static const process_rule_fn process_rules[] = {
    rule_page_cache_copies, rule_readahead_overfetch,
};

static int costlier_first(const void *pa, const void *pb)
{
    uint64_t a = ((const struct st_finding *)pa)->cost, b = ((const struct st_finding *)pb)->cost;
    return a == b ? 0 : a > b ? -1 : 1;
}

int st_file_has_findings(const struct st_report_file *f)
{
    /* Each rule adds at most one finding, and returns before its sentences
     * unless it fires: a file that fires none costs a few comparisons. */
    struct st_finding scratch[sizeof rules / sizeof rules[0]];
    size_t n = 0;
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
        rules[k](f, scratch, &n, sizeof scratch / sizeof scratch[0]);
    return n > 0;
}

size_t st_find_problems(const struct st_report *r, struct st_finding *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct st_report_file *f = &r->files[i];
        if (f->processes > 1 && !f->processes_with_findings)
            continue; /* a sum of many processes, none of which had a problem */
        for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
            rules[k](f, out, &n, max);
    }
    for (size_t k = 0; k < sizeof process_rules / sizeof process_rules[0]; k++)
        process_rules[k](r, out, &n, max);
    st_sort(out, n, sizeof *out, costlier_first);
    return n;
}
