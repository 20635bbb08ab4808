/* html.h — seektrace html: the report as one self-contained page.
 *
 * cmd_html.c reads the processes as report does (report_cli.h) and hands
 * the merged accounts to the parts below, each writing one section of the
 * page to the same FILE: inline SVG, a few lines of inline JavaScript
 * (sortable tables), nothing fetched (a Content-Security-Policy forbids
 * it). Every figure is the report's own (report --json): the page draws,
 * it does not recompute. */
#ifndef SEEKTRACE_HTML_H
#define SEEKTRACE_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cost_model.h"
#include "report_cli.h"

/* html_sweep.c: what sweep measured at each size (seektrace.sweep/1). */
struct html_sweep {
    size_t n;
    uint64_t size[TOOL_MAX_SIZES], wall_ns[TOOL_MAX_SIZES];
    uint64_t read_syscalls[TOOL_MAX_SIZES], lseek_syscalls[TOOL_MAX_SIZES];
    uint64_t kernel_read_bytes[TOOL_MAX_SIZES];
};
/* Reads path into s; exits 2 on a file that is not a sweep document. */
void html_sweep_read(const char *path, struct html_sweep *s);

struct html_input {
    const struct st_report *m; /* the merged accounts */
    const struct prow *rows;   /* the processes, in tree order */
    size_t nrows;
    char **traces; /* the inputs that are traces (events to draw) */
    size_t ntraces;
    const struct st_cost_model *cost; /* NULL: no what-if */
    const struct html_sweep *sweep;   /* NULL: none given */
    const char *command;              /* the root process's command line */
};

/* html_page.c: the page's head (title, CSP, style, the table sorter) and
 * foot; text escaped for HTML; bytes and counts as people read them, with
 * the exact figure kept in the markup. */
void html_begin(FILE *f, const char *title);
void html_end(FILE *f);
void html_text(FILE *f, const char *s);
/* <td> of a byte figure: "25.0 GiB" shown, the exact number in data-v and
 * the tooltip. */
void html_td_bytes(FILE *f, uint64_t v);
void html_td_count(FILE *f, uint64_t v);
const char *html_bytes(char *buf, size_t size, uint64_t v);

/* html_tables.c: the headline, then the sortable file, site and process
 * tables (every figure exact, as report --json gives it). */
void html_headline(FILE *f, const struct html_input *in);
void html_file_table(FILE *f, const struct html_input *in);
void html_site_table(FILE *f, const struct html_input *in);
void html_process_table(FILE *f, const struct html_input *in);

/* html_bars.c: kernel bytes against delivered bytes per call site. */
void html_site_bars(FILE *f, const struct html_input *in);

/* html_events.c: what the traces' events show, gathered in one pass: the
 * kernel reads and delivered ranges of the costliest files, and the I/O
 * rate over time. */
#define HTML_MAP_FILES 4
struct html_range {
    uint64_t t;       /* wall clock, ns */
    uint64_t off, len;
    uint64_t reread;  /* kernel reads: bytes the file's reads had read before */
};
struct html_file_events {
    const char *path;
    struct html_range *reads, *delivered;
    size_t nreads, ndelivered, capreads, capdelivered;
    uint64_t reads_seen, delivered_seen; /* beyond the caps: counted only */
    uint64_t max_off;
};
#define HTML_RATE_BUCKETS 120
struct html_events {
    struct html_file_events files[HTML_MAP_FILES];
    size_t nfiles;
    uint64_t t0, t1; /* first process start and last event, wall clock ns */
    /* Bytes per bucket of rate_width ns from t0 (kernel reads, delivered). */
    uint64_t rate_width;
    uint64_t rate_kernel[HTML_RATE_BUCKETS], rate_delivered[HTML_RATE_BUCKETS];
    size_t traces_read;
};
/* Reads the traces' events for m's costliest files (each file's ranges
 * then in time order); exits 2 on a trace that cannot be read. */
void html_events_gather(const struct html_input *in, struct html_events *ev);
void html_events_free(struct html_events *ev);

/* html_map.c: the access map of each gathered file, and the I/O rate. */
void html_access_maps(FILE *f, const struct html_events *ev);
void html_rate(FILE *f, const struct html_events *ev);

/* html_whatif.c: kernel bytes, syscalls and predicted time against the
 * buffer size, replayed from the traces (whatif_replay.h), with what a
 * sweep measured on the same axes when one is given. */
void html_whatif(FILE *f, const struct html_input *in);

#endif
