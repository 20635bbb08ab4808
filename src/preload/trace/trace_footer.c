/* trace_footer.c — the footer at exit: the process's final accounts, the
 * very report printed at exit (st_report), encoded as trace_format.h's
 * "Footer" records after the last chunk, and the header marked finished.
 * Its FILE records are the files the process still holds; those it folded
 * away while it ran wrote theirs into rows chunks (trace_rows.c), which
 * the ROWS record lists. Before it, the last word on every recorded
 * stream (its buffer, and that the process ended with it open); after it,
 * nothing more is recorded and the file is cut behind it. */
#define _GNU_SOURCE 1
#include "trace_writer.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bulk.h"
#include "files.h"
#include "report_model.h"
#include "streams.h"
#include "thread_state.h"
#include "trace_clock.h"
#include "trace_codec.h"
#include "trace_writer_internal.h"
#include "warn.h"

static uint8_t counts_scratch[16384] ST_BULK;

/* Appends to *p (NULL: only counts) and returns the bytes it would take. */
struct sink {
    uint8_t *p;
    size_t n;
};

static void sink_bytes(struct sink *k, const void *data, size_t len)
{
    if (!len)
        return;
    if (k->p) {
        memcpy(k->p, data, len);
        k->p += len;
    }
    k->n += len;
}

static void sink_u(struct sink *k, uint64_t v)
{
    uint8_t tmp[ST_VARINT_MAX];
    sink_bytes(k, tmp, (size_t)(st_put_u(tmp, v) - tmp));
}

static void sink_s(struct sink *k, int64_t v)
{
    sink_u(k, st_zigzag(v));
}

static void sink_str(struct sink *k, const char *s)
{
    size_t len = s ? st_tw_bounded_len(s, MAX_PATH) : 0;
    sink_u(k, len);
    sink_bytes(k, s, len);
}

static void sink_counts(struct sink *k, const struct st_counts *c)
{
    sink_bytes(k, counts_scratch, (size_t)(st_counts_encode(counts_scratch, c) - counts_scratch));
}

static void enc_process(struct sink *k, const struct st_report *r)
{
    sink_u(k, (uint64_t)r->pid);
    sink_u(k, (uint64_t)r->ppid);
    sink_u(k, (uint64_t)(r->argc > 0 ? r->argc : 0));
    for (int i = 0; i < r->argc; i++)
        sink_str(k, r->argv[i]);
    sink_str(k, r->capture);
    sink_str(k, r->capture_reason);
}

static void enc_file(struct sink *k, const struct st_report_file *f)
{
    sink_str(k, f->path);
    sink_counts(k, &f->counts);
    sink_u(k, f->nstreams);
    for (size_t i = 0; i < f->nstreams; i++) {
        const struct st_report_stream *s = &f->streams[i];
        sink_s(k, s->fd);
        sink_u(k, s->buffer_size);
        sink_u(k, s->requested_buffer_size);
        uint8_t b = (uint8_t)((unsigned)s->mode | (unsigned)s->origin << 4);
        sink_bytes(k, &b, 1);
        sink_str(k, s->caveat);
        sink_counts(k, &s->counts);
    }
    sink_u(k, f->nsites);
    for (size_t i = 0; i < f->nsites; i++) {
        const struct st_report_site *site = &f->sites[i];
        int n = site->frames ? site->nframes : 0;
        sink_u(k, (uint64_t)n);
        for (int j = 0; j < n; j++) {
            const struct st_report_frame *fr = &site->frames[j];
            sink_str(k, fr->function);
            sink_str(k, fr->source);
            sink_u(k, (uint64_t)(fr->line > 0 ? fr->line : 0));
            sink_str(k, fr->module);
            sink_u(k, fr->offset);
        }
        sink_counts(k, &site->counts);
    }
}

static void enc_stats(struct sink *k, uint64_t end_ns, uint64_t lost)
{
    sink_u(k, end_ns);
    sink_u(k, lost);
}

static void enc_storage(struct sink *k, const struct st_report *r,
                        const struct st_trace_rows *rows)
{
    const struct st_report_storage *s = &r->storage;
    sink_u(k, (s->measured ? ST_FOOT_STORAGE_MEASURED : 0) |
                  (s->per_file ? ST_FOOT_STORAGE_PER_FILE : 0));
    sink_u(k, s->device_read_bytes);
    sink_u(k, s->device_write_bytes);
    sink_str(k, s->measured ? NULL : s->why_not);
    /* Every row is measured or none is (storage.c). */
    int each = s->measured && s->per_file;
    sink_u(k, each ? rows->n : 0);
    for (size_t i = 0; each && i < rows->n; i++) {
        sink_u(k, i);
        sink_u(k, rows->row(i)->device_read_bytes);
    }
}

static void enc_rows(struct sink *k, const struct st_tw_rows_chunk *list, size_t n)
{
    sink_u(k, n);
    for (size_t i = 0; i < n; i++) {
        sink_u(k, list[i].index);
        sink_u(k, list[i].used);
        sink_u(k, list[i].crc);
    }
}

/* Each record: tag, length, body — the body measured, then written (when
 * only counting, the measure is the count: a file's row of counts is
 * kilobytes, encoded three times a footer rather than four). */
#define RECORD(k, tag, enc, ...)                                                     \
    do {                                                                             \
        struct sink m_ = {NULL, 0};                                                  \
        enc(&m_, __VA_ARGS__);                                                       \
        sink_u(k, tag);                                                              \
        sink_u(k, m_.n);                                                             \
        if ((k)->p)                                                                  \
            enc(k, __VA_ARGS__);                                                     \
        else                                                                         \
            (k)->n += m_.n;                                                          \
    } while (0)

/* The same bytes each time for the same arguments: measured once, then
 * written into exactly that room. */
static void enc_footer(struct sink *k, const struct st_report *r,
                       const struct st_trace_rows *rows, uint64_t end_ns, uint64_t lost)
{
    RECORD(k, ST_FOOT_PROCESS, enc_process, r);
    for (size_t i = 0; i < rows->n; i++) {
        const struct st_report_file *f = rows->row(i);
        RECORD(k, ST_FOOT_FILE, enc_file, f);
    }
    RECORD(k, ST_FOOT_STATS, enc_stats, end_ns, lost);
    RECORD(k, ST_FOOT_STORAGE, enc_storage, r, rows);
    const struct st_tw_rows_chunk *list;
    size_t n = st_tw_rows_chunks(&list);
    if (n)
        RECORD(k, ST_FOOT_ROWS, enc_rows, list, n);
}

size_t st_tw_file_record(uint8_t *p, const struct st_report_file *f)
{
    struct sink k = {p, 0};
    RECORD(&k, ST_FOOT_FILE, enc_file, f);
    return k.n;
}

/* The last word on each recorded stream: its buffer as it ended (it may
 * have changed where no event said so, e.g. set by a path we do not hook;
 * rebuilt reports then match), and for one still open, that the process
 * ended with it so (glibc's exit cleanup has run by now; its syscalls are
 * recorded). */
static void sync_buffers(void)
{
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        for (struct st_stream *s = f->streams; s; s = s->next_in_file)
            if (st_tw_id_of(&s->owner.trace_id)) { /* never recorded: leave it so */
                st_trace_buffer_(s);
                if (!s->closed)
                    st_trace_op_(s, ST_OP_EXIT, 0, 0, 0, 0);
            }
}

void st_trace_finish(const struct st_report *r, const struct st_trace_rows *rows)
{
    if (!__atomic_load_n(&st_trace_on, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&st_tw.state, __ATOMIC_ACQUIRE) != READY || st_tw.finished)
        return;
    __atomic_store_n(&st_tw.finished, 1, __ATOMIC_RELEASE);
    st_self.busy++;
    int saved = errno;
    /* Called from a fatal-signal handler that interrupted this thread's
     * own writing, nothing more may go into its chunk. */
    if (!st_tw_self.writing)
        sync_buffers();
    /* From here on nothing is recorded: the footer is the final word. No
     * chunk is handed out after the footer's (the file is cut behind it):
     * max_chunks is stored before the footer takes its chunks. */
    st_tw_set_on(0);
    __atomic_store_n(&st_tw.max_chunks, 0, __ATOMIC_RELEASE);
    uint64_t end_ns = st_trace_clock_anchor();
    uint64_t lost = __atomic_load_n(&st_tw.hdr->events_lost, __ATOMIC_RELAXED);
    struct sink measure = {NULL, 0};
    enc_footer(&measure, r, rows, end_ns, lost);
    size_t total = ST_TRACE_FOOTER_FRAME + measure.n;
    uint64_t nchunks = (total + CHUNK_SIZE - 1) / CHUNK_SIZE;
    uint64_t idx = __atomic_fetch_add(&st_tw.next_chunk, nchunks, __ATOMIC_ACQ_REL);
    uint64_t off = st_tw_chunk_offset(idx), len = nchunks * CHUNK_SIZE;
    void *map = NULL;
    uint32_t reason = st_tw_lock_file() == 0 ? ST_TRACE_STOP_NONE : ST_TRACE_STOP_IO_ERROR;
    if (!reason) {
        /* The file ends right behind the footer's last byte (every event
         * chunk lies before it; none is handed out after it): grown to
         * there, or cut there when space was allocated ahead, at once, so
         * that no descriptor of ours is open while the footer is written
         * (the program's other threads run on, and could close its number
         * or open a file of theirs on it). The blocks under the footer are
         * allocated: writing it cannot fail. */
        long fd = st_tw_reopen();
        uint64_t end = off + total;
        reason = fd < 0 ? st_tw_stop_reason(errno) : st_tw_file_at(fd, end, end, off, len, &map);
        if (!reason && __atomic_load_n(&st_tw.file_size, __ATOMIC_ACQUIRE) > end)
            syscall(SYS_ftruncate, (int)fd, (off_t)end);
        if (fd >= 0)
            st_tw_close(fd);
        st_spin_unlock(&st_tw.grow_lock);
    }
    if (!map) { /* reason says why */
        st_tw_stop_recording(reason);
        st_warn("no room for the footer of %s: %s; the trace stays partial", st_tw_paths.path,
                st_trace_stop_text(reason));
        goto out;
    }
    uint8_t *frame = map;
    struct sink w = {frame + ST_TRACE_FOOTER_FRAME, 0};
    enc_footer(&w, r, rows, end_ns, lost);
    uint32_t length = (uint32_t)w.n, crc = st_crc32(0, frame + ST_TRACE_FOOTER_FRAME, w.n);
    static const uint8_t footer_magic[8] = {'S', 'K', 'F', 'O', 'O', 'T', 'E', 'R'};
    memcpy(frame, footer_magic, sizeof footer_magic);
    memcpy(frame + 8, &length, 4);
    memcpy(frame + 12, &crc, 4);
    memset(frame + 16, 0, 8);
    syscall(SYS_munmap, map, len);
    struct st_trace_header *h = st_tw.hdr;
    uint64_t chunks = idx + nchunks, cur = __atomic_load_n(&h->chunks, __ATOMIC_RELAXED);
    if (cur < chunks)
        __atomic_store_n(&h->chunks, chunks, __ATOMIC_RELEASE);
    h->footer_offset = off;
    h->footer_size = total;
    h->end_ns = end_ns;
    __atomic_store_n(&h->state, ST_TRACE_STATE_FINISHED, __ATOMIC_RELEASE);
out:
    errno = saved;
    st_self.busy--;
}
