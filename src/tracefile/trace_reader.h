/* trace_reader.h — reading a trace file, one event at a time.
 *
 * Streaming and bounded: the reader holds one block of chunks (1 MiB) and
 * the header, whatever the size of the trace. It never trusts the file:
 * every length, id and varint is checked, and anything wrong is reported as
 * one line naming the file, what is wrong and the byte offset where — never
 * a crash, never a loop that does not end (every step consumes input).
 *
 * Used by the seektrace command only (it allocates with malloc and reads
 * with pread), never inside a traced program. */
#ifndef SEEKTRACE_TRACE_READER_H
#define SEEKTRACE_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "report_model.h"
#include "seektrace/trace_format.h"

#define ST_TRACE_ERROR_MAX 640

/* What the header says about the process and the trace. */
struct st_trace_info {
    unsigned version_major, version_minor;
    long pid, ppid;
    uint64_t start_realtime_ns, start_ns, end_ns;
    uint32_t header_size, chunk_size, flags;
    uint64_t file_size;
    uint64_t chunks;      /* chunk slots that hold data, upper bound */
    uint64_t cap_bytes;
    uint64_t events_lost;
    int finished;         /* state FINISHED and a footer */
    int truncated;        /* recording stopped early (stop_reason: why) */
    uint32_t stop_reason; /* ST_TRACE_STOP_*: 0 before format 3.1 */
    int lost;             /* events were counted but not recorded */
    uint64_t footer_offset, footer_size;
    int argc;
    char **argv;          /* argc strings */
    char *exe, *capture, *capture_reason, *host, *parent_trace; /* NULL if absent */
    char *libc_version;                                         /* NULL if absent */
    int nlabels;
    char **labels;        /* nlabels "KEY=VALUE" strings (4.2; none before) */
    size_t ncalls;
    uint8_t call_map[256]; /* trace call index -> local enum st_call (ST_CALL_OTHER if unknown) */
};

/* "complete", "truncated" or "partial" (trace_format.h). */
const char *st_trace_status(const struct st_trace_info *info);

/* One decoded event. Which fields mean something depends on kind
 * (ST_EV_*, trace_format.h); strings point into the reader's block and
 * stay valid until the next call. */
struct st_trace_event {
    unsigned kind;
    uint32_t tid;
    uint64_t chunk;       /* chunk index */
    uint64_t file_offset; /* where the event starts in the file */
    uint64_t time_ns;     /* start, on the trace's clock */
    uint64_t dur_ns;
    uint32_t target;      /* the cell counting events apply to (0: none) */
    uint32_t id;          /* the object a definition defines; BUF/CLOSE's stream */
    int call;             /* local enum st_call, -1 when the event names none */
    int counted;          /* CALL: calls += 1 on target */
    int64_t offset;       /* READ, WRITE_AT: file offset (-1 unknown) */
    int64_t result;       /* READ, WRITE, WRITE_AT: bytes; LSEEK: new offset, -1 failed */
    uint64_t reread;      /* READ_REREAD, REREAD */
    uint64_t requested, delivered; /* DELIVER */
    int kept;             /* SEEK */
    uint64_t resync;      /* SEEK kept */
    int cause;            /* FLUSH: ST_FLUSH_* (flush_cause.h) */
    uint32_t owner, file, site; /* CELL_DEF owner/site, STREAM_DEF file */
    int fd;               /* STREAM_DEF */
    uint64_t ordinal, buffer_size, requested_buffer_size; /* STREAM_DEF, BUF */
    unsigned buf_mode, buf_origin;
    const char *str;      /* FILE_DEF path, MODULE path, MARK label, STREAM_DEF/BUF caveat */
    size_t str_len;       /* (0: no caveat) */
    uint64_t start, length, module_offset; /* MODULE */
    uint64_t n;           /* LOST, WRITTEN; OP: SIZE size, FREAD/GETC_RUN/FGETS n, GETDELIM len */
    unsigned op;          /* OP: ST_OP_* (id: the stream; offset: OPEN/FSEEK offset;
                           * result: FGETS len; call: OTHER's call) */
    int op_flag;          /* OP: the op's F1 flag */
    unsigned whence;      /* OP FSEEK */
    size_t nframes;       /* SITE_DEF */
    uint64_t frames[16];  /* (not cleared between events) */
};

struct st_trace_reader;

/* Opens path and reads its header. Returns NULL with a one-line message in
 * err (naming the file) when it is not a trace this build can read. */
struct st_trace_reader *st_trace_open(const char *path, char err[ST_TRACE_ERROR_MAX]);
/* The same on an open descriptor (the reader owns it from now on); path
 * only names it in messages. */
struct st_trace_reader *st_trace_open_fd(int fd, const char *path, char err[ST_TRACE_ERROR_MAX]);
void st_trace_close(struct st_trace_reader *r);

const struct st_trace_info *st_trace_info(const struct st_trace_reader *r);
const char *st_trace_path(const struct st_trace_reader *r);

/* The next event in file order (events of one thread are in time order;
 * threads interleave by chunk). Returns 1 with *ev filled, 0 at the end,
 * -1 on bad input (message in err). */
int st_trace_next(struct st_trace_reader *r, struct st_trace_event *ev,
                  char err[ST_TRACE_ERROR_MAX]);

/* Bytes of event data read so far and chunks visited (for statistics and
 * progress). */
uint64_t st_trace_bytes_read(const struct st_trace_reader *r);
uint64_t st_trace_chunks_read(const struct st_trace_reader *r);

/* The footer of a finished trace as a report: what the process printed at
 * exit. Everything the report points to is allocated in one block owned by
 * the caller (free(*block)). Returns 1 when there is a footer, 0 when there
 * is none (partial trace), -1 on bad input (message in err). */
int st_trace_footer_report(struct st_trace_reader *r, struct st_report *out, void **block,
                           char err[ST_TRACE_ERROR_MAX]);

/* The same, keeping a row only for the files a report prints
 * (report_select.h): the `files` worst, the files of the `pairs` worst
 * (file, call site) pairs and of the first `findings` findings, each hint
 * rule's first and the most read; the others are summed exactly into
 * out->other and counted in out->nfiles_other, and totals are what they
 * are with every row. Rows kept keep the footer's order. Memory: the
 * footer's bytes while it is read, and the rows kept, whatever the number
 * of files. files 0, or a footer of at most every_up_to files: every file
 * gets a row (a report of those is then the same whatever the ties among
 * its rows). each_file, when not NULL, is called with every file of the
 * footer, kept or not (its strings and counts are valid during the call
 * only), once out's process fields (pid, ppid, argv, capture,
 * libc_version) are filled. */
struct st_footer_rows {
    size_t files, pairs, findings, every_up_to;
    void (*each_file)(void *ctx, const struct st_report_file *f);
    void *ctx;
};
int st_trace_footer_rows(struct st_trace_reader *r, const struct st_footer_rows *rows,
                         struct st_report *out, void **block, char err[ST_TRACE_ERROR_MAX]);

/* Frees what st_trace_footer_report allocated. */
void st_trace_mem_free(void *block);

/* What include/seektrace/events.def says of an event kind. */
struct st_trace_kind_info {
    const char *name;        /* for exports ("read", "lseek", "call", ...) */
    unsigned flags;          /* the header flags it may carry */
    int timed, dur, bytes;   /* has a dt; a duration; a byte count or offset */
    enum st_trace_role role; /* defines an object, happens, or steers */
};
/* NULL for a kind events.def does not have. */
const struct st_trace_kind_info *st_trace_kind(unsigned kind);
/* The kind's name, "?" when there is no such kind. */
const char *st_trace_kind_name(unsigned kind);
/* Stream operation names (ST_OP_*: "fread", "getc_run", ...). */
const char *st_trace_op_name(unsigned op);
/* An OP event's fields as the writer passed them (whatif_stream.h): n the
 * unsigned one (FSEEK: whence), x the signed one (OPEN/FSEEK: offset, FGETS:
 * bytes stored). */
void st_trace_op_fields(const struct st_trace_event *ev, uint64_t *n, int64_t *x);

#endif
