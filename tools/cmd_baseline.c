/* cmd_baseline.c — seektrace baseline save: a job's figures, under keys that
 * hold across runs, as a file a repository can commit (baseline.h). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "tool.h"

static const char usage[] =
    "usage: seektrace baseline save [OPTIONS] TRACE|DIR|REPORT.json ...\n"
    "\n"
    "Writes the baseline of a run for 'seektrace check --baseline': for every file\n"
    "and call site of the job, kernel bytes and syscalls read and written, bytes\n"
    "delivered and read again, summed over its processes, under keys without pids,\n"
    "addresses or times (schema " BASELINE_SCHEMA ", one entry a line, sorted).\n"
    "Options may come before or after the inputs; '--' ends them.\n"
    "\n"
    "  --output FILE, -o FILE  write to FILE (default: standard output)\n"
    "  --path-prefix NAME=DIR  paths under DIR are keyed {NAME}/... (repeatable);\n"
    "                          check must be given the same NAME for its run's DIR\n"
    "  --path-glob GLOB        paths matching GLOB are keyed as GLOB (repeatable)\n"
    "  --keep-going            skip inputs that cannot be read; exit 3\n"
    "  --help                  this text\n"
    "\n"
    "Exit status: 0 written, 2 bad usage, an unreadable input or output, 3 written\n"
    "but --keep-going skipped inputs.\n";

static int on_process(struct process *p, void *ctx)
{
    baseline_add(ctx, p);
    return 0;
}

static int save(struct baseline_keys *keys, const char *output, int keep_going, char **paths,
                size_t n)
{
    struct baseline *b = baseline_new(keys);
    struct skipped skipped = {0};
    struct load_opts lo = {.want_sites = 1};
    progress_start("reading", (uint64_t)n);
    for (size_t i = 0; i < n; i++) {
        char err[ST_TRACE_ERROR_MAX];
        if (load_file(paths[i], &lo, on_process, b, err) != 0) {
            if (!keep_going)
                tool_bad_input("%s", err);
            skipped_add(&skipped, paths[i], err);
        }
        progress_step(i + 1, 0);
    }
    progress_end();
    if (n && skipped.n == n)
        tool_bad_input("none of the %zu inputs could be read", n);
    FILE *f = output ? fopen(output, "we") : stdout;
    if (!f)
        tool_bad_input("baseline save: --output %s: %s", output, strerror(errno));
    baseline_write(b, f);
    if (!output) {
        if (fflush(f) != 0)
            tool_bad_input("baseline save: cannot write the output");
    } else if (fclose(f) != 0) {
        tool_bad_input("baseline save: cannot write %s", output);
    }
    int rc = skipped.n ? EXIT_SKIPPED : 0;
    skipped_free(&skipped);
    baseline_free(b);
    return rc;
}

int cmd_baseline(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (argc < 2)
            tool_usage_error("baseline", "say 'save'");
        out_printf("%s", usage);
        return 0;
    }
    if (strcmp(argv[1], "save") != 0)
        tool_usage_error("baseline", "unknown action '%s' (there is 'save')", argv[1]);
    struct baseline_keys keys = {0};
    const char *output = NULL;
    int keep_going = 0;
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    if (!pos)
        tool_bad_input("out of memory");
    int npos = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            free(pos);
            baseline_keys_free(&keys);
            return 0;
        } else if (strcmp(a, "--keep-going") == 0) {
            keep_going = 1;
        } else if (opt_value("baseline", argc, argv, &i, "--output", &output) ||
                   opt_value("baseline", argc, argv, &i, "-o", &output) ||
                   baseline_keys_parse(&keys, "baseline", argc, argv, &i)) {
            continue;
        } else {
            opt_positional("baseline", argc, argv, &i, pos, &npos);
        }
    }
    if (!npos)
        tool_usage_error("baseline", "no trace, directory or report given");
    struct inputs in;
    inputs_collect(pos, npos, &in);
    int rc = save(&keys, output, keep_going, in.paths, in.n);
    inputs_free(&in);
    free(pos);
    baseline_keys_free(&keys);
    return rc;
}
