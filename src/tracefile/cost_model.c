/* cost_model.c — see cost_model.h. */
#include "cost_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "seektrace-calibration "
#define VERSION 1
/* A real file is about 150 bytes; a bound keeps a wrong path (a log, a
 * device) from being read whole. */
#define FILE_MAX 4096

double st_cost_predict_ns(const struct st_cost_model *m, uint64_t reads, uint64_t lseeks,
                          uint64_t fstats, uint64_t kernel_bytes)
{
    return (double)reads * m->read_ns + (double)lseeks * m->lseek_ns +
           (double)fstats * m->fstat_ns + (double)kernel_bytes * m->byte_ns;
}

/* The figures by name, for the file and the messages, in the order of
 * value() and slot(). */
static const struct field {
    const char *key;
    double max;
} fields[] = {
    {"read_ns", ST_COST_MAX_SYSCALL_NS},
    {"lseek_ns", ST_COST_MAX_SYSCALL_NS},
    {"fstat_ns", ST_COST_MAX_SYSCALL_NS},
    {"byte_ns", ST_COST_MAX_BYTE_NS},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static double value(const struct st_cost_model *m, size_t i)
{
    const double v[NFIELDS] = {m->read_ns, m->lseek_ns, m->fstat_ns, m->byte_ns};
    return v[i];
}

static double *slot(struct st_cost_model *m, size_t i)
{
    double *const p[NFIELDS] = {&m->read_ns, &m->lseek_ns, &m->fstat_ns, &m->byte_ns};
    return p[i];
}

/* False for NaN and infinities too. */
static int in_range(double v, const struct field *f)
{
    return v > 0 && v <= f->max;
}

/* Printable: no control characters, so that a source always stays one line
 * of the file and of a message. Bytes from 0x80 up (UTF-8) are allowed. */
static int printable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

const char *st_cost_invalid(const struct st_cost_model *m)
{
    static char why[128];
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!in_range(value(m, i), &fields[i])) {
            snprintf(why, sizeof why, "%s is not a number above 0 and at most %g",
                     fields[i].key, fields[i].max);
            return why;
        }
    }
    size_t n = strnlen(m->source, sizeof m->source);
    if (n == 0 || n == sizeof m->source || !printable(m->source, n))
        return "the source is not one line of printable text";
    return NULL;
}

int st_cost_default_path(char *out, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    /* The XDG spec: a relative $XDG_CACHE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        n = snprintf(out, size, "%s/seektrace/calibration", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, size, "%s/.cache/seektrace/calibration", home);
    else
        return -1;
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* ---- loading ---------------------------------------------------------------- */

/* Reads the whole file into buf (NUL-terminated); returns its length or -1
 * with err. */
static long read_small(const char *path, char *buf, size_t size, char *err, size_t errsize)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        int e = errno;
        snprintf(err, errsize, "cannot read %s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    size_t n = fread(buf, 1, size - 1, f);
    int failed = ferror(f), more = !failed && fgetc(f) != EOF;
    fclose(f);
    if (failed) {
        snprintf(err, errsize, "cannot read %s: %s", path, strerror(EIO));
        errno = EIO;
        return -1;
    }
    if (more) {
        snprintf(err, errsize, "%s: larger than %zu bytes, not a seektrace calibration", path,
                 size - 1);
        errno = 0;
        return -1;
    }
    buf[n] = '\0';
    return (long)n;
}

/* Checks the version on the first line (its "seektrace-calibration "
 * already checked); returns 0 or -1 with err. */
static int parse_version(const char *path, const char *v, char *err, size_t errsize)
{
    if (strcmp(v, "1") != 0) {
        snprintf(err, errsize,
                 "%s:1: calibration version '%.20s', this seektrace reads version %d: run "
                 "'seektrace calibrate' again",
                 path, v, VERSION);
        return -1;
    }
    return 0;
}

/* Parses one "key value" line into m; seen[] marks the keys already given
 * (the source is the last slot). Returns 0 or -1 with err. */
static int parse_line(struct st_cost_model *m, int seen[NFIELDS + 1], const char *path, int no,
                      const char *line, char *err, size_t errsize)
{
    const char *space = strchr(line, ' ');
    size_t klen = space ? (size_t)(space - line) : strlen(line);
    const char *v = space ? space + 1 : "";
    size_t k = 0;
    while (k < NFIELDS && !(strlen(fields[k].key) == klen && !strncmp(fields[k].key, line, klen)))
        k++;
    if (k == NFIELDS && !(klen == 6 && !strncmp(line, "source", 6))) {
        snprintf(err, errsize, "%s:%d: unknown key '%.*s'", path, no, (int)(klen > 40 ? 40 : klen),
                 line);
        return -1;
    }
    const char *key = k < NFIELDS ? fields[k].key : "source";
    if (seen[k]) {
        snprintf(err, errsize, "%s:%d: a second %s line", path, no, key);
        return -1;
    }
    seen[k] = 1;
    if (!*v) {
        snprintf(err, errsize, "%s:%d: %s has no value", path, no, key);
        return -1;
    }
    if (k == NFIELDS) {
        size_t n = strlen(v);
        if (n >= sizeof m->source) {
            snprintf(err, errsize, "%s:%d: source longer than %zu bytes", path, no,
                     sizeof m->source - 1);
            return -1;
        }
        memcpy(m->source, v, n + 1);
        return 0;
    }
    /* strtod would skip leading blanks (refused: one space separates) and
     * reads "nan" and "inf" (out of range). */
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (*v == ' ' || *end || end == v || errno == ERANGE || !in_range(d, &fields[k])) {
        snprintf(err, errsize, "%s:%d: %s: '%.40s' is not a number above 0 and at most %g", path,
                 no, key, v, fields[k].max);
        return -1;
    }
    *slot(m, k) = d;
    return 0;
}

/* Parses the file's text buf[0..len) into m; returns 0 or -1 with err. */
static int parse(struct st_cost_model *m, const char *path, char *buf, long len, char *err,
                 size_t errsize)
{
    if (len == 0) {
        snprintf(err, errsize, "%s: empty, not a seektrace calibration file", path);
        return -1;
    }
    struct st_cost_model out;
    memset(&out, 0, sizeof out);
    int seen[NFIELDS + 1] = {0}, no = 0;
    for (char *line = buf; line < buf + len;) {
        no++;
        char *nl = memchr(line, '\n', (size_t)(buf + len - line));
        if (no == 1 && strncmp(line, HEADER, strlen(HEADER)) != 0) {
            snprintf(err, errsize, "%s:1: not a seektrace calibration file", path);
            return -1;
        }
        if (!nl) {
            snprintf(err, errsize, "%s:%d: truncated: the last line does not end", path, no);
            return -1;
        }
        *nl = '\0';
        if (!printable(line, (size_t)(nl - line))) {
            snprintf(err, errsize, "%s:%d: a control character or NUL byte", path, no);
            return -1;
        }
        if (no == 1 ? parse_version(path, line + strlen(HEADER), err, errsize)
                    : parse_line(&out, seen, path, no, line, err, errsize))
            return -1;
        line = nl + 1;
    }
    for (size_t k = 0; k <= NFIELDS; k++) {
        if (!seen[k]) {
            snprintf(err, errsize, "%s:%d: no %s line (truncated?)", path, no + 1,
                     k < NFIELDS ? fields[k].key : "source");
            return -1;
        }
    }
    *m = out;
    return 0;
}

int st_cost_load(struct st_cost_model *m, const char *path, char *err, size_t errsize)
{
    char buf[FILE_MAX + 1];
    long len = read_small(path, buf, sizeof buf, err, errsize);
    if (len < 0)
        return -1;
    if (parse(m, path, buf, len, err, errsize) != 0) {
        errno = 0; /* the file is there; its content is wrong */
        return -1;
    }
    return 0;
}

/* ---- saving ------------------------------------------------------------------ */

/* The directories leading to path, created where missing (mode 0700: the
 * file tells how fast this machine is, nobody else's business). */
static int make_parents(const char *path)
{
    char dir[4096];
    size_t n = strlen(path);
    if (n >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return -1;
        if (!c)
            return 0;
        *p = c;
    }
}

/* The shortest decimal that reads back as v: "412.5", not
 * "412.49999999999994". %g writes 350 as "3.5e+02" at two digits, so the
 * first exact one without an exponent wins, else the first exact one
 * (%.17g always is). */
static void shortest(char *buf, size_t size, double v)
{
    char first[32] = "";
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) != v)
            continue;
        if (!strchr(buf, 'e'))
            return;
        if (!first[0])
            snprintf(first, sizeof first, "%s", buf);
    }
    snprintf(buf, size, "%s", first);
}

int st_cost_save(const struct st_cost_model *m, const char *path, char *err, size_t errsize)
{
    const char *why = st_cost_invalid(m);
    if (why) {
        snprintf(err, errsize, "cannot write %s: %s", path, why);
        return -1;
    }
    char tmp[4096 + 8];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    int fd = -1, created = 0;
    FILE *f = NULL;
    if (make_parents(path) != 0 || (fd = mkstemp(tmp)) < 0)
        goto fail;
    created = 1; /* mode 0600: mkstemp's */
    if (!(f = fdopen(fd, "w")))
        goto fail;
    fd = -1; /* f owns it */
    fprintf(f, "%s%d\nsource %s\n", HEADER, VERSION, m->source);
    for (size_t i = 0; i < NFIELDS; i++) {
        char num[32];
        shortest(num, sizeof num, value(m, i));
        fprintf(f, "%s %s\n", fields[i].key, num);
    }
    /* Synced before the rename: after a crash the path holds the old file or
     * the whole new one. */
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        goto fail;
    int closed = fclose(f);
    f = NULL;
    if (closed != 0 || rename(tmp, path) != 0)
        goto fail;
    return 0;
fail:;
    int e = errno;
    snprintf(err, errsize, "cannot write %s: %s", path, strerror(e));
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    if (created)
        unlink(tmp);
    return -1;
}
