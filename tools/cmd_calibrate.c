/* cmd_calibrate.c — seektrace calibrate: measure what a syscall and a byte
 * from the page cache cost here, and store it for whatif's predicted time.
 *
 * The measuring is cost_measure.c's, the file cost_model.c's; this file
 * parses the options, names the calibration and prints it. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cost_measure.h"
#include "cost_model.h"
#include "tool.h"

static const char usage[] =
    "usage: seektrace calibrate [--quick] [--output PATH] [--print] [--json]\n"
    "\n"
    "Measures what reading costs on this machine and stores it for 'seektrace\n"
    "whatif', which turns predicted syscalls and kernel bytes into predicted time:\n"
    "a read syscall's fixed cost (1-byte reads), an lseek, an fstat, and the cost\n"
    "per byte a read copies from the page cache (the slope of the time of 4 KiB to\n"
    "1 MiB reads). All on a 64 MiB temporary file in $TMPDIR (or /tmp) held in the\n"
    "page cache, each figure the median of many short batches; about 1.4 s.\n"
    "\n"
    "  --quick        measure for about 0.2 s instead (less precise)\n"
    "  --output PATH  the calibration file; default\n"
    "                 $XDG_CACHE_HOME/seektrace/calibration, else\n"
    "                 $HOME/.cache/seektrace/calibration (directories created 0700,\n"
    "                 the file 0600, replaced whole)\n"
    "  --print        show the stored calibration; measure nothing\n"
    "  --json         the calibration as JSON (seektrace.calibration/1)\n"
    "  --help         this text\n"
    "\n"
    "The figures hold for files in the page cache only: no disk or network\n"
    "latency, no readahead, at the CPU frequency of the moment. Calibrate on an\n"
    "idle machine.\n"
    "\n"
    "Exit status: 0 success; 2 bad usage, no calibration to print or a corrupt\n"
    "one, a path that cannot be written, or a failed measurement.\n";

struct opts {
    int quick, print, json;
    const char *output;
};

static void parse_args(struct opts *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            exit(0);
        } else if (opt_value("calibrate", argc, argv, &i, "--output", &o->output)) {
            if (!*o->output)
                tool_usage_error("calibrate", "--output needs a path");
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--print") == 0) {
            o->print = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else {
            tool_usage_error("calibrate", "unknown argument '%s'", a);
        }
    }
    if (o->print && o->quick)
        tool_usage_error("calibrate", "--print measures nothing; --quick does not go with it");
}

/* "412 ns", "1.25 µs". */
static const char *fmt_ns(char *buf, size_t size, double ns)
{
    if (ns < 1000)
        snprintf(buf, size, "%.3g ns", ns);
    else
        snprintf(buf, size, "%.3g µs", ns / 1000);
    return buf;
}

/* "calibrated 2026-11-30 14:02 on host": when and where, so that a file
 * copied from another machine or gone stale shows it. */
static void name_source(struct st_cost_model *m, int quick)
{
    char when[32] = "?", host[64] = "?";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    snprintf(m->source, sizeof m->source, "calibrated %s on %s%s", when, host,
             quick ? " (--quick)" : "");
}

static void print_text(const struct st_cost_model *m, const char *path,
                       const struct cost_measurement *measured)
{
    char r[32], l[32], s[32];
    out_printf("read syscall %s, lseek %s, fstat %s, page-cache copy %.3g ns/B (%.1f GiB/s)\n",
               fmt_ns(r, sizeof r, m->read_ns), fmt_ns(l, sizeof l, m->lseek_ns),
               fmt_ns(s, sizeof s, m->fstat_ns), m->byte_ns,
               1e9 / m->byte_ns / (1024.0 * 1024 * 1024));
    if (measured) {
        out_printf("check: a linear fit of 4 KiB..1 MiB reads puts a read's fixed part at %s\n",
                   fmt_ns(r, sizeof r, measured->fit_read_ns));
        if (measured->interrupted >= 0.5)
            out_printf("note: other processes interrupted %.0f%% of the measurements; on an idle "
                       "machine the figures would be better\n",
                       measured->interrupted * 100);
        out_printf("%s in %.1f s; saved to %s\n", m->source, measured->seconds, path);
    } else {
        out_printf("%s; stored in %s\n", m->source, path);
    }
}

static void print_json(const struct st_cost_model *m, const char *path,
                       const struct cost_measurement *measured)
{
    FILE *f = stdout;
    fprintf(f, "{\"schema\":\"seektrace.calibration/1\",\"path\":");
    json_str(f, path);
    fprintf(f, ",\"source\":");
    json_str(f, m->source);
    fprintf(f, ",\"read_ns\":%.15g,\"lseek_ns\":%.15g,\"fstat_ns\":%.15g,\"byte_ns\":%.15g",
            m->read_ns, m->lseek_ns, m->fstat_ns, m->byte_ns);
    if (measured)
        fprintf(f, ",\"fit_read_ns\":%.15g,\"interrupted\":%.3f,\"seconds\":%.3f",
                measured->fit_read_ns, measured->interrupted, measured->seconds);
    fprintf(f, "}\n");
}

int cmd_calibrate(int argc, char **argv)
{
    struct opts o = {0};
    parse_args(&o, argc, argv);
    char dflt[PATH_MAX], err[PATH_MAX + 256];
    const char *path = o.output ? o.output : dflt;
    if (!o.output && st_cost_default_path(dflt, sizeof dflt) != 0)
        return tool_cmd_error("calibrate",
                              "neither $XDG_CACHE_HOME nor $HOME names a directory for the "
                              "calibration; give --output PATH");
    struct st_cost_model m;
    struct cost_measurement measured, *got = NULL;
    if (o.print) {
        if (st_cost_load(&m, path, err, sizeof err) != 0)
            return errno == ENOENT
                       ? tool_cmd_error("calibrate", "no calibration at %s: run 'seektrace "
                                                     "calibrate'", path)
                       : tool_cmd_error("calibrate", "%s", err);
    } else {
        if (cost_measure(o.quick, &measured, err, sizeof err) != 0)
            return tool_cmd_error("calibrate", "%s", err);
        m = measured.model;
        name_source(&m, o.quick);
        if (st_cost_save(&m, path, err, sizeof err) != 0)
            return tool_cmd_error("calibrate", "%s", err);
        got = &measured;
    }
    if (o.json)
        print_json(&m, path, got);
    else
        print_text(&m, path, got);
    if (fflush(stdout) != 0)
        return tool_cmd_error("calibrate", "cannot write the output: %s", strerror(errno));
    return 0;
}
