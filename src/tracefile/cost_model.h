/* cost_model.h — what reads cost in time: a linear model of syscalls and
 * bytes, calibrated on the machine (seektrace calibrate), for whatif's
 * predicted time.
 *
 * The model prices each read, lseek and fstat syscall at a fixed cost and
 * each byte a read copies at a cost per byte, measured on a file held in the
 * page cache. It therefore predicts page-cache-hot runs only: no disk or
 * network latency, no readahead, whatever the CPU's frequency was during
 * calibration (docs/whatif.md).
 *
 * Only st_cost_predict_ns may be called inside a traced program; the
 * others use stdio and are for the tools. */
#ifndef SEEKTRACE_COST_MODEL_H
#define SEEKTRACE_COST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define ST_COST_SOURCE_MAX 128
/* Plausible bounds, beyond which a value is a broken measurement or a
 * damaged file: a syscall from 0 to 10 ms, a byte from 0 to 1 µs. */
#define ST_COST_MAX_SYSCALL_NS 1e7
#define ST_COST_MAX_BYTE_NS 1e3

struct st_cost_model {
    double read_ns;  /* one read syscall, fixed part (page-cache hit) */
    double lseek_ns; /* one lseek syscall */
    double fstat_ns; /* one fstat syscall */
    double byte_ns;  /* per byte a read copies from the page cache */
    /* Where the figures came from, one line of printable text:
     * "calibrated 2026-11-30 14:02 on host", "command line", ... */
    char source[ST_COST_SOURCE_MAX];
};

/* Predicted nanoseconds for these counts: each count times its cost. */
double st_cost_predict_ns(const struct st_cost_model *m, uint64_t reads, uint64_t lseeks,
                          uint64_t fstats, uint64_t kernel_bytes);

/* NULL when every figure is a finite number above 0 and within the bounds
 * above and the source is printable text; otherwise what is wrong
 * ("read_ns is not a number above 0 and at most 1e+07", ...), in a static
 * buffer. For models built from command-line flags as well as files. */
const char *st_cost_invalid(const struct st_cost_model *m);

/* The default calibration file: $XDG_CACHE_HOME/seektrace/calibration, else
 * $HOME/.cache/seektrace/calibration. Returns 0, or -1 when neither variable
 * gives an absolute directory or the path does not fit in size. */
int st_cost_default_path(char *out, size_t size);

/* The file, version 1: a header line, then one "key value" line for each of
 * source, read_ns, lseek_ns, fstat_ns, byte_ns in any order, each once:
 *
 *     seektrace-calibration 1
 *     source calibrated 2026-11-30 14:02 on host
 *     read_ns 412.5
 *     ...
 *
 * st_cost_load returns 0, or -1 with one line in err naming the file and,
 * when it is one line's fault, the line ("PATH:3: read_ns: '-5' is not a
 * number above 0 and at most 1e+07"). errno is then why the file could not
 * be read (ENOENT: there is no calibration yet), or 0 when its content is
 * wrong. */
int st_cost_load(struct st_cost_model *m, const char *path, char *err, size_t errsize);

/* Writes m (which must be valid) to path: creates the missing directories
 * with mode 0700, writes a temporary file beside path, syncs it and renames
 * it over path, so a reader sees the old file or the new one, never half of
 * one. The file's mode is 0600. Returns 0, or -1 with one line in err
 * ("cannot write PATH: reason"). */
int st_cost_save(const struct st_cost_model *m, const char *path, char *err, size_t errsize);

#endif
