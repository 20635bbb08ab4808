/* baseline_diff.c — two runs of a job compared entry by entry (baseline.h).
 *
 * An entry of the new run regresses when one of its judged figures grew by
 * more than the allowed share AND by at least the floor: a share alone
 * would fail a 40-byte file that grew to 80, a floor alone a 2 GB file
 * that grew by 1 %. Syscalls have a floor of floor / 4 KiB, the price the
 * findings give a syscall (findings.h). An entry new in this run regresses
 * only if it wastes the floor (kernel bytes never delivered, or read
 * again): a new test reading a new file is not a regression. */
#define _GNU_SOURCE 1
#include "baseline.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "units.h"

enum diff_kind { D_SAME, D_GREW, D_NEW_WASTE, D_NEW, D_IMPROVED, D_GONE };
/* bits of diff_item.metrics beyond the BM_* ones */
#define AMPLIFICATION_BIT (1u << BM_COUNT)

struct diff_item {
    const struct baseline_entry *old, *now; /* NULL: not in that run */
    enum diff_kind kind;
    unsigned metrics; /* 1 << BM_*: the figures that grew (or shrank) */
    char *message;
};

struct baseline_diff {
    struct diff_item *items;
    size_t n;
    size_t regressions;
    size_t old_entries, new_entries;
    double growth;
    uint64_t floor;
};

static const char *const kind_names[] = {"same", "grew", "new", "new", "improved", "gone"};

static uint64_t floor_of(const struct baseline_diff *d, int m)
{
    uint64_t f = baseline_metric_is_bytes[m] ? d->floor : d->floor / 4096;
    return f ? f : 1;
}

static uint64_t waste(const struct baseline_entry *e)
{
    uint64_t r = e->v[BM_kernel_read_bytes], dl = e->v[BM_delivered_bytes];
    return r > dl ? r - dl : 0;
}

static double amplification(const struct baseline_entry *e)
{
    return e->v[BM_delivered_bytes]
               ? (double)e->v[BM_kernel_read_bytes] / (double)e->v[BM_delivered_bytes]
               : 0;
}

/* b beyond a by more than the share and the floor. */
static int beyond(const struct baseline_diff *d, uint64_t a, uint64_t b, uint64_t floor)
{
    return (double)b > (double)a * (1 + d->growth) && b - a >= floor;
}

static void judge_pair(const struct baseline_diff *d, struct diff_item *it)
{
    const struct baseline_entry *o = it->old, *n = it->now;
    unsigned grew = 0, shrank = 0;
    for (int m = 0; m < BM_COUNT; m++) {
        if (!baseline_metric_judged[m])
            continue;
        if (beyond(d, o->v[m], n->v[m], floor_of(d, m)))
            grew |= 1u << m;
        if (beyond(d, n->v[m], o->v[m], floor_of(d, m)))
            shrank |= 1u << m;
    }
    double ao = amplification(o), an = amplification(n);
    if (ao > 0 && an > ao * (1 + d->growth) && waste(n) >= waste(o) + d->floor)
        grew |= AMPLIFICATION_BIT;
    it->kind = grew ? D_GREW : shrank ? D_IMPROVED : D_SAME;
    it->metrics = grew ? grew : shrank;
}

static void judge_new(const struct baseline_diff *d, struct diff_item *it)
{
    const struct baseline_entry *n = it->now;
    if (waste(n) >= d->floor)
        it->metrics |= 1u << BM_kernel_read_bytes;
    if (n->v[BM_reread_bytes] >= d->floor)
        it->metrics |= 1u << BM_reread_bytes;
    it->kind = it->metrics ? D_NEW_WASTE : D_NEW;
}

static void figure(char *buf, size_t size, int m, uint64_t v)
{
    if (baseline_metric_is_bytes[m])
        st_fmt_bytes(buf, size, v);
    else
        st_fmt_count(buf, size, v);
}

/* Appends to buf (size bytes, *used of them taken), cutting what does not fit. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

/* "KEY: kernel_read_bytes 4.00 KiB -> 4.00 MiB (+102300 %), ...; site ..." */
static void describe(struct diff_item *it)
{
    char msg[2048], a[32], b[32];
    const struct baseline_entry *e = it->now ? it->now : it->old;
    size_t used = 0;
    append(msg, sizeof msg, &used, "%s", e->key);
    const char *sep = ": ";
    for (int m = 0; m <= BM_COUNT; m++) {
        if (!(it->metrics & (1u << m)))
            continue;
        if (m == BM_COUNT) {
            append(msg, sizeof msg, &used, "%samplification %s -> %s", sep,
                                     st_fmt_ratio(a, sizeof a, amplification(it->old)),
                                     st_fmt_ratio(b, sizeof b, amplification(it->now)));
        } else if (it->kind == D_NEW_WASTE) {
            /* A new waste has no old entry, so e is it->now. */
            uint64_t v = m == BM_kernel_read_bytes ? waste(e) : e->v[m];
            append(msg, sizeof msg, &used, "%s%s %s", sep,
                                     m == BM_kernel_read_bytes ? "wasted_bytes" : "reread_bytes",
                                     st_fmt_bytes(a, sizeof a, v));
        } else if (it->old && it->now) { /* grew or improved: a pair */
            uint64_t o = it->old->v[m], n = it->now->v[m];
            figure(a, sizeof a, m, o);
            figure(b, sizeof b, m, n);
            append(msg, sizeof msg, &used, "%s%s %s -> %s", sep,
                                     baseline_metric_names[m], a, b);
            if (o)
                append(msg, sizeof msg, &used, " (%+.0f %%)",
                                         100.0 * ((double)n - (double)o) / (double)o);
        }
        sep = ", ";
    }
    if (e->where)
        append(msg, sizeof msg, &used, "; at %s", e->where);
    it->message = strdup(msg);
    if (!it->message)
        tool_bad_input("out of memory");
}

static struct diff_item *push(struct baseline_diff *d, size_t *cap)
{
    if (d->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        d->items = reallocarray(d->items, *cap, sizeof *d->items);
        if (!d->items)
            tool_bad_input("out of memory");
    }
    struct diff_item *it = &d->items[d->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* A site key without its " SOURCE:LINE": a site whose line moved (an edit
 * above it) is still the same site when it is the only one of its module
 * and function on both sides. Returns the prefix length, or 0 if none. */
static size_t moved_prefix(const char *key)
{
    if (strncmp(key, "site ", 5) != 0)
        return 0;
    const char *last = strrchr(key, ' ');
    return last && strchr(last, ':') && last - key > 5 ? (size_t)(last - key) : 0;
}

struct unpaired {
    size_t index; /* into diff.items */
    const char *key;
    size_t prefix;
};

static int by_prefix(const void *x, const void *y)
{
    const struct unpaired *a = x, *b = y;
    size_t n = a->prefix < b->prefix ? a->prefix : b->prefix;
    int c = strncmp(a->key, b->key, n);
    return c ? c : (a->prefix > b->prefix) - (a->prefix < b->prefix);
}

static int same_prefix(const struct unpaired *a, const struct unpaired *b)
{
    return a->prefix == b->prefix && strncmp(a->key, b->key, a->prefix) == 0;
}

/* Pairs each new-only site with the gone one it moved from (moved_prefix). */
static void pair_moved(struct baseline_diff *d)
{
    struct unpaired *u = calloc(d->n + 1, sizeof *u);
    if (!u)
        tool_bad_input("out of memory");
    size_t nu = 0;
    for (size_t i = 0; i < d->n; i++) {
        const struct baseline_entry *e = d->items[i].now ? d->items[i].now : d->items[i].old;
        size_t prefix = moved_prefix(e->key);
        if (prefix && !(d->items[i].now && d->items[i].old))
            u[nu++] = (struct unpaired){i, e->key, prefix};
    }
    qsort(u, nu, sizeof *u, by_prefix);
    for (size_t i = 0; i < nu;) {
        size_t j = i + 1;
        while (j < nu && same_prefix(&u[i], &u[j]))
            j++;
        struct diff_item *a = &d->items[u[i].index], *b = j == i + 2 ? &d->items[u[i + 1].index] : NULL;
        if (b && !a->now != !b->now) {
            struct diff_item *now = a->now ? a : b, *gone = a->now ? b : a;
            now->old = gone->old;
            gone->old = NULL; /* dropped below */
        }
        i = j;
    }
    free(u);
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->items[i].now || d->items[i].old)
            d->items[k++] = d->items[i];
    d->n = k;
}

/* The entry with key in b, unless it is empty. */
static const struct baseline_entry *present(const struct baseline *b, const char *key)
{
    const struct baseline_entry *e = baseline_find(b, key);
    return e && !baseline_entry_empty(e) ? e : NULL;
}

struct baseline_diff *baseline_compare(struct baseline *old, struct baseline *now,
                                       double max_growth, uint64_t floor)
{
    struct baseline_diff *d = calloc(1, sizeof *d);
    if (!d)
        tool_bad_input("out of memory");
    d->growth = max_growth;
    d->floor = floor;
    baseline_sort(old);
    baseline_sort(now);
    size_t cap = 0;
    for (size_t i = 0; i < baseline_size(now); i++) {
        if (baseline_entry_empty(baseline_entry(now, i)))
            continue;
        struct diff_item *it = push(d, &cap);
        d->new_entries++;
        it->now = baseline_entry(now, i);
        it->old = present(old, it->now->key);
    }
    for (size_t i = 0; i < baseline_size(old); i++) {
        if (baseline_entry_empty(baseline_entry(old, i)))
            continue;
        d->old_entries++;
        if (!present(now, baseline_entry(old, i)->key))
            push(d, &cap)->old = baseline_entry(old, i);
    }
    pair_moved(d);
    for (size_t i = 0; i < d->n; i++) {
        struct diff_item *it = &d->items[i];
        if (it->now && it->old)
            judge_pair(d, it);
        else if (it->now)
            judge_new(d, it);
        else
            it->kind = D_GONE;
        d->regressions += it->kind == D_GREW || it->kind == D_NEW_WASTE;
        describe(it);
    }
    return d;
}

void baseline_diff_free(struct baseline_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->items[i].message);
    free(d->items);
    free(d);
}

size_t baseline_regressions(const struct baseline_diff *d)
{
    return d->regressions;
}

size_t baseline_diff_cases(const struct baseline_diff *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += d->items[i].now != NULL;
    return n;
}

/* How many lines of information (improved, new, gone) text prints of each. */
#define TEXT_INFO_LINES 10

void baseline_diff_text(const struct baseline_diff *d, FILE *f)
{
    static const struct {
        const char *label;
        enum diff_kind kind;
        int all;
    } parts[] = {{"regressed", D_GREW, 1},  {"new and wasteful", D_NEW_WASTE, 1},
                 {"improved", D_IMPROVED, 0}, {"new", D_NEW, 0}, {"gone", D_GONE, 0}};
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
        size_t shown = 0, total = 0;
        for (size_t i = 0; i < d->n; i++) {
            if (d->items[i].kind != parts[p].kind)
                continue;
            if (parts[p].all || shown < TEXT_INFO_LINES) {
                fprintf(f, "baseline: %s: %s\n", parts[p].label, d->items[i].message);
                shown++;
            }
            total++;
        }
        if (total > shown)
            fprintf(f, "baseline: ... and %zu more %s (--format json lists all)\n", total - shown,
                    parts[p].label);
    }
}

static void json_item(const struct diff_item *it, FILE *f)
{
    const struct baseline_entry *e = it->now ? it->now : it->old;
    fputc('{', f);
    baseline_entry_json_name(e, f);
    fprintf(f, ",\"change\":\"%s\"", kind_names[it->kind]);
    fputs(",\"changed\":[", f);
    int comma = 0;
    for (int m = 0; m <= BM_COUNT; m++)
        if (it->metrics & (1u << m))
            fprintf(f, "%s\"%s\"", comma++ ? "," : "",
                    m == BM_COUNT ? "amplification" : baseline_metric_names[m]);
    fputs("]", f);
    for (int side = 0; side < 2; side++) {
        const struct baseline_entry *s = side ? it->now : it->old;
        fprintf(f, ",\"%s\":", side ? "new" : "old");
        if (!s) {
            fputs("null", f);
            continue;
        }
        fputc('{', f);
        for (int m = 0; m < BM_COUNT; m++)
            fprintf(f, "%s\"%s\":%" PRIu64, m ? "," : "", baseline_metric_names[m], s->v[m]);
        fputc('}', f);
    }
    fputs(",\"message\":", f);
    json_str(f, it->message);
    fputc('}', f);
}

void baseline_diff_json(const struct baseline_diff *d, FILE *f)
{
    fprintf(f, "\"max_growth\":%g,\"floor\":%" PRIu64 ",\"old_entries\":%zu,\"new_entries\":%zu,"
               "\"regressions\":%zu,\"changes\":[",
            d->growth, d->floor, d->old_entries, d->new_entries, d->regressions);
    int comma = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->items[i].kind == D_SAME)
            continue;
        if (comma++)
            fputc(',', f);
        json_item(&d->items[i], f);
    }
    fputs("]", f);
}

void baseline_diff_junit(const struct baseline_diff *d, FILE *f, void (*xml)(FILE *, const char *))
{
    for (size_t i = 0; i < d->n; i++) {
        const struct diff_item *it = &d->items[i];
        if (!it->now)
            continue;
        fprintf(f, "    <testcase classname=\"seektrace.baseline\" name=\"");
        xml(f, it->now->key);
        if (it->kind != D_GREW && it->kind != D_NEW_WASTE) {
            fprintf(f, "\"/>\n");
            continue;
        }
        fprintf(f, "\">\n      <failure type=\"%s\" message=\"",
                it->kind == D_GREW ? "baseline.grew" : "baseline.new");
        xml(f, it->message);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
}

/* A keyed path back under its directory: "{src}/a" -> "/checkout/a". */
static void unkey(const struct baseline_keys *keys, const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    for (size_t i = 0; path[0] == '{' && i < keys->nprefixes; i++) {
        size_t n = strlen(keys->prefix_names[i]);
        if (strncmp(path + 1, keys->prefix_names[i], n) == 0 && path[n + 1] == '}') {
            snprintf(out, size, "%s%s", keys->prefix_dirs[i], path + n + 2);
            return;
        }
    }
}

void baseline_diff_annotate(const struct baseline_diff *d, const struct baseline_keys *keys,
                            struct annotations *as)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct diff_item *it = &d->items[i];
        if (it->kind != D_GREW && it->kind != D_NEW_WASTE)
            continue;
        const struct baseline_entry *e = it->now;
        char path[4200];
        int is_file = strncmp(e->key, "file ", 5) == 0;
        if (is_file)
            unkey(keys, e->key + 5, path, sizeof path);
        struct annotation a = {
            .rule = it->kind == D_GREW ? "baseline/grew" : "baseline/new",
            .error = 1,
            .message = it->message,
            .path = is_file ? path : NULL,
            .identity = e->key,
            .source = e->source,
            .line = e->line,
            .kernel_read_bytes = e->v[BM_kernel_read_bytes],
            .read_syscalls = e->v[BM_read_syscalls],
            .delivered_bytes = e->v[BM_delivered_bytes],
            .reread_bytes = e->v[BM_reread_bytes],
        };
        annotations_add(as, &a);
    }
}
