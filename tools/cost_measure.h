/* cost_measure.h — measuring the cost model's figures on this machine
 * (seektrace calibrate). */
#ifndef SEEKTRACE_TOOLS_COST_MEASURE_H
#define SEEKTRACE_TOOLS_COST_MEASURE_H

#include <stddef.h>

#include "cost_model.h"

struct cost_measurement {
    struct st_cost_model model; /* the figures; source left empty */
    /* The fixed part of a read as the linear fit of large reads puts it:
     * near model.read_ns when time is linear in bytes, as the model
     * assumes. Shown as a check, not used. */
    double fit_read_ns;
    /* The share of batches dropped because another process took the CPU
     * meanwhile: near 1, the machine was too busy for good figures. */
    double interrupted;
    double seconds; /* how long measuring took */
};

/* Measures on a temporary file in $TMPDIR (or /tmp) held in the page cache:
 * about 1.4 s, or 0.2 s with quick (less precise). Returns 0, or -1 with one
 * line in err (no room for the file, a failed syscall, a measurement too
 * noisy to give figures within st_cost_model's bounds). */
int cost_measure(int quick, struct cost_measurement *out, char *err, size_t errsize);

/* cost_pick.c: --cost R,L,F,B into m (a usage error of cmd when bad). */
void cost_model_parse(const char *cmd, const char *v, struct st_cost_model *m);
/* The model stored at calibration (NULL: calibrate's default file), else
 * a quick one measured now (0.2 s). Exits 2 on a file that cannot be read
 * or is corrupt (a missing default file is no error). */
void cost_model_pick(const char *calibration, struct st_cost_model *m);

#endif
