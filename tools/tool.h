/* tool.h — what the seektrace subcommands share.
 *
 * Exit codes, for every subcommand (docs/seektrace.1):
 *   0  success (check: no violation)
 *   1  check: at least one violation
 *   2  bad usage or bad input (a trace or report that cannot be read)
 *   3  report, check, export, html --keep-going: done, but inputs that could not be
 *      read were skipped (named in the output; check's 1 comes first)
 *   run: otherwise the program's own status (128+N when killed by signal N).
 *   sweep: 1 when the command failed in some run. */
#ifndef SEEKTRACE_TOOL_H
#define SEEKTRACE_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "report_model.h"
#include "trace_model.h"
#include "trace_reader.h"

#define EXIT_VIOLATION 1
#define EXIT_BAD_INPUT 2
#define EXIT_SKIPPED 3

extern const char *st_prog; /* "seektrace" */

/* One line on stderr, "seektrace: ...". */
void tool_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line on stderr, then exit(2). (The attribute, not C11's _Noreturn:
 * cppcheck knows only the attribute, and without it reports every check
 * before these calls as redundant.) */
void tool_bad_input(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* "seektrace CMD: ..." on one line; returns 2, the exit status to give. */
int tool_cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "seektrace CMD: ...; try 'seektrace CMD --help'", exit(2). */
void tool_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* ---- progress (stderr, only when it is a terminal) ---------------------- */
void progress_start(const char *what, uint64_t total);
void progress_step(uint64_t done, uint64_t bytes);
void progress_end(void);

/* ---- inputs -------------------------------------------------------------- */

/* Expands arguments: a directory stands for the *.sktrace files in it
 * (sorted by name); anything else is taken as given. Exits 2 on a missing
 * path or an empty directory. */
struct inputs {
    char **paths;
    size_t n;
};
void inputs_collect(char **args, int nargs, struct inputs *out);
void inputs_free(struct inputs *in);

/* --keep-going: the inputs that could not be read, each with the one-line
 * error that says why (also said on stderr when added). */
struct skipped {
    char **paths, **errors;
    size_t n;
};
void skipped_add(struct skipped *s, const char *path, const char *err);
void skipped_free(struct skipped *s);
/* {"source":...,"error":...},... (no brackets) */
void skipped_json(FILE *f, const struct skipped *s);

/* ---- one process's report, from a trace or a JSON report ---------------- */

enum source_kind { SOURCE_TRACE, SOURCE_JSON };

struct process;

struct load_opts {
    int from_events;   /* rebuild from events even when a footer exists */
    int want_sites;    /* symbolize sites of rebuilt reports */
    /* A trace's rows: NULL every file's; else the footer's rows kept so
     * (trace_reader.h), and each_file shown every file, from the footer
     * or from the events. */
    const struct st_footer_rows *rows;
    /* NULL, or shown every file of each process before fn is called with
     * the process, whatever its source: a trace's footer file by file as
     * it is decoded (p has its header's and its report's process fields,
     * not its files yet, which are then the rows `rows` keeps), the files
     * rebuilt from a trace's events, a JSON report's. Frames are named as
     * fn would see them; f is valid during the call only. ctx: load_file's. */
    void (*each_file)(const struct process *p, const struct st_report_file *f, void *ctx);
};

struct process {
    char *source;               /* the file it came from */
    enum source_kind kind;
    const char *status;         /* "complete", "partial", "truncated", "report" */
    struct st_report report;
    uint64_t start_realtime_ns; /* 0 for JSON reports */
    uint64_t duration_ns;       /* start to the footer, or to the last event
                                 * recorded (partial traces); 0 for reports */
    const char *host;           /* NULL when unknown (and for JSON reports) */
    char *const *labels;        /* nlabels "KEY=VALUE" (the trace's) */
    int nlabels;
    uint64_t events_lost;
    uint32_t stop_reason;       /* ST_TRACE_STOP_* (a trace's) */
    char *exe;
    /* owned */
    void *footer_mem;
    struct st_trace_model *model;
    struct st_trace_reader *reader;
    void *json_mem;
};

/* Loads the process(es) in one file: a trace holds one, a JSON report file
 * one or more (JSON lines). Calls fn for each; returns 0, or -1 with err. */
typedef int (*process_fn)(struct process *p, void *ctx);
int load_file(const char *path, const struct load_opts *o, process_fn fn, void *ctx,
              char err[ST_TRACE_ERROR_MAX]);
/* Reads a trace's header only (for ordering inputs). */
int peek_trace(const char *path, long *pid, long *ppid, uint64_t *start);

/* The offline symbolizer (libdwfl on the modules the trace recorded,
 * each file opened once however many traces mapped it; module + offset
 * when a file is not here or changed since the process started): one
 * context for every trace a command reads; the names it fills in live
 * until the command exits. */
void *symbolizer_shared(void);
/* The start (wall clock, ns) of the process whose addresses come next: a
 * module file changed after it is not named from. */
void symbolizer_for_trace(void *ctx, uint64_t started_realtime_ns);
void symbolize_offline(void *ctx, const struct st_trace_module *module, uint64_t address,
                       struct st_report_frame *out);

/* ---- merging processes ---------------------------------------------------- */

struct merged;
struct merged *merged_new(void);
void merged_add(struct merged *m, const struct st_report *r);
/* The merged accounts as one report (files summed by path, their streams
 * and sites side by side); valid until merged_free. With rows, as a
 * single trace's footer (st_trace_footer_rows): past rows->every_up_to
 * files only the rows rows asks for, the others summed into `other`; each
 * file shown to rows->each_file. NULL: every row. */
void merged_report(struct merged *m, struct st_report *out, const struct st_report *first,
                   const struct st_footer_rows *rows);
void merged_free(struct merged *m);

/* ---- rendering -------------------------------------------------------------- */

/* A report rendered by the core's renderers into memory (malloc'd, NUL
 * terminated); text with t's file limit and hint (NULL: as at exit). */
char *render_report(const struct st_report *r, int json, const struct st_text_opts *t,
                    size_t *len);
/* r's JSON object written to stdout as it is rendered, never held whole
 * (1000 rows are 17 MB of JSON); open: without its closing "}\n", for the
 * caller's own keys. */
void out_report_json(const struct st_report *r, int open);

/* After a text report: the block devices under its files read, with their
 * read_ahead_kb as it is when the report is made (devices.c): of files
 * shown one by one (devices_add, as a st_footer_rows's each_file: every
 * file of a report that keeps a few rows), then printed. */
#define DEVICES_MAX 16
struct device_files {
    dev_t dev;
    size_t files;
    long read_ahead_kb; /* -1: unknown */
    char name[64];
};
struct devices {
    struct device_files dev[DEVICES_MAX];
    size_t n, more; /* more: files on devices past DEVICES_MAX */
};
void devices_add(void *devices, const struct st_report_file *f);
void devices_print(const struct devices *d);

/* "fseek2006 /tmp/d.dat" (argv joined, at most max bytes). */
void argv_line(const struct st_report *r, char *buf, size_t size);

/* Writes all of buf to stdout; exits 2 if stdout fails. */
void out_write(const char *buf, size_t len);
void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Appends item to list, a string of items joined by sep, unless it is there
 * already; an item that does not fit is left out. */
void list_add_once(char *list, size_t size, const char *item, const char *sep);

/* JSON string escaping for hand-written JSON output. */
void json_str(FILE *f, const char *s);

/* ---- running programs under the library (run, sweep; in cmd_run.c) ------ */

/* The library's real path: $SEEKTRACE_LIBRARY, else beside this executable
 * (the build tree, or ../lib of an install). Exits 2 when there is none. */
char *tool_find_library(void);
/* LD_PRELOAD for a command: lib, then the user's old list — except
 * sanitizer runtimes (libasan, libtsan, ...), which must come first in a
 * process. malloc'd; NULL when out of memory. */
char *tool_preload_list(const char *lib, const char *old);

/* ---- buffer size lists (sweep, whatif) ------------------------------------- */

#define TOOL_DEFAULT_SIZES "512,1k,2k,4k,8k,16k,32k,64k,128k,256k,512k,1M"
#define TOOL_MAX_SIZES 64
/* Parses "512,4k,1M" into sizes[TOOL_MAX_SIZES] (1 B to 1 GiB each);
 * returns how many. A bad list is a usage error of cmd (exit 2). */
size_t size_list_parse(const char *cmd, const char *list, uint64_t *sizes);

/* The subcommands. */
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_html(int argc, char **argv);

/* check's limits, shared with run --check. */
struct baseline_keys;
/* The waste (kernel bytes never delivered) below which a file does not fail
 * --max-amplification: glibc reading 1.19 KiB of /etc/passwd to deliver 32 B
 * is 38x, and no one's problem. docs/seektrace.1 states it. */
#define CHECK_DEFAULT_MIN_WASTE (64u * 1024u)
#define CHECK_DEFAULT_MIN_WASTE_TEXT "64k"
struct check_opts {
    double max_amplification; /* < 0: unset */
    int64_t max_read_syscalls; /* < 0: unset */
    int64_t max_reread_bytes;  /* < 0: unset */
    double max_write_syscalls_per_mib; /* < 0: unset */
    const char **globs;        /* --file */
    size_t nglobs;
    const char **site_globs;   /* --site */
    size_t nsite_globs;
    uint64_t min_bytes;
    uint64_t min_waste;
    const char *format; /* text, json, junit */
    int any;            /* some limit was given */
    int keep_going;     /* check --keep-going */
    const char *baseline;     /* --baseline: a saved baseline, traces or reports */
    double max_growth;        /* --max-growth, a share: 0.10 */
    uint64_t growth_floor;    /* --growth-floor, bytes */
    struct baseline_keys *keys; /* --path-prefix, --path-glob */
    const char *source_root;    /* --source-root */
};
void check_opts_init(struct check_opts *o);
void check_opts_free(struct check_opts *o);
/* Parses one check option at argv[*i] (advancing *i past its value);
 * returns 1 if it was one, 0 if not. Exits 2 on a bad value. */
int check_opts_parse(struct check_opts *o, const char *cmd, int argc, char **argv, int *i);
/* Runs the checks over paths; prints the result; returns the exit code.
 * Exits 2 on an input that cannot be read (keep_going: when none can) and
 * when a --file or --site glob matches nothing. */
int check_run(const struct check_opts *o, char **paths, int npaths);

/* Shared option parsing helpers: "--opt=value" or "--opt value". */
int opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value);
/* argv[*i], which no option took: "--" (every argument after it is an
 * input), an unknown option (exit 2, saying so) or an input, added to
 * pos (room for argc). Options may come anywhere among the inputs. */
void opt_positional(const char *cmd, int argc, char **argv, int *i, char **pos, int *npos);

#endif
