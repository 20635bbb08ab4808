/* exit_report.c — turning the live registries into a report and writing it. */
#define _GNU_SOURCE 1
#include "exit_report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "cells.h"
#include "bulk.h"
#include "config.h"
#include "file_row.h"
#include "fold.h"
#include "files.h"
#include "findings.h"
#include "glibc_compat.h"
#include "ledger.h"
#include "ops.h"
#include "own_fds.h"
#include "own_stack.h"
#include "record.h"
#include "output.h"
#include "signal_frame.h"
#include "sites.h"
#include "symbolize.h"
#include "report_model.h"
#include "report_select.h"
#include "storage.h"
#include "streams.h"
#include "thread_state.h"
#include "sort.h"
#include "trace_events.h"
#include "trace_writer.h"
#include "warn.h"

static int reported;
static int report_done; /* written (or given up); reported is set first */
static int argc_saved;
static const char **argv_saved;
static const char *inferred_reason;
static const char *libc_version;
/* The report being written runs in a signal handler (ours for a fatal
 * signal, or the program's calling _exit): it may have interrupted code
 * holding malloc's, the loader's or stdio's lock, which its thread would
 * wait on forever. */
static int in_handler;

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
    st_trace_set_argv(n, v);
}

void st_report_set_capture(const char *reason_if_inferred, const char *version)
{
    inferred_reason = reason_if_inferred;
    libc_version = version;
    st_trace_set_capture(reason_if_inferred, version);
}

void st_report_reset_in_child(void)
{
    st_trace_restart(); /* fork child, failed exec: a new trace */
    report_done = 0;
    reported = 0;
}

int st_report_from_signal;
int st_report_program_handlers;

void st_report_wait(int max_ms)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < max_ms && __atomic_load_n(&reported, __ATOMIC_ACQUIRE) &&
                    !__atomic_load_n(&report_done, __ATOMIC_ACQUIRE); i++)
        syscall(SYS_nanosleep, &ms, NULL);
}

extern void _IO_list_lock(void);
extern void _IO_list_unlock(void);

static void sync_stream(struct st_stream *s)
{
    st_ops_getc_run(s, st_ledger_sync(s, s->fp));
}

/* Streams still open have consumption the ledger has not booked yet. From
 * a signal handler the list lock may be held by the interrupted code: read
 * unlocked. */
static void sync_open_streams(void)
{
    if (!in_handler)
        _IO_list_lock();
    st_streams_each_open(sync_stream);
    if (!in_handler)
        _IO_list_unlock();
}

/* Raw addresses in a signal handler (the signal may have come inside
 * malloc or the loader: no dlopen, dladdr or libdw there), and under
 * SEEKTRACE_SYMBOLIZE=later while a trace is written, from whose modules
 * `seektrace` names them once for the whole job. */
static int frames_stay_raw(void)
{
    return in_handler ||
           (st_config.symbolize_later && __atomic_load_n(&st_trace_on, __ATOMIC_ACQUIRE));
}

/* Symbolized once per site, whatever the number of files it touched
 * (name_sites_at_once has named most before the rows are filled). */
static const struct st_report_frame *symbols_of(struct st_site *s)
{
    int raw = frames_stay_raw();
    if (!s->symbols && (s->symbols = st_alloc((size_t)s->nframes * sizeof *s->symbols)) != NULL)
        for (int i = 0; i < s->nframes; i++) {
            if (raw)
                s->symbols[i].offset = s->frames[i];
            else
                st_symbolize(s->frames[i], &s->symbols[i]);
        }
    return s->symbols;
}

/* A site a row will show: a cell of it counted something in this process
 * (a fork child inherits its parent's cells, of an earlier epoch or
 * zeroed: not its sites). */
static int counted(const struct st_cell *c)
{
    const struct st_tally *live = st_cell_live(c);
    return c->site && live && st_tally_any(live);
}

/* Marks the counted sites of a list of cells not named yet (symbols
 * pointing at mark); adds their frames to *nframes. */
static void mark_sites(const struct st_cell *c, struct st_report_frame *mark, size_t *nframes)
{
    for (; c; c = c->next_of_owner)
        if (counted(c) && !c->site->symbols) {
            c->site->symbols = mark;
            *nframes += (size_t)c->site->nframes;
        }
}

/* Every site the rows will show, named in one call (st_symbolize_many),
 * before the rows are filled: one walk of a module's symbol table for all
 * of its frames, where a walk per frame took 3 ms of each cc1 (29,000
 * symbols, some 50 frames). Without room, symbols_of names each alone. */
static void name_sites_at_once(void)
{
    static struct st_report_frame mark;
    if (frames_stay_raw())
        return;
    size_t nframes = 0;
    for (const struct st_file *f = st_files_first(); f; f = f->next_all) {
        mark_sites(f->direct_cells, &mark, &nframes);
        for (const struct st_stream *st = f->streams; st; st = st->next_in_file)
            mark_sites(st->cells, &mark, &nframes);
    }
    uintptr_t *pcs = nframes ? st_alloc(nframes * sizeof *pcs) : NULL;
    struct st_report_frame *named = pcs ? st_alloc(nframes * sizeof *named) : NULL;
    size_t at = 0;
    for (struct st_site *s = st_sites_first(); s; s = s->next_all)
        if (s->symbols == &mark) {
            if (named) {
                memcpy(&pcs[at], s->frames, (size_t)s->nframes * sizeof *pcs);
                s->symbols = &named[at];
            } else {
                s->symbols = NULL;
            }
            at += (size_t)s->nframes;
        }
    if (named)
        st_symbolize_many(pcs, nframes, named);
}

/* Adds a cell's counts to the file's entry for its site. */
static void add_to_site(struct st_report_file *rf, size_t cap, const struct st_cell *c)
{
    if (!rf->sites || !counted(c))
        return;
    size_t i = 0;
    while (i < rf->nsites && rf->sites[i].frames != c->site->symbols)
        i++;
    if (i == rf->nsites) {
        if (i == cap)
            return;
        /* Zeroed as it is taken: room is kept for every cell (kilobytes
         * each), most files use one or two. */
        memset(&rf->sites[i], 0, sizeof rf->sites[i]);
        rf->sites[i].frames = symbols_of(c->site);
        rf->sites[i].nframes = rf->sites[i].frames ? c->site->nframes : 0;
        rf->nsites++;
    }
    st_tally_total(st_cell_live(c), &rf->sites[i].counts);
}

/* rf's sites, in room for cap of them (st_file_row_cells(f)). */
static void fill_sites(struct st_report_file *rf, const struct st_file *f,
                       struct st_report_site *room, size_t cap)
{
    rf->sites = room;
    rf->nsites = 0;
    for (const struct st_cell *c = f->direct_cells; c; c = c->next_of_owner)
        add_to_site(rf, cap, c);
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        for (const struct st_cell *c = s->cells; c; c = c->next_of_owner)
            add_to_site(rf, cap, c);
}

/* A file's whole row, in memory of its own, when it has anything to show. */
static void keep_row(struct st_report *r, const struct st_file *f)
{
    struct st_report_file *rf = &r->files[r->nfiles];
    size_t n = st_file_row_streams(f), cap = st_file_row_cells(f);
    st_file_row_fill(rf, f, n ? st_alloc(n * sizeof *rf->streams) : NULL);
    if (!st_counts_any(&rf->counts))
        return;
    fill_sites(rf, f, cap ? st_alloc(cap * sizeof *rf->sites) : NULL, cap);
    r->nfiles++;
}

/* Memory for one file's row while every file is ranked: grown when a file
 * needs more, reused for the next. */
struct scratch {
    struct st_report_stream *streams;
    size_t nstreams;
    struct st_report_site *sites;
    size_t nsites;
};

static void *room_for(void *have, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return have;
    size_t grown = *cap ? *cap : 8;
    while (grown < want)
        grown *= 2;
    void *p = st_alloc(grown * size);
    if (p)
        *cap = grown;
    return p ? p : have;
}

/* f's row in rf, in memory reused for the next file: its counts and
 * streams, and with sites, its sites in the report's order. */
static void fill_row(struct st_report_file *rf, const struct st_file *f, struct scratch *sc,
                     int sites)
{
    size_t n = st_file_row_streams(f);
    sc->streams = room_for(sc->streams, &sc->nstreams, n, sizeof *sc->streams);
    st_file_row_fill(rf, f, n <= sc->nstreams ? sc->streams : NULL);
    if (!sites)
        return;
    size_t cap = st_file_row_cells(f);
    sc->sites = room_for(sc->sites, &sc->nsites, cap, sizeof *sc->sites);
    fill_sites(rf, f, cap <= sc->nsites ? sc->sites : NULL, cap);
    st_report_order_sites(rf);
}

/* f offered to the selection, with its sites: the text report's worst call
 * sites are picked among them, and hints look at them (report_select.h). */
static void rank_one(struct st_report_select *sel, const struct st_file *f, struct scratch *sc)
{
    struct st_report_file rf;
    fill_row(&rf, f, sc, 1);
    if (st_counts_any(&rf.counts))
        st_report_select_offer(sel, &rf, f);
}

/* The rows of the selected files, each once; the other files summed. */
static int keep_selected(struct st_report *r, struct st_report_select *sel)
{
    size_t n = sel->rows.cap + sel->pairs.cap + sel->findings.cap + ST_REPORT_SELECT_EXTRA;
    const void **kept = st_alloc((n ? n : 1) * sizeof *kept);
    if (!kept)
        return -1;
    /* Rows (kilobytes each) for the files kept, not for as many as could
     * be: a process of a few files under a tight ulimit -v has no room for
     * a thousand. */
    n = st_report_select_kept(sel, kept);
    r->files = st_alloc((n ? n : 1) * sizeof *r->files);
    if (!r->files)
        return -1;
    for (size_t i = 0; i < n; i++)
        keep_row(r, kept[i]);
    r->other = sel->all;
    for (size_t i = 0; i < r->nfiles; i++)
        st_counts_sub(&r->other, &r->files[i].counts);
    r->nfiles_other = sel->active > r->nfiles ? sel->active - r->nfiles : 0;
    return 0;
}

/* Every file with anything to show gets a row (n files are registered):
 * SEEKTRACE_REPORT_FILES=all asks for it, a process of no more files than
 * the report has rows for needs nothing else, and a traced process of no
 * more files than SEEKTRACE_REPORT_FILES keeps them (its report then reads
 * as its trace's). A fork child that read one of
 * its parent's 20,000 files still writes one row, and the pages of the
 * others' rows are never touched. */
static int keep_all(struct st_report *r, size_t n)
{
    r->files = st_alloc((n ? n : 1) * sizeof *r->files);
    if (!r->files)
        return -1;
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        keep_row(r, f);
    r->nfiles_other = st_fold_add_totals(&r->other);
    return 0;
}

static int select_rows(struct st_report *r)
{
    int text = st_config.format != ST_FORMAT_JSON;
    size_t rows = text ? ST_REPORT_TEXT_FILES : st_config.report_files, files = 0;
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        files++;
    /* No more files than the report has rows for, none folded: the
     * selection would keep every one, so none is ranked first (a process
     * of a few files touched pages for each file's row twice). */
    if (rows == 0 || (st_trace_on && files <= st_config.report_files) ||
        (files <= rows && !st_fold_count()))
        return keep_all(r, files);
    size_t nfind = text ? ST_REPORT_TEXT_FINDINGS : ST_REPORT_JSON_FINDINGS;
    size_t npairs = text ? ST_REPORT_TEXT_SITES : 0; /* JSON has no such list */
    struct st_rank *v = st_alloc((rows + npairs + nfind + ST_REPORT_SELECT_EXTRA) * sizeof *v);
    if (!v)
        return -1;
    struct st_report_select sel;
    st_report_select_init(&sel, v, rows, npairs, nfind);
    struct scratch sc = {0};
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        rank_one(&sel, f, &sc);
    sel.active += st_fold_add_totals(&sel.all); /* closed files summed as they closed */
    /* A text report's "more files" says where to see them: the JSON report
     * lists them all only up to SEEKTRACE_REPORT_FILES. */
    r->json_rows_bounded = !text || sel.active > st_config.report_files;
    return keep_selected(r, &sel);
}

/* The trace's footer lists every file with anything to show, in the
 * report's order, whatever rows the report keeps: ranked once, then filled
 * a row at a time into memory reused for the next (trace_writer.h). */
static struct {
    struct st_rank *v;
    size_t n;
    const struct st_report_storage *storage;
    struct scratch sc;
    struct st_report_file row;
} every ST_BULK; /* only for a report with files */

static int rank_cmp(const void *a, const void *b)
{
    return st_rank_cmp(a, b);
}

static const struct st_report_file *every_row(size_t i)
{
    struct st_report_file *rf = &every.row;
    fill_row(rf, every.v[i].item, &every.sc, 1);
    rf->device_measured = every.storage->measured && every.storage->per_file;
    return rf;
}

/* NULL when out of memory. */
static const struct st_trace_rows *every_file(const struct st_report *r)
{
    static struct st_trace_rows rows;
    size_t n = 0;
    for (struct st_file *f = st_files_first(); f; f = f->next_all)
        n++;
    every.v = st_alloc((n ? n : 1) * sizeof *every.v);
    if (!every.v)
        return NULL;
    every.n = 0; /* a fork child of a process that reported reports afresh */
    every.storage = &r->storage;
    for (struct st_file *f = st_files_first(); f; f = f->next_all) {
        struct st_report_file rf;
        fill_row(&rf, f, &every.sc, 0);
        if (!st_counts_any(&rf.counts))
            continue;
        every.v[every.n] = st_report_rank_file(&rf);
        every.v[every.n++].item = f;
    }
    st_sort(every.v, every.n, sizeof *every.v, rank_cmp);
    rows = (struct st_trace_rows){every.n, every_row};
    return &rows;
}

static int build(struct st_report *r)
{
    name_sites_at_once();
    if (select_rows(r) != 0)
        return -1;
    r->capture = inferred_reason ? "inferred" : "exact";
    r->capture_reason = inferred_reason;
    r->libc_version = libc_version;
    r->pid = (long)syscall(SYS_getpid);
    r->ppid = (long)syscall(SYS_getppid);
    r->argv = argv_saved;
    r->argc = argc_saved;
    st_report_finish(r, st_alloc((r->nfiles ? r->nfiles : 1) * sizeof(size_t)));
    st_storage_report(r);
    st_symbolize_done();
    return 0;
}

static int emit(const struct st_report *r, int fd)
{
    /* 8 KiB: not on a possibly small stack, nor among the small variables. */
    static struct st_outbuf out ST_BULK;
    st_out_init(&out, fd);
    if (st_config.format == ST_FORMAT_JSON)
        st_report_write_json(r, &out);
    else
        st_report_write_text(r, &out);
    return st_out_flush(&out);
}

/* The report where SEEKTRACE_OUTPUT says: 0 when it is there whole, -1
 * after the one warning saying why not (it then goes to stderr). The
 * warning goes where the report may go: the stderr the process started
 * with, never a file the program opened on fd 2. */
static int emit_to_output(const struct st_report *r)
{
    struct st_output out;
    if (st_output_open(&out, r->pid) < 0) {
        st_warn("cannot open %s (%s); report follows on stderr", out.path,
                strerrorname_np(errno));
        return -1;
    }
    if (emit(r, out.fd) != 0) {
        int e = errno;
        int removed = st_output_abandon(&out);
        st_warn("writing %s failed (%s)%s; report follows on stderr", out.path,
                strerrorname_np(e), removed ? ", incomplete file removed" : "");
        return -1;
    }
    st_output_close(&out);
    return 0;
}

static void write_report(void)
{
    int saved_errno = errno;
    /* Unwinding to a signal frame costs tens of microseconds: only when a
     * handler of the program's could be what is running. */
    in_handler = st_report_from_signal ||
                 (__atomic_load_n(&st_report_program_handlers, __ATOMIC_ACQUIRE) &&
                  st_in_signal_handler());
    struct st_sigblock blocked;
    st_lifecycle_block_signals(&blocked);
    st_self.busy++;
    st_self.own_io++; /* symbolizing reads ELF files */
    sync_open_streams();

    struct st_report r;
    memset(&r, 0, sizeof r);
    /* SEEKTRACE_REPORT=off: the accounts go into the trace's footer only. */
    int wanted = st_config.report || st_trace_on;
    if (wanted && build(&r) == 0) {
        if (st_trace_on) {
            /* The trace's footer: these same accounts, every file. */
            const struct st_trace_rows *rows = every_file(&r);
            if (rows)
                st_trace_finish(&r, rows);
            else
                st_warn("out of memory writing the trace's footer; the trace stays partial");
        }
        if (st_config.report && (!st_config.output || emit_to_output(&r) != 0)) {
            int err_fd = st_lifecycle_report_fd_kept(); /* stderr, if still safe to write */
            if (err_fd >= 0)
                emit(&r, err_fd);
        }
    } else if (wanted) {
        st_warn("out of memory building the report");
    }
    st_self.own_io--;
    st_self.busy--;
    st_lifecycle_unblock_signals(&blocked);
    __atomic_store_n(&report_done, 1, __ATOMIC_RELEASE);
    errno = saved_errno;
}

void st_report_at_exit(void)
{
    /* A vfork child runs in its parent's memory: the accounts, and the
     * report, are the parent's. */
    if (!st_lifecycle_is_owner())
        return;
    if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
        return;
    /* Its frames take tens of KiB: a thread of 16 KiB that calls exit, a
     * coroutine's stack or a signal's alternate stack would overflow. */
    if (st_stack_is_roomy())
        write_report();
    else
        st_run_on_own_stack(write_report);
}
