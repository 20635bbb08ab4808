/* cmd_html.c — seektrace html: the report as one self-contained HTML page.
 *
 * Reads the processes as report does (the same loading, merging and tree
 * order: report_cli.h), then writes the page section by section (html.h).
 * The traces among the inputs are read again for their events (access
 * maps, I/O rate) and replayed for the what-if curve; JSON reports give
 * the figures only. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cost_measure.h"
#include "html.h"
#include "tool.h"

static const char usage[] =
    "usage: seektrace html [OPTIONS] TRACE|DIR|REPORT.json ... -o FILE\n"
    "\n"
    "Writes the report of the traced processes as one self-contained HTML page:\n"
    "the headline (bytes requested, delivered and read by the kernel, the top\n"
    "finding), an access map of the costliest files (file offset against time:\n"
    "each kernel read and the bytes delivered from it), waste by call site, the\n"
    "what-if curve (kernel bytes, syscalls and predicted time against the buffer\n"
    "size), the process tree, the I/O rate over time, and sortable file, site and\n"
    "process tables with the figures of 'seektrace report --json'. Inline SVG\n"
    "and a few lines of JavaScript; nothing is fetched (the page opens offline\n"
    "and prints).\n"
    "JSON reports give the figures but no events: no access map, rate or what-if.\n"
    "\n"
    "  -o, --output FILE   the page to write ('-': stdout); required\n"
    "  --calibration PATH  the cost model for predicted times (default: the one\n"
    "                      'seektrace calibrate' stored, else a quick one now)\n"
    "  --cost R,L,F,B      the cost model by hand (as whatif --cost)\n"
    "  --sweep FILE        a sweep's measurements (sweep --json) drawn on the what-if\n"
    "                      axes, the traces replayed at its sizes\n"
    "  --keep-going        skip inputs that cannot be read (named on stderr and\n"
    "                      on the page; exit status 3)\n"
    "  --help              this text\n"
    "\n"
    "Exit status: 0 success, 2 bad usage or an input that cannot be read, 3\n"
    "--keep-going skipped some inputs.\n";

struct hctx {
    struct merged *merged;
    struct prow *rows;
    size_t nrows, caprows;
};

static int on_process(struct process *p, void *vctx)
{
    struct hctx *c = vctx;
    merged_add(c->merged, &p->report);
    prow_push(&c->rows, &c->nrows, &c->caprows, p);
    return 0;
}

int html_paths(const char *out, char **paths, size_t n, const struct html_opts *o)
{
    size_t ntraces = inputs_by_start(paths, n);
    struct hctx c;
    memset(&c, 0, sizeof c);
    c.merged = merged_new();
    struct load_opts lo = {.want_sites = 1};
    struct skipped skipped = {0};
    char **traces = calloc(n ? n : 1, sizeof *traces);
    if (!traces)
        tool_bad_input("out of memory");
    size_t nt = 0;
    progress_start("reading traces", n);
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_process, &c, err) == 0) {
            /* inputs_by_start put the traces first */
            if (i < ntraces)
                traces[nt++] = paths[i];
            progress_step(i + 1, 0);
            continue;
        }
        if (!o->keep_going)
            tool_bad_input("%s", err);
        skipped_add(&skipped, paths[i], err);
    }
    progress_end();
    if (n && skipped.n == n)
        tool_bad_input("none of the %zu inputs could be read", n);
    prow_tree_order(c.rows, c.nrows);
    struct st_report first, m;
    prow_first(c.rows, c.nrows, &first);
    merged_report(c.merged, &m, c.nrows ? &first : NULL, NULL);
    char cmd[200];
    argv_line(&first, cmd, sizeof cmd);
    if (!c.nrows)
        snprintf(cmd, sizeof cmd, "(no process wrote a trace)");

    /* Predicted times only where there are traces to replay. */
    struct st_cost_model picked;
    const struct st_cost_model *cost = o->cost;
    if (nt && !cost) {
        cost_model_pick(o->calibration, &picked);
        cost = &picked;
    }
    struct html_input in = {&m, c.rows, c.nrows, traces, nt, cost, o->sweep, cmd};
    /* Events first: a trace that fails to read leaves no half page. */
    struct html_events ev;
    html_events_gather(&in, &ev);
    FILE *f = strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
    if (!f)
        tool_bad_input("cannot write %s: %s", out, strerror(errno));
    char title[240];
    snprintf(title, sizeof title, "seektrace: %s", cmd);
    html_begin(f, title);
    html_headline(f, &in);
    if (skipped.n) {
        fprintf(f, "<p class=\"note\" id=\"skipped\">%zu input%s could not be read "
                   "(--keep-going):</p><ul>\n",
                skipped.n, skipped.n == 1 ? "" : "s");
        for (size_t i = 0; i < skipped.n; i++) {
            fputs("<li>", f);
            html_text(f, skipped.errors[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    html_access_maps(f, &ev);
    html_site_bars(f, &in);
    html_whatif(f, &in);
    html_rate(f, &ev);
    html_events_free(&ev);
    html_file_table(f, &in);
    html_site_table(f, &in);
    html_process_table(f, &in);
    html_end(f);
    if (ferror(f) || (f == stdout ? fflush(f) : fclose(f)) != 0)
        tool_bad_input("cannot write %s: %s", out, strerror(errno));
    merged_free(c.merged);
    prows_free(c.rows, c.nrows);
    free(traces);
    int rc = skipped.n ? EXIT_SKIPPED : 0;
    skipped_free(&skipped);
    return rc;
}

int cmd_html(int argc, char **argv)
{
    const char *out = NULL, *calibration = NULL, *sweep_path = NULL;
    struct st_cost_model cost;
    int have_cost = 0, keep_going = 0;
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    if (!pos)
        tool_bad_input("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            free(pos);
            return 0;
        } else if (strcmp(a, "--keep-going") == 0) {
            keep_going = 1;
        } else if (opt_value("html", argc, argv, &i, "--output", &v) ||
                   opt_value("html", argc, argv, &i, "-o", &v)) {
            out = v;
        } else if (opt_value("html", argc, argv, &i, "--calibration", &v)) {
            calibration = v;
        } else if (opt_value("html", argc, argv, &i, "--sweep", &v)) {
            sweep_path = v;
        } else if (opt_value("html", argc, argv, &i, "--cost", &v)) {
            cost_model_parse("html", v, &cost);
            have_cost = 1;
        } else {
            opt_positional("html", argc, argv, &i, pos, &npos);
        }
    }
    if (!npos)
        tool_usage_error("html", "no trace, directory or report given");
    if (!out)
        tool_usage_error("html", "no page to write: give -o FILE");
    struct inputs in;
    inputs_collect(pos, npos, &in);
    free(pos);
    struct html_sweep *sweep = NULL;
    if (sweep_path) {
        sweep = malloc(sizeof *sweep);
        if (!sweep)
            tool_bad_input("out of memory");
        html_sweep_read(sweep_path, sweep);
    }
    struct html_opts ho = {have_cost ? &cost : NULL, calibration, sweep, keep_going};
    int rc = html_paths(out, in.paths, in.n, &ho);
    free(sweep);
    inputs_free(&in);
    return rc;
}
