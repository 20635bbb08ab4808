/* fold.c — see fold.h. */
#include "fold.h"

#include <string.h>

#include "arena.h"
#include "attribution.h"
#include "bulk.h"
#include "cells.h"
#include "config.h"
#include "fdtable.h"
#include "file_row.h"
#include "findings.h"
#include "glibc_compat.h"
#include "sort.h"
#include "stream.h"
#include "thread_state.h"
#include "trace_events.h"

/* Closed files kept, as a heap whose root is the least costly of them (the
 * next to fold); rank.item is the file, whose fold_slot is 1 + its index. */
static struct st_rank *kept;
static size_t nkept;

static struct st_counts folded ST_BULK; /* only once files are folded */
static size_t nfolded;

/* Room for one file's streams while it is ranked. */
static struct st_report_stream *room;
static size_t room_size;

static int enabled(void)
{
    /* A trace's footer gives device bytes by file only to the files it
     * holds itself (trace_format.h, ROWS). */
    return st_config.report_files != 0 && __libc_single_threaded &&
           !(st_trace_on && st_config.storage_per_file);
}

/* Nothing open on f: no descriptor, no stream, no stream's bytes carried. */
static int closed_for_good(const struct st_file *f)
{
    if (__atomic_load_n(&f->fds, __ATOMIC_ACQUIRE) > 0)
        return 0;
    for (const struct st_stream *s = f->streams; s; s = s->next_in_file)
        if (!s->closed || s->carried)
            return 0;
    return 1;
}

/* f's row, its streams in `room` (grown as needed; without room, counts
 * only: findings then see no streams, and f is not folded). */
static int fill_row(struct st_report_file *rf, const struct st_file *f)
{
    size_t n = st_file_row_streams(f);
    if (n > room_size) {
        struct st_report_stream *grown = st_alloc(2 * n * sizeof *grown);
        if (!grown)
            return -1;
        room = grown;
        room_size = 2 * n;
    }
    st_file_row_fill(rf, f, room);
    return 0;
}

static int in_heap(const struct st_file *f)
{
    return f->fold_slot && f->fold_slot <= nkept && kept[f->fold_slot - 1].item == f;
}

/* Root-most is the least costly: x above y when y ranks before x. */
static int above(size_t x, size_t y)
{
    return st_rank_cmp(&kept[x], &kept[y]) > 0;
}

static void place(size_t i)
{
    ((struct st_file *)kept[i].item)->fold_slot = (unsigned)i + 1;
}

static void swap(size_t i, size_t j)
{
    struct st_rank t = kept[i];
    kept[i] = kept[j];
    kept[j] = t;
    place(i);
    place(j);
}

static void sift(size_t i)
{
    while (i > 0 && above(i, (i - 1) / 2)) {
        swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, top = i;
        if (l < nkept && above(l, top))
            top = l;
        if (r < nkept && above(r, top))
            top = r;
        if (top == i)
            return;
        swap(i, top);
        i = top;
    }
}

static void heap_remove(struct st_file *f)
{
    size_t i = f->fold_slot - 1;
    f->fold_slot = 0;
    if (i != --nkept) {
        kept[i] = kept[nkept];
        place(i);
        sift(i);
    }
}

/* f (its row rf: counts and streams) into the sum, its memory to the next
 * files; f stays as it is when the registry is refused (registry_lock.h),
 * or a trace has no room for its row. */
static void fold(struct st_file *f, const struct st_report_file *rf)
{
    const struct st_counts *counts = &rf->counts;
    /* This thread's caches may name f's cells, which other owners get next. */
    st_cells_forget_caches();
    st_pairs_forget();
    st_self.current_fp = NULL;
    st_self.current_stream = NULL;
    /* While a trace is written its footer lists every file: f's row goes
     * into the trace now, or f stays. */
    int traced = __atomic_load_n(&st_trace_on, __ATOMIC_ACQUIRE);
    if (traced && st_trace_fold_row(f, rf) != 0)
        return;
    int out = st_file_fold_out(f);
    if (traced)
        st_trace_fold_done(out == 0);
    if (out != 0)
        return;
    if (st_counts_any(counts)) {
        st_counts_add(&folded, counts);
        nfolded++;
    }
}

static void offer(struct st_file *f)
{
    if (!closed_for_good(f))
        return;
    struct st_report_file rf;
    if (fill_row(&rf, f) != 0)
        return;
    if (st_file_has_findings(&rf)) {
        if (in_heap(f))
            heap_remove(f); /* kept for good */
        return;
    }
    if (!st_counts_any(&rf.counts)) { /* no row to show: nothing to rank */
        if (in_heap(f))
            heap_remove(f);
        fold(f, &rf);
        return;
    }
    struct st_rank mine = st_report_rank_file(&rf);
    mine.item = f;
    if (in_heap(f)) { /* reopened and closed again: its counts grew */
        kept[f->fold_slot - 1] = mine;
        sift(f->fold_slot - 1);
        return;
    }
    size_t cap = st_config.report_files;
    if (!kept && (kept = st_alloc(cap * sizeof *kept)) == NULL)
        return;
    if (nkept < cap) {
        kept[nkept++] = mine;
        place(nkept - 1);
        sift(nkept - 1);
        return;
    }
    if (st_rank_cmp(&mine, &kept[0]) > 0) { /* ranks after every file kept */
        fold(f, &rf);
        return;
    }
    struct st_file *least = (struct st_file *)kept[0].item;
    least->fold_slot = 0;
    kept[0] = mine;
    place(0);
    sift(0);
    /* Reopened since it was kept: out of the heap, offered again when it
     * closes. */
    if (closed_for_good(least) && fill_row(&rf, least) == 0 && !st_file_has_findings(&rf))
        fold(least, &rf);
}

/* Closed files wait here before they are offered: a file is often opened
 * again soon (fopen, then open; a header included twice), and one folded
 * meanwhile would come back as a new record, counted twice among the
 * report's other files. */
#define WAITING 64
static struct st_file *waiting[WAITING];
static unsigned nwaiting, next_out;

static int is_waiting(const struct st_file *f)
{
    for (unsigned i = 0; i < nwaiting; i++)
        if (waiting[i] == f)
            return 1;
    return 0;
}

void st_fold_offer_closed(void)
{
    /* A vfork child runs on its parent's memory (lifecycle_vfork.c): it
     * must not fold the parent's files. */
    if (st_self.own_io)
        return;
    struct st_file *closed[8];
    size_t n = st_fd_files_emptied(closed, sizeof closed / sizeof closed[0]);
    if (!n || !enabled())
        return;
    /* Busy: a signal handler's calls meanwhile only count (record.h). */
    st_self.busy++;
    for (size_t i = 0; i < n && enabled(); i++) {
        if (is_waiting(closed[i]))
            continue;
        if (nwaiting < WAITING) {
            waiting[nwaiting++] = closed[i];
            continue;
        }
        /* Open again meanwhile, it is offered when it closes next; a
         * record folded meanwhile (offered twice) may be another file's
         * now, offered as any other. */
        struct st_file *oldest = waiting[next_out];
        waiting[next_out] = closed[i];
        next_out = (next_out + 1) % WAITING;
        offer(oldest);
    }
    st_self.busy--;
}

size_t st_fold_add_totals(struct st_counts *sum)
{
    if (nfolded)
        st_counts_add(sum, &folded);
    return nfolded;
}

size_t st_fold_count(void)
{
    return nfolded;
}

void st_fold_reset(void)
{
    nkept = 0;
    nwaiting = next_out = 0;
    if (nfolded) {
        memset(&folded, 0, sizeof folded);
        nfolded = 0;
    }
}
