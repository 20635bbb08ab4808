/* config.h — the SEEKTRACE_* environment settings, read once at start-up.
 *
 * A malformed value never stops the program: one warning line, and the
 * default is used (docs/seektrace.7.md lists them all). */
#ifndef SEEKTRACE_CONFIG_H
#define SEEKTRACE_CONFIG_H

#include "report_model.h"

enum st_format { ST_FORMAT_TEXT, ST_FORMAT_JSON };

/* The JSON report's rows when SEEKTRACE_REPORT_FILES is not set: every file
 * of nearly any program, and a bounded report for one that reads tens of
 * thousands (docs/report-json.md, "Rows kept"). */
#define ST_REPORT_FILES_DEFAULT ST_REPORT_JSON_FILES

struct st_config {
    const char *output;     /* SEEKTRACE_OUTPUT, NULL for stderr; may hold %p */
    int output_fd;          /* the descriptor it names (/dev/stdout, /dev/fd/N), or -1 */
    enum st_format format;  /* SEEKTRACE_FORMAT */
    int report;             /* SEEKTRACE_REPORT: 0 = none at exit (a trace's footer still
                             * holds the accounts: what `seektrace run` asks for) */
    int stack;              /* SEEKTRACE_STACK: frames per call site, 0 = off */
    int symbolize_later;    /* SEEKTRACE_SYMBOLIZE=later: frames left as addresses */
    unsigned long report_files; /* SEEKTRACE_REPORT_FILES: JSON rows, 0 = every file */
    unsigned long long bufsize; /* SEEKTRACE_BUFSIZE: forced stream buffer, 0 = off */
    int fadvise;            /* SEEKTRACE_FADVISE: POSIX_FADV_* given every file opened, -1 = off */
    int storage_per_file;   /* SEEKTRACE_STORAGE=file: device bytes per file */
    const char *trace_dir;  /* SEEKTRACE_TRACE: absolute directory, NULL = no trace */
    unsigned long long trace_max; /* SEEKTRACE_TRACE_MAX: size cap of a trace's events */
    const char *labels;     /* SEEKTRACE_LABELS encoded (labels.h): "k=v\0k=v\0" */
    unsigned labels_len;    /* its bytes, 0 = none */
    int trace_tsc;          /* SEEKTRACE_TRACE_CLOCK: 0 = clock_gettime only (monotonic),
                             * 1 = the TSC where safe (auto, the default) */
};

extern struct st_config st_config;

/* Reads the environment into st_config, warning about each bad value in
 * turn. The settings the layers above own are read by them, at their place
 * in that order (warnings come out as they always have): load_trace
 * (SEEKTRACE_TRACE, _MAX, _CLOCK: st_trace_config_load) after
 * SEEKTRACE_STACK, load_output (SEEKTRACE_OUTPUT: st_output_config_load)
 * last. */
void st_config_load(void (*load_trace)(void), void (*load_output)(void));

#endif
