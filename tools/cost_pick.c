/* cost_pick.c — see cost_measure.h: the cost model whatif and html price
 * with, given on the command line, stored by calibrate, or measured now. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_measure.h"
#include "tool.h"

/* Four numbers separated by commas, nothing after them: 0, or -1. */
static int parse_four(const char *v, double *out[4])
{
    const char *p = v;
    for (int k = 0; k < 4; k++) {
        char *end;
        *out[k] = strtod(p, &end);
        if (end == p || *end != (k < 3 ? ',' : '\0'))
            return -1;
        p = end + 1;
    }
    return 0;
}

void cost_model_parse(const char *cmd, const char *v, struct st_cost_model *m)
{
    double *fields[4] = {&m->read_ns, &m->lseek_ns, &m->fstat_ns, &m->byte_ns};
    if (parse_four(v, fields) != 0)
        tool_usage_error(cmd, "--cost takes four numbers R,L,F,B, not '%s'", v);
    snprintf(m->source, sizeof m->source, "given with --cost");
    const char *why = st_cost_invalid(m);
    if (why)
        tool_usage_error(cmd, "--cost: %s", why);
}

/* A stored file that is corrupt is an error (a silent fallback would hide
 * it); a missing one is not. */
void cost_model_pick(const char *calibration, struct st_cost_model *m)
{
    char path[4096], err[512];
    const char *p = calibration;
    if (!p && st_cost_default_path(path, sizeof path) == 0)
        p = path;
    if (p) {
        if (st_cost_load(m, p, err, sizeof err) == 0)
            return;
        if (calibration || errno != ENOENT)
            tool_bad_input("%s", err);
    }
    struct cost_measurement cm;
    if (cost_measure(1, &cm, err, sizeof err) != 0)
        tool_bad_input("no calibration stored and measuring one failed: %s", err);
    *m = cm.model;
    snprintf(m->source, sizeof m->source,
             "a quick calibration made now (run 'seektrace calibrate' to store a better one)");
}
