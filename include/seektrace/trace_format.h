/* seektrace/trace_format.h — the on-disk format of a seektrace trace file.
 *
 * Public and self-contained (C99 + <stdint.h>, and events.def beside it):
 * everything a program needs to read a trace without seektrace's own code. seektrace's reader
 * (src/tracefile/trace_reader.c) follows exactly what is written here.
 *
 * A traced process writes DIR/<name>.<pid>.sktrace (SEEKTRACE_TRACE=DIR),
 * where <name> is the basename of its argv[0] reduced to [A-Za-z0-9._-]. If
 * that name is taken (an exec'd image keeps its pid) ".<n>" is added before
 * ".sktrace".
 *
 * ## Layout
 *
 *     offset 0            struct st_trace_header   (fixed part, 256 bytes)
 *     offset 256          process info records     (info_size bytes)
 *     offset header_size  chunk 0, chunk 1, ...    (chunk_size bytes each)
 *
 * The file is written through a shared memory mapping while the process
 * runs, so whatever was recorded is in the file even if the process is
 * killed. While recording, its size is header_size + k * chunk_size; chunks
 * that were never written are all zero.
 *
 * The footer, written once when the process ends normally, starts at a
 * chunk boundary like the event chunks; the header's footer_offset and
 * footer_size say where. Chunk slots inside [footer_offset, footer_offset +
 * footer_size) are not event chunks, and a finished trace's file ends where
 * the footer does (its last chunk slot may be short). No event chunk lies
 * after the footer.
 *
 * ## Byte order
 *
 * All multi-byte integers in the header, chunk headers and footer frame are
 * in the writer's byte order; `endian` holds 0x01020304 as written, so a
 * reader on another machine detects a mismatch. seektrace only writes and
 * reads little-endian traces. Event payloads are byte streams (varints) and
 * have no byte order.
 *
 * ## Status of a trace
 *
 *     complete   state == ST_TRACE_STATE_FINISHED and a valid footer: the
 *                footer holds the final accounts, exactly what the report
 *                at exit printed.
 *     truncated  ST_TRACE_LIVE_TRUNCATED: recording stopped early; events
 *                after that point were counted in events_lost but not
 *                recorded. stop_reason says why (since 3.1; 0 in older
 *                traces, which stopped only at the size cap or, unsaid, a
 *                full disk). The footer (if any) still holds the full
 *                accounts.
 *     partial    state == ST_TRACE_STATE_RECORDING: the process never
 *                finished the trace (killed, crashed, exec'd; or the footer
 *                found no room, and stop_reason says why). Every event
 *                committed before that is readable; accounts are rebuilt
 *                from the events.
 *
 * ## Versioning
 *
 * version_major changes when a reader of the previous major version would
 * misread the file; a reader refuses majors it does not know. version_minor
 * grows when things are added that old readers can skip (new info record
 * tags, new footer record tags). New event kinds, and new flags on old
 * ones, need a new major.
 */
#ifndef SEEKTRACE_TRACE_FORMAT_H
#define SEEKTRACE_TRACE_FORMAT_H

#include <stdint.h>

#define ST_TRACE_MAGIC "\x89SKTRACE" /* 8 bytes, no NUL */
#define ST_TRACE_MAGIC_LEN 8
#define ST_TRACE_ENDIAN 0x01020304u
#define ST_TRACE_VERSION_MAJOR 5 /* 5 added rows chunks and the ROWS footer record, 4
                                  * WRITE_AT, WRITTEN and FLUSH events, 3 CALL's F2, 2 OP
                                  * events; 1 to 4 are still read */
#define ST_TRACE_VERSION_MINOR 0 /* 3.1 added stop_reason, 4.1 the STORAGE footer record,
                                  * 4.2 INFO_LABELS, 4.3 stdio's writes as WRITE_AT and
                                  * OTHER's F1 on writing calls */
#define ST_TRACE_FIXED_HEADER 256u
#define ST_TRACE_SUFFIX ".sktrace"

/* clock: what event times count. */
#define ST_TRACE_CLOCK_MONOTONIC 1 /* CLOCK_MONOTONIC, nanoseconds */

/* state */
#define ST_TRACE_STATE_RECORDING 0
#define ST_TRACE_STATE_FINISHED 1

/* live_flags */
#define ST_TRACE_LIVE_TRUNCATED 0x1u /* the size cap was reached */
#define ST_TRACE_LIVE_LOST 0x2u      /* some events could not be recorded */

/* stop_reason: why the file stopped taking events (or, with no footer, its
 * footer); the first reason is kept. */
#define ST_TRACE_STOP_NONE 0
#define ST_TRACE_STOP_CAP 1             /* the size cap (SEEKTRACE_TRACE_MAX) */
#define ST_TRACE_STOP_NO_SPACE 2        /* the file system was full (ENOSPC, EDQUOT) */
#define ST_TRACE_STOP_FILE_SIZE_LIMIT 3 /* the process's file size limit (EFBIG) */
#define ST_TRACE_STOP_NO_MEMORY 4       /* no address space to map the file (ENOMEM) */
#define ST_TRACE_STOP_FILE_GONE 5       /* the file was removed or replaced */
#define ST_TRACE_STOP_IO_ERROR 6        /* any other error growing or mapping it */

/* flags (fixed at creation) */
#define ST_TRACE_FLAG_INFERRED 0x1u /* capture "inferred": stdio syscalls unseen */

struct st_trace_header {
    uint8_t magic[8];       /* ST_TRACE_MAGIC */
    uint32_t endian;        /* ST_TRACE_ENDIAN */
    uint16_t version_major; /* ST_TRACE_VERSION_MAJOR */
    uint16_t version_minor;
    uint32_t header_size;   /* bytes before chunk 0; a multiple of 4096 */
    uint32_t chunk_size;    /* bytes per chunk, header included; multiple of 4096 */
    uint32_t info_size;     /* bytes of info records at offset 256 */
    uint32_t clock;         /* ST_TRACE_CLOCK_* */
    uint32_t flags;         /* ST_TRACE_FLAG_* */
    uint32_t stop_reason;   /* ST_TRACE_STOP_*, set while running (3.1;
                             * 0 before) */
    int64_t pid, ppid;
    uint64_t start_realtime_ns; /* CLOCK_REALTIME at creation, for people */
    uint64_t start_ns;          /* the event clock at creation */
    uint64_t cap_bytes;         /* size cap for event chunks */

    /* Updated while the process runs (the file is mapped), with
     * stop_reason. Byte offsets in the header: stop_reason 36, state 80,
     * live_flags 84, chunks 88, events_lost 96, footer_offset 104,
     * footer_size 112, end_ns 120. */
    uint32_t state;        /* ST_TRACE_STATE_* */
    uint32_t live_flags;   /* ST_TRACE_LIVE_* */
    uint64_t chunks;       /* chunk slots handed out so far (the footer's
                            * included once finished); a killed process
                            * may have written a few more */
    uint64_t events_lost;  /* events counted but not recorded */
    uint64_t footer_offset; /* 0 until finished */
    uint64_t footer_size;
    uint64_t end_ns;       /* the event clock when finished */
    uint8_t reserved[256 - 128];
};

/* ## Process info records (at offset 256, info_size bytes)
 *
 * A sequence of records: varint tag, varint length, `length` bytes. Unknown
 * tags are skipped. Strings are not NUL-terminated unless said. */
enum st_trace_info_tag {
    ST_TRACE_INFO_CALLS = 1,   /* the call-kind names, each NUL-terminated, in
                                * order: event call byte k means the k-th
                                * name ("fopen", "fread", ... see calls.def) */
    ST_TRACE_INFO_ARGV = 2,    /* argv, each argument NUL-terminated */
    ST_TRACE_INFO_EXE = 3,     /* /proc/self/exe at creation */
    ST_TRACE_INFO_CAPTURE = 4, /* "exact" or "inferred" */
    ST_TRACE_INFO_CAPTURE_REASON = 5,
    ST_TRACE_INFO_HOST = 6,    /* uname nodename */
    ST_TRACE_INFO_PARENT_TRACE = 7, /* the trace this process wrote before: its
                                     * parent's, when forked; its own finished
                                     * one, after an exec that failed */
    ST_TRACE_INFO_LIBC_VERSION = 8, /* gnu_get_libc_version(), e.g. "2.41" */
    ST_TRACE_INFO_LABELS = 9, /* 4.2: the run's labels (SEEKTRACE_LABELS), each
                               * "KEY=VALUE" NUL-terminated */
};

/* ## Chunks
 *
 * Each thread writes events into chunks of its own; a chunk belongs to one
 * thread. Decoding state (below) starts afresh in every chunk, so a chunk
 * can be decoded alone. Within a thread, chunks are in file order. */
#define ST_TRACE_CHUNK_MAGIC 0x48434b53u /* "SKCH" read as little-endian */
#define ST_TRACE_CHUNK_HEADER 32u

struct st_trace_chunk {
    uint32_t magic;      /* ST_TRACE_CHUNK_MAGIC, or 0: never written */
    uint32_t tid;        /* the writing thread */
    uint32_t index;      /* this chunk's number in the file */
    uint32_t thread_seq; /* the thread's 0th, 1st, ... chunk */
    uint32_t used;       /* bytes of complete events after this header;
                          * written after each event, so a reader never
                          * sees half an event */
    uint32_t flags;      /* 0, or ST_TRACE_CHUNK_ROWS (5.0) */
    uint64_t base_ns;    /* the event clock when the chunk was started */
};

/* A rows chunk (5.0) holds no events: its `used` bytes are footer FILE
 * records (tag, length, body, as in the footer) of files the process
 * folded away while it ran, written as each folded (the library keeps a
 * bounded number of files: fold.h). Event readers skip it; the footer's
 * ROWS record lists the rows chunks, and their records are the footer's
 * too. tid and thread_seq number the rows chunks apart from the thread's
 * event chunks. */
#define ST_TRACE_CHUNK_ROWS 0x1u

/* ## Events
 *
 * An event is a header byte, kind in the low 5 bits and three flags F1
 * (0x20), F2 (0x40), F3 (0x80) above, then fields. Unsigned integers are
 * LEB128 varints ("u"), signed ones zigzag-encoded varints ("s"),
 * "b" is one byte. Integers never take more than 10 bytes.
 *
 * Decoding state, reset at the start of each chunk:
 *     time      = chunk base_ns
 *     target    = none        (a cell id)
 *     call      = none        (last call byte seen)
 *     expected  = -1          (predicted file offset)
 *     last_size = 0           (last read result)
 *
 * Every event that names a call (CALL, COUNT, READ, READ_REREAD, LSEEK,
 * FSTAT, WRITE_AT) sets `call` to it.
 *
 * "dt" fields advance `time` (time += dt) and give the event's start time.
 * "dur" is the event's duration (syscall or call) in the same unit.
 *
 * Objects have small integer ids, unique within the trace and defined once
 * (in some thread's chunk — a use may come before its definition in file
 * order, never before it in time):
 *   file    the file as the kernel names it;
 *   stream  a stdio stream on a file;
 *   site    a call site in the program: its return address and callers;
 *   cell    the counts of one owner (a stream, or a file for the
 *           program's own POSIX calls) at one site. Counting events apply
 *           to the current target, a cell.
 * Files, streams and cells share one id space; sites have their own, where
 * 0 means "no site". A call kind byte indexes the ST_TRACE_INFO_CALLS names.
 */
/* The kinds, their fields and what each means: events.def, beside this
 * header (one line per kind, expanded here and by every reader). */
enum st_trace_kind {
#define ST_TRACE_EVENT(kind, value, ...) ST_EV_##kind = value,
#include "events.def"
#undef ST_TRACE_EVENT
    ST_EV_KIND_MAX = 25
};

/* events.def's role column. */
enum st_trace_role { ST_EV_DEFINES = 1, ST_EV_HAPPENS = 2, ST_EV_STEERS = 3 };

/* ## Stream operations (ST_EV_OP, version 2)
 *
 * The calls a stream received, in the order it received them, with what a
 * model of stdio's buffering needs to replay them at another buffer size:
 * what each call asked for and, for line readers, how far it went (that
 * depends on the file's bytes, which the trace does not hold). The ops of
 * a stream come from the threads that used it; each thread's are in order.
 *
 *   OPEN      F1 read-only ("r", no '+'): s offset, the descriptor's file
 *             offset when the stream was made (-1 unknown)
 *   SIZE      F1 regular file: u size — glibc's own fstat of the stream's
 *             descriptor (never one of seektrace's)
 *   FREAD     u n: bytes asked for (size * nmemb)
 *   GETC_RUN  u n: bytes the readers no wrapper sees (getc, fgetc,
 *             getc_unlocked, fgets and its variants, scanf's reads) took in
 *             a row; emitted before the next op and at each refill
 *   GETC_EOF  such a reader found no byte (EOF or error)
 *   FGETS     F1 the line ends with '\n': u n (the size argument), u len
 *             (bytes stored; 0 when it returned NULL). Written by
 *             seektrace before 2026-11-30 (fgets was interposed then);
 *             still read and replayed
 *   GETDELIM  F1 ends with the delimiter: u len (bytes stored; 0 on -1)
 *   UNGETC    F1 the byte equals the one just before the read position
 *   FSEEK     b whence, s offset (fsetpos: SEEK_SET)
 *   FTELL, REWIND, FFLUSH, CLEARERR
 *   EXIT      the process ended with the stream open (a closed stream's
 *             ops end with its CLOSE event instead)
 *   OTHER     u call: a call the model does not follow (its bytes taken
 *             are in a GETC_RUN; the replay is approximate from here).
 *             F1 (since 4.3) on a writing call (fwrite, fputs, puts, the
 *             printf family): the last byte it handed over was a newline
 */
enum st_trace_op {
    ST_OP_OPEN = 1,
    ST_OP_SIZE = 2,
    ST_OP_FREAD = 3,
    ST_OP_GETC_RUN = 4,
    ST_OP_GETC_EOF = 5,
    ST_OP_FGETS = 6,
    ST_OP_GETDELIM = 7,
    ST_OP_UNGETC = 8,
    ST_OP_FSEEK = 9,
    ST_OP_FTELL = 10,
    ST_OP_REWIND = 11,
    ST_OP_FFLUSH = 12,
    ST_OP_CLEARERR = 13,
    ST_OP_EXIT = 14,
    ST_OP_OTHER = 15,
    ST_OP_MAX = 15
};

#define ST_EV_F1 0x20u
#define ST_EV_F2 0x40u
#define ST_EV_F3 0x80u
#define ST_EV_KIND(b) ((unsigned)(b) & 0x1fu)

/* ## Footer
 *
 * At footer_offset: a 24-byte frame, then `length` payload bytes:
 *     uint8_t  magic[8]  ST_TRACE_FOOTER_MAGIC
 *     uint32_t length    payload bytes
 *     uint32_t crc32     of the payload (zlib's CRC-32)
 *     uint64_t reserved
 * The payload is a sequence of records: u tag, u length, bytes; unknown
 * tags are skipped. It holds the process's final accounts, exactly those
 * the report at exit printed, in the report's order; since 5.0 the FILE
 * records of files folded while the process ran are in rows chunks (ROWS).
 *
 *   PROCESS  u pid, u ppid, u argc, argc × (u len, bytes), u len capture,
 *            bytes, u len reason, bytes (len 0: none)
 *   FILE     u len, bytes path, counts, u nstreams, nstreams × stream,
 *            u nsites, nsites × site
 *            stream = s fd, u buffer_size, u requested_buffer_size,
 *                     b mode|origin<<4, str caveat, counts
 *            site   = u nframes, nframes × frame, counts
 *            frame  = str function, str source, u line, str module, u offset
 *                     (str: u len, bytes; len 0 is "unknown")
 *   STATS    u end_ns, u events_lost
 *   STORAGE  (4.1) u flags (1: measured, 2: per file), u device_read_bytes,
 *            u device_write_bytes, str why not measured, u n,
 *            n × (u file: the FILE record's index, 0 first; u device_read_bytes)
 *            — what the block device did for the process (docs/storage.md);
 *            a trace without it has no device figures
 *   ROWS     (5.0) u n, n × (u chunk index, u used, u crc32 of its used
 *            bytes): the rows chunks, in the order their FILE records are
 *            read, after the footer's own (the STORAGE record's indices
 *            count the footer's own FILE records alone: a process whose
 *            files' device bytes are measured folds none). The footer's
 *            files are its own FILE records and those of the rows chunks:
 *            every file, as before 5.0; the footer's own are in the
 *            report's order, a reader ranks the others among them. A
 *            4.x reader would decode rows chunks as events and miss their
 *            files' counts: hence a new major version
 *
 *   counts   u n, n × (u field, u value): only non-zero fields.
 *            field 1..ST_TRACE_FIELD_SCALARS: the scalar counters below;
 *            field 64 + 8 * call + k: by_call[call] counter k (k: 0 calls,
 *            1 read_syscalls, 2 kernel_read_bytes, 3 lseek_syscalls,
 *            4 fstat_syscalls, 5 write_syscalls and 6 kernel_write_bytes
 *            since version 4), call indexing ST_TRACE_INFO_CALLS.
 */
#define ST_TRACE_FOOTER_MAGIC "SKFOOTER"
#define ST_TRACE_FOOTER_FRAME 24u

enum st_trace_footer_tag {
    ST_FOOT_PROCESS = 1,
    ST_FOOT_FILE = 2,
    ST_FOOT_STATS = 3,
    ST_FOOT_STORAGE = 4,
    ST_FOOT_ROWS = 5,
};
#define ST_FOOT_STORAGE_MEASURED 0x1u
#define ST_FOOT_STORAGE_PER_FILE 0x2u

/* Scalar counter field numbers (stable; never renumbered). */
enum st_trace_field {
    ST_FIELD_READ_SYSCALLS = 1,
    ST_FIELD_KERNEL_READ_BYTES = 2,
    ST_FIELD_LSEEK_SYSCALLS = 3,
    ST_FIELD_FSTAT_SYSCALLS = 4,
    ST_FIELD_WRITE_SYSCALLS = 5,
    ST_FIELD_KERNEL_WRITE_BYTES = 6,
    ST_FIELD_REQUESTED_BYTES = 7,
    ST_FIELD_DELIVERED_BYTES = 8,
    ST_FIELD_REREAD_BYTES = 9,
    ST_FIELD_SEEKS_IN_BUFFER = 10,
    ST_FIELD_SEEKS_DISCARDING_BUFFER = 11,
    ST_FIELD_RESYNC_LSEEKS = 12,
    /* Since version 2: the report's 4 KiB what-if (docs/report-json.md). */
    ST_FIELD_WHATIF_4K_KERNEL_READ_BYTES = 13,
    ST_FIELD_WHATIF_4K_RECORDED_BYTES = 14,
    /* Since version 4: the write side of stdio (docs/report-json.md). */
    ST_FIELD_WRITTEN_BYTES = 15,
    ST_FIELD_FLUSHES_FFLUSH = 16,
    ST_FIELD_FLUSHES_FULL = 17,
    ST_FIELD_FLUSHES_NEWLINE = 18,
    ST_FIELD_FLUSHES_UNBUFFERED = 19,
    ST_FIELD_FLUSHES_SEEK = 20,
    ST_FIELD_FLUSHES_CLOSE = 21,
    ST_FIELD_FLUSHES_EXIT = 22,
    ST_FIELD_FLUSHES_READ = 23,
    ST_TRACE_FIELD_SCALARS = 23,
    ST_FIELD_BY_CALL = 64
};

/* Buffer mode and origin values in "mode|origin<<4" bytes. */
enum { ST_TRACE_BUF_UNKNOWN = 0, ST_TRACE_BUF_FULL = 1, ST_TRACE_BUF_LINE = 2, ST_TRACE_BUF_NONE = 3 };
enum { ST_TRACE_ORIGIN_DEFAULT = 0, ST_TRACE_ORIGIN_USER = 1, ST_TRACE_ORIGIN_SIZE_IGNORED = 2 };

#endif
