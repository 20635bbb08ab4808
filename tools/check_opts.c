/* check_opts.c — the limits and options of seektrace check, parsed for
 * check itself and for run --check, which takes the same ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "baseline.h"
#include "tool.h"
#include "units.h"

void check_opts_init(struct check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_amplification = -1;
    o->max_read_syscalls = -1;
    o->max_reread_bytes = -1;
    o->max_write_syscalls_per_mib = -1;
    o->min_waste = CHECK_DEFAULT_MIN_WASTE;
    o->format = "text";
    o->max_growth = BASELINE_DEFAULT_GROWTH;
    o->growth_floor = BASELINE_DEFAULT_FLOOR;
    o->keys = calloc(1, sizeof *o->keys);
    if (!o->keys)
        tool_bad_input("out of memory");
}

void check_opts_free(struct check_opts *o)
{
    free(o->globs);
    free(o->site_globs);
    o->globs = o->site_globs = NULL;
    if (o->keys)
        baseline_keys_free(o->keys);
    free(o->keys);
    o->keys = NULL;
}

static void add_glob(const char ***list, size_t *n, const char *v)
{
    const char **g = realloc(*list, (*n + 1) * sizeof *g);
    if (!g)
        tool_bad_input("out of memory");
    g[(*n)++] = v;
    *list = g;
}

int check_opts_parse(struct check_opts *o, const char *cmd, int argc, char **argv, int *i)
{
    const char *v;
    uint64_t size;
    if (opt_value(cmd, argc, argv, i, "--max-amplification", &v)) {
        char *end;
        double x = strtod(v, &end);
        if (*end == 'x' || *end == 'X')
            end++;
        if (*end || !(x >= 0) || !isfinite(x))
            tool_usage_error(cmd, "--max-amplification takes a number like 10 or 2.5, not '%s'", v);
        o->max_amplification = x;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--max-read-syscalls", &v)) {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*end || n < 0)
            tool_usage_error(cmd, "--max-read-syscalls takes a count, not '%s'", v);
        o->max_read_syscalls = n;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--max-reread-bytes", &v)) {
        if (st_parse_size(v, &size) != 0 || size > INT64_MAX)
            tool_usage_error(cmd, "--max-reread-bytes takes a size like 0, 64k or 1M, not '%s'", v);
        o->max_reread_bytes = (int64_t)size;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--max-write-syscalls-per-mib", &v)) {
        char *end;
        double x = strtod(v, &end);
        if (*end || !(x >= 0) || !isfinite(x))
            tool_usage_error(cmd, "--max-write-syscalls-per-mib takes a number like 16 or 0.5, "
                                  "not '%s'", v);
        o->max_write_syscalls_per_mib = x;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--min-bytes", &v)) {
        if (st_parse_size(v, &size) != 0)
            tool_usage_error(cmd, "--min-bytes takes a size like 4k or 1M, not '%s'", v);
        o->min_bytes = size;
    } else if (opt_value(cmd, argc, argv, i, "--min-waste", &v)) {
        if (st_parse_size(v, &size) != 0)
            tool_usage_error(cmd, "--min-waste takes a size like 0, 64k or 1M, not '%s'", v);
        o->min_waste = size;
    } else if (opt_value(cmd, argc, argv, i, "--file", &v)) {
        add_glob(&o->globs, &o->nglobs, v);
    } else if (opt_value(cmd, argc, argv, i, "--site", &v)) {
        add_glob(&o->site_globs, &o->nsite_globs, v);
    } else if (opt_value(cmd, argc, argv, i, "--baseline", &v)) {
        o->baseline = v;
        o->any = 1;
    } else if (opt_value(cmd, argc, argv, i, "--max-growth", &v)) {
        char *end;
        double pct = strtod(v, &end);
        if (*end == '%')
            end++;
        if (*end || !(pct >= 0) || !isfinite(pct))
            tool_usage_error(cmd, "--max-growth takes a percentage like 10 or 2.5, not '%s'", v);
        o->max_growth = pct / 100;
    } else if (opt_value(cmd, argc, argv, i, "--growth-floor", &v)) {
        if (st_parse_size(v, &size) != 0)
            tool_usage_error(cmd, "--growth-floor takes a size like 0, 64k or 1M, not '%s'", v);
        o->growth_floor = size;
    } else if (opt_value(cmd, argc, argv, i, "--source-root", &v)) {
        o->source_root = v;
    } else if (baseline_keys_parse(o->keys, cmd, argc, argv, i)) {
        return 1;
    } else if (opt_value(cmd, argc, argv, i, "--format", &v)) {
        if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0 && strcmp(v, "junit") != 0 &&
            !annotations_format(v))
            tool_usage_error(cmd, "--format takes text, json, junit, sarif, github or gitlab, "
                                  "not '%s'", v);
        o->format = v;
    } else {
        return 0;
    }
    return 1;
}
