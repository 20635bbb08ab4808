/* report_model.h — one process's accounts, ready to print.
 *
 * The preload library fills it at exit from its live registries; the tools
 * fill it from trace files. Both then hand it to the same renderers, so a
 * report reads the same whichever way it was made. The model only points at
 * memory its builder owns. */
#ifndef SEEKTRACE_REPORT_MODEL_H
#define SEEKTRACE_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "outbuf.h"
#include "sort.h"

enum st_buf_mode { ST_BUF_UNKNOWN, ST_BUF_FULL, ST_BUF_LINE, ST_BUF_NONE };

enum st_buf_origin {
    ST_BUF_DEFAULT,          /* glibc sized it from st_blksize */
    ST_BUF_USER,             /* the program handed glibc a buffer */
    ST_BUF_SIZE_IGNORED,     /* setvbuf(fp, NULL, _IOFBF, size): size ignored */
};

struct st_report_stream {
    int fd;
    uint64_t buffer_size;
    uint64_t requested_buffer_size;
    enum st_buf_mode mode;
    enum st_buf_origin origin;
    const char *caveat; /* what the figures of this stream miss, or NULL */
    struct st_counts counts;
    /* Merged reports fold streams alike in all but their counts (same fd,
     * buffer and caveat) into one row: how many it stands for, counts
     * summed. 0 or 1: one stream. */
    uint64_t folded;
};

/* One frame of a call site, symbolized (any field may be missing). */
struct st_report_frame {
    const char *function; /* NULL when unknown */
    const char *source;   /* source file, NULL without debug info */
    int line;             /* 0 without debug info */
    const char *module;   /* the ELF object's path */
    uint64_t offset;      /* the return address relative to the module */
};

/* What the calls made from one place in the program cost on one file. */
struct st_report_site {
    const struct st_report_frame *frames; /* frames[0] is the site itself */
    int nframes;                          /* 0: the site is unknown */
    struct st_counts counts;
    struct st_rank rank; /* st_report_rank_site, set by st_report_finish (item unused) */
};

struct st_report_file {
    const char *path;
    struct st_counts counts; /* streams plus the program's own POSIX calls */
    struct st_report_stream *streams;
    size_t nstreams;
    struct st_report_site *sites; /* worst first; none when attribution is off */
    size_t nsites;
    struct st_rank rank; /* st_report_rank_file, set by st_report_finish (item unused) */
    /* Merged reports: how many processes' rows this one sums, and on how
     * many of those alone a finding rule fires (st_file_has_findings). A
     * row of several processes gets findings only when one of them had
     * some: a thousand processes that each read /etc/passwd once are not a
     * pattern to fix. 0: one process's own row. */
    uint64_t processes, processes_with_findings;
    /* SEEKTRACE_STORAGE=file: bytes the device read while the program's
     * read syscalls on this file ran (docs/storage.md). */
    int device_measured;
    uint64_t device_read_bytes;
};

/* The storage tier below the page cache (docs/storage.md): what the block
 * device read and wrote for the process, from getrusage's ru_inblock and
 * ru_oublock since the library started in it. */
struct st_report_storage {
    int measured;                /* the figures below are a measurement */
    uint64_t device_read_bytes;  /* 0 when measured on a warm page cache */
    uint64_t device_write_bytes; /* bytes the process dirtied for the device */
    const char *why_not;         /* not measured: why (a file on tmpfs, an older trace) */
    /* Merged reports: processes summed, and how many of them had no
     * measurement (then `measured` is 0 and the figures sum the others). */
    uint64_t processes, processes_unmeasured;
    int per_file; /* SEEKTRACE_STORAGE=file: files carry device_read_bytes */
};

struct st_report {
    const char *capture;        /* "exact" or "inferred" */
    const char *capture_reason; /* NULL when exact */
    const char *libc_version;   /* gnu_get_libc_version(): "2.41"; NULL: unknown */
    long pid, ppid;
    const char *const *argv;
    int argc;
    struct st_counts totals;
    struct st_report_file *files;
    size_t nfiles;
    /* Files with something to show that have no row: the library keeps
     * rows only for the files the report can print (report-json.md, "Rows
     * kept"). Their counts, summed, are in `other` and in the totals. */
    size_t nfiles_other;
    struct st_counts other;
    int json_rows_bounded; /* JSON lists the worst files only, not every one */
    struct st_report_storage storage;
};

/* How many rows each part of a report prints: the text report's worst
 * files and (file, call site) pairs, and the findings of each format. */
#define ST_REPORT_TEXT_FILES 10
#define ST_REPORT_JSON_FILES 1000 /* SEEKTRACE_REPORT_FILES's default */
#define ST_REPORT_TEXT_SITES 5
#define ST_REPORT_TEXT_FINDINGS 16
#define ST_REPORT_JSON_FINDINGS 64

/* The order of files: highest cost (st_counts_cost: wasted kernel bytes
 * plus 4 KiB per read, lseek and write syscall), then most read, lseek and
 * write syscalls, then by path. Computed once per row. */
struct st_rank st_report_rank_file(const struct st_report_file *f);
/* The order of a file's sites: the same figures, then the site's offset. */
struct st_rank st_report_rank_site(const struct st_report_site *s);
/* How the text report picks its (file, site) pairs: the site's cost, then
 * the file's order, then the site's place in its file (k). Computed from the counts: reports read from a trace's
 * footer have no ranks set. */
struct st_rank st_report_rank_pair(const struct st_report_file *f, const struct st_report_site *s,
                                   size_t k);

const char *st_buf_mode_name(enum st_buf_mode m);

/* Adds one process's storage figures to a merged report's (sum zeroed
 * before the first). */
void st_storage_add(struct st_report_storage *sum, const struct st_report_storage *one);
const char *st_buf_origin_name(enum st_buf_origin o);

/* Ranks f's sites and sorts them worst first, as a report shows them. */
void st_report_order_sites(struct st_report_file *f);

/* Ranks and sorts files and each file's sites worst first (highest cost,
 * then most syscalls) and recomputes totals from them and `other`. order:
 * room for r->nfiles indexes, through which the files are sorted
 * (st_sort_rows: a report of 12,000 files took 45 ms in st_sort), or NULL
 * when there is none (then st_sort). */
void st_report_finish(struct st_report *r, size_t *order);

/* "main (demo.c:96)", "parse+0x1c (libfoo.so)", or "unknown site". */
const char *st_frame_describe(const struct st_report_frame *f, char *buf, size_t size);

void st_report_write_text(const struct st_report *r, struct st_outbuf *out);
/* The text report with its file table cut at max_files (the at-exit report:
 * 10), the rest counted on a line that ends with more_hint, which says how to
 * see them ("SEEKTRACE_FORMAT=json lists all"; the command names its own
 * options). */
struct st_text_opts {
    size_t max_files;
    const char *more_hint;
    /* For merged reports, which sum many processes (0 for the at-exit
     * report): files and sites whose cost (st_counts_cost) is under floor
     * get no row, the files are counted and summed exactly on one line;
     * at most max_streams stream rows per file (0: all), the rest counted;
     * no_sites leaves the site table out (the caller prints its own). */
    uint64_t floor;
    size_t max_streams;
    int no_sites;
};
void st_report_write_text_opts(const struct st_report *r, const struct st_text_opts *t,
                               struct st_outbuf *out);
void st_report_write_json(const struct st_report *r, struct st_outbuf *out);
/* The same object without its closing "}\n", for a caller that adds keys
 * of its own (",\"key\":value", then "}"). */
void st_report_write_json_open(const struct st_report *r, struct st_outbuf *out);

#endif
