/* exit_report.c — turning the live registries into a report and writing it. */
#define _GNU_SOURCE 1
#include "exit_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "cells.h"
#include "config.h"
#include "files.h"
#include "ledger.h"
#include "sites.h"
#include "symbolize.h"
#include "report_model.h"
#include "streams.h"
#include "thread_state.h"
#include "warn.h"

static int reported;
static int argc_saved;
static const char **argv_saved;
static const char *inferred_reason;

void st_report_set_argv(int argc, char **argv)
{
    /* Copied: programs rewrite argv (setproctitle) before they exit. */
    const char **v = st_alloc(sizeof *v * (size_t)(argc > 0 ? argc : 1));
    if (!v || !argv)
        return;
    int n = 0;
    for (int i = 0; i < argc && argv[i]; i++)
        if ((v[n] = st_strdup(argv[i])) != NULL)
            n++;
    argv_saved = v;
    argc_saved = n;
}

void st_report_set_capture(const char *reason_if_inferred)
{
    inferred_reason = reason_if_inferred;
}

void st_report_reset_in_child(void)
{
    reported = 0;
}

/* Streams still open have consumption the ledger has not booked yet. */
static void sync_open_streams(void)
{
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        for (struct st_stream *s = f->streams; s; s = s->next_in_file)
            if (!s->closed)
                st_ledger_sync(s, s->fp);
}

static size_t count_streams(const struct st_file *f)
{
    size_t n = 0;
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        n++;
    return n;
}

/* Symbolized once per site, whatever the number of files it touched. */
static const struct st_report_frame *symbols_of(struct st_site *s)
{
    if (!s->symbols && (s->symbols = st_alloc((size_t)s->nframes * sizeof *s->symbols)) != NULL)
        for (int i = 0; i < s->nframes; i++)
            st_symbolize(s->frames[i], &s->symbols[i]);
    return s->symbols;
}

/* Adds a cell's counts to the file's entry for its site. */
static void add_to_site(struct st_report_file *rf, size_t cap, const struct st_cell *c)
{
    if (!c->site || !rf->sites)
        return;
    size_t i = 0;
    while (i < rf->nsites && rf->sites[i].frames != c->site->symbols)
        i++;
    if (i == rf->nsites) {
        if (i == cap)
            return;
        rf->sites[i].frames = symbols_of(c->site);
        rf->sites[i].nframes = rf->sites[i].frames ? c->site->nframes : 0;
        rf->nsites++;
    }
    st_counts_add(&rf->sites[i].counts, &c->counts);
}

static size_t count_cells(const struct st_file *f)
{
    size_t n = 0;
    for (const struct st_cell *c = f->direct_cells; c; c = c->next_of_owner)
        n++;
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        for (const struct st_cell *c = s->cells; c; c = c->next_of_owner)
            n++;
    return n;
}

static void fill_sites(struct st_report_file *rf, const struct st_file *f)
{
    size_t cap = count_cells(f);
    rf->sites = cap ? st_alloc(cap * sizeof *rf->sites) : NULL;
    for (const struct st_cell *c = f->direct_cells; c; c = c->next_of_owner)
        add_to_site(rf, cap, c);
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        for (const struct st_cell *c = s->cells; c; c = c->next_of_owner)
            add_to_site(rf, cap, c);
}

static void fill_file(struct st_report_file *rf, const struct st_file *f)
{
    rf->path = f->path;
    st_cells_total(f->direct_cells, &rf->counts);
    size_t n = count_streams(f);
    rf->streams = n ? st_alloc(n * sizeof *rf->streams) : NULL;
    for (const struct st_stream *s = f->streams; s && rf->streams; s = s->next_in_file) {
        struct st_counts total;
        memset(&total, 0, sizeof total);
        st_cells_total(s->cells, &total);
        if (!st_counts_any(&total))
            continue;
        struct st_report_stream *rs = &rf->streams[rf->nstreams++];
        rs->fd = s->fd;
        rs->buffer_size = s->buffer_size;
        rs->requested_buffer_size = s->requested_buffer_size;
        rs->mode = s->mode;
        rs->origin = s->origin;
        rs->counts = total;
        st_counts_add(&rf->counts, &total);
    }
}

static int build(struct st_report *r)
{
    size_t n = 0;
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        n++;
    r->files = st_alloc((n ? n : 1) * sizeof *r->files);
    if (!r->files)
        return -1;
    for (struct st_file *f = st_files_first(); f; f = f->next_all) {
        struct st_report_file *rf = &r->files[r->nfiles];
        fill_file(rf, f);
        if (st_counts_any(&rf->counts)) {
            fill_sites(rf, f);
            r->nfiles++;
        }
        else
            memset(rf, 0, sizeof *rf);
    }
    r->capture = inferred_reason ? "inferred" : "exact";
    r->capture_reason = inferred_reason;
    r->pid = (long)syscall(SYS_getpid);
    r->ppid = (long)syscall(SYS_getppid);
    r->argv = argv_saved;
    r->argc = argc_saved;
    st_report_finish(r);
    st_symbolize_done();
    return 0;
}

/* SEEKTRACE_OUTPUT with %p replaced by the pid and %% by %. */
static void expand_path(const char *pattern, char *out, size_t size, long pid)
{
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            o += (size_t)snprintf(out + o, size - o, "%ld", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[o++] = '%';
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < size ? o : size - 1] = '\0';
}

/* Created afresh, never through a symlink someone planted, readable by the
 * owner only. A previous report of ours in its place is replaced. */
static int open_output(const char *path)
{
    int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0600);
    if (fd < 0 && errno == EEXIST) {
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            unlink(path) == 0)
            fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0600);
        else
            errno = EEXIST;
    }
    return fd;
}

void st_report_at_exit(void)
{
    if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
        return;
    int saved_errno = errno;
    st_self.busy++;
    sync_open_streams();

    struct st_report r;
    memset(&r, 0, sizeof r);
    if (build(&r) == 0) {
        int fd = 2;
        char path[4096];
        if (st_config.output) {
            expand_path(st_config.output, path, sizeof path, r.pid);
            fd = open_output(path);
            if (fd < 0) {
                st_warn("cannot create %s (%s); report follows on stderr", path, strerror(errno));
                fd = 2;
            }
        }
        static struct st_outbuf out; /* 8 KiB: not on a possibly small stack */
        st_out_init(&out, fd);
        if (st_config.format == ST_FORMAT_JSON)
            st_report_write_json(&r, &out);
        else
            st_report_write_text(&r, &out);
        if (st_out_flush(&out) != 0 && fd != 2)
            st_warn("writing %s failed; the report is incomplete", path);
        if (fd != 2)
            syscall(SYS_close, fd);
    } else {
        st_warn("out of memory building the report");
    }
    st_self.busy--;
    errno = saved_errno;
}
