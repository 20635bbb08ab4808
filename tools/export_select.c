/* export_select.c — export's event selection and aggregation
 * (export_select.h). */
#define _GNU_SOURCE 1
#include "export_select.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "1.5", "1.5s", "250ms", "40us": a time in ns, or -1. */
static int64_t parse_time(const char *v)
{
    char *end;
    double x = strtod(v, &end);
    double unit = 1e9;
    if (strcmp(end, "ms") == 0)
        unit = 1e6;
    else if (strcmp(end, "us") == 0)
        unit = 1e3;
    else if (strcmp(end, "ns") == 0)
        unit = 1;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    if (end == v || !(x >= 0) || !isfinite(x) || x * unit > 9e18)
        return -1;
    return (int64_t)(x * unit);
}

static uint64_t time_or_die(const char *option, const char *v)
{
    int64_t t = parse_time(v);
    if (t < 0)
        tool_usage_error("export", "%s takes a time like 1.5, 1.5s, 250ms or 40us, not '%s'",
                         option, v);
    return (uint64_t)t;
}

static void *grow(void *p, size_t n, size_t size)
{
    void *q = reallocarray(p, n, size);
    if (!q)
        tool_bad_input("out of memory");
    return q;
}

int export_select_parse(struct export_select *s, int argc, char **argv, int *i)
{
    const char *v;
    if (opt_value("export", argc, argv, i, "--pid", &v)) {
        char *end;
        long pid = strtol(v, &end, 10);
        if (*end || end == v || pid <= 0)
            tool_usage_error("export", "--pid takes a process id, not '%s'", v);
        s->pids = grow(s->pids, s->npids + 1, sizeof *s->pids);
        s->pids[s->npids++] = pid;
    } else if (opt_value("export", argc, argv, i, "--file", &v)) {
        s->globs = grow(s->globs, s->nglobs + 1, sizeof *s->globs);
        s->globs[s->nglobs++] = v;
    } else if (opt_value("export", argc, argv, i, "--from", &v)) {
        s->from_ns = time_or_die("--from", v);
    } else if (opt_value("export", argc, argv, i, "--to", &v)) {
        s->to_ns = time_or_die("--to", v);
        s->to_set = 1;
    } else if (opt_value("export", argc, argv, i, "--aggregate", &v)) {
        int64_t t = parse_time(v);
        if (t <= 0 || !strpbrk(v, "mnus"))
            tool_usage_error("export", "--aggregate takes a period like 10ms or 1s, not '%s'", v);
        s->bucket_ns = (uint64_t)t;
    } else {
        return 0;
    }
    return 1;
}

void export_select_free(struct export_select *s)
{
    free(s->pids);
    free(s->globs);
    memset(s, 0, sizeof *s);
}

int export_select_pid(const struct export_select *s, long pid)
{
    if (!s->npids)
        return 1;
    for (size_t i = 0; i < s->npids; i++)
        if (s->pids[i] == pid)
            return 1;
    return 0;
}

int export_select_time(const struct export_select *s, uint64_t t)
{
    return t >= s->from_ns && (!s->to_set || t < s->to_ns);
}

int export_select_path(const struct export_select *s, const char *path)
{
    if (!s->nglobs)
        return 1;
    for (size_t i = 0; path && i < s->nglobs; i++)
        if (fnmatch(s->globs[i], path, 0) == 0)
            return 1;
    return 0;
}

void export_bucket_flush(struct export_bucket *b, const struct export_select *s, FILE *f, long pid,
                         uint32_t tid)
{
    if (!b->index)
        return;
    double ts = (double)((b->index - 1) * s->bucket_ns) / 1000.0;
    fprintf(f, ",\n{\"name\":\"I/O\",\"cat\":\"aggregate\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
               "\"pid\":%ld,\"tid\":%" PRIu32 ",\"args\":{\"calls\":%" PRIu64
               ",\"read_syscalls\":%" PRIu64 ",\"kernel_read_bytes\":%" PRIu64
               ",\"delivered_bytes\":%" PRIu64 ",\"lseek_syscalls\":%" PRIu64
               ",\"write_syscalls\":%" PRIu64 ",\"kernel_write_bytes\":%" PRIu64,
            ts, (double)s->bucket_ns / 1000.0, pid, tid, b->calls, b->read_syscalls,
            b->kernel_read_bytes, b->delivered_bytes, b->lseek_syscalls, b->write_syscalls,
            b->kernel_write_bytes);
    if (b->top_path) {
        fputs(",\"top_file\":", f);
        json_str(f, b->top_path);
    }
    fputs("}}", f);
    memset(b, 0, sizeof *b);
}

void export_bucket_add(struct export_bucket *b, const struct export_select *s, FILE *f, long pid,
                       uint32_t tid, uint64_t t, const struct st_trace_event *ev,
                       const char *path)
{
    uint64_t index = t / s->bucket_ns + 1;
    if (b->index != index) {
        export_bucket_flush(b, s, f, pid, tid);
        b->index = index;
    }
    const char *name = st_trace_kind(ev->kind)->name;
    uint64_t bytes = ev->result > 0 ? (uint64_t)ev->result : 0;
    if (ev->kind == ST_EV_CALL && ev->counted) {
        b->calls++;
    } else if (strcmp(name, "read") == 0) {
        b->read_syscalls++;
        b->kernel_read_bytes += bytes;
    } else if (strcmp(name, "write") == 0) {
        b->write_syscalls++;
        b->kernel_write_bytes += bytes;
    } else if (ev->kind == ST_EV_LSEEK) {
        b->lseek_syscalls++;
        bytes = 0;
    } else if (ev->kind == ST_EV_DELIVER) {
        b->delivered_bytes += ev->delivered;
        bytes = 0;
    } else {
        bytes = 0;
    }
    /* The file of the bucket's largest single transfer: it needs no table per
     * bucket, and names the file that matters whenever one dominates. */
    if (path && bytes > b->top_bytes) {
        b->top_bytes = bytes;
        b->top_path = path;
    }
}
