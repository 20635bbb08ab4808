/* stdio_hook.c — locating and patching glibc's stdio jump tables, and the
 * two streams that bracket glibc's exit-time stdio cleanup.
 * See stdio_hook.h for why this works and what it relies on. */
#define _GNU_SOURCE 1
#include "stdio_hook.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dynsym.h"
#include "glibc_compat.h"
#include "loaded_object.h"

unsigned st_glibc_rules;

struct range {
    uintptr_t start, end; /* run-time addresses */
};

/* libc as the loader has it: its RELRO, where the tables are, and its
 * executable segments, where every table entry points. */
#define MAX_CODE_SEGMENTS 4
struct libc_image {
    struct range relro;
    struct range code[MAX_CODE_SEGMENTS];
    int ncode;
};

/* The symbols of the object that holds _IO_file_jumps, once the hook has
 * found it (st_stdio_libc_symbol). */
static struct st_symbols libc_symbols;
static int libc_found;

static int locate(uintptr_t addr, struct libc_image *img)
{
    struct st_loaded_object lo;
    memset(img, 0, sizeof *img);
    if (!st_loaded_object(addr, &lo))
        return 0;
    libc_found = st_symbols_of(lo.base, lo.phdr, lo.phnum, &libc_symbols);
    for (int i = 0; i < lo.phnum; i++) {
        const Elf64_Phdr *ph = &lo.phdr[i];
        struct range r = {lo.base + ph->p_vaddr, lo.base + ph->p_vaddr + ph->p_memsz};
        if (ph->p_type == PT_GNU_RELRO)
            img->relro = r;
        else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && img->ncode < MAX_CODE_SEGMENTS)
            img->code[img->ncode++] = r;
    }
    return img->relro.start != 0 && img->ncode > 0;
}

void *st_stdio_libc_symbol(const char *name)
{
    uintptr_t own = libc_found ? st_symbols_lookup(&libc_symbols, name) : 0;
    return own ? (void *)own : dlsym(RTLD_DEFAULT, name);
}

static int is_code(const struct libc_image *img, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < img->ncode; i++)
        if (a >= img->code[i].start && a < img->code[i].end)
            return 1;
    return 0;
}

/* The shape of struct _IO_jump_t: two zero words (__dummy, __dummy2), then
 * function pointers into libc, or NULL where a table leaves a slot out. */
static int is_table(const struct libc_image *img, void *const *t)
{
    if (t[0] || t[1])
        return 0;
    for (int j = 2; j < ST_SLOT_COUNT; j++)
        if (t[j] && !is_code(img, t[j]))
            return 0;
    return 1;
}

/* The exported names that must sit in _IO_file_jumps at their slots: if the
 * layout of struct _IO_jump_t ever changes, this fails and we patch nothing. */
static const struct { int slot; const char *name; } expected[] = {
    {ST_SLOT_OVERFLOW, "_IO_file_overflow"}, {ST_SLOT_UNDERFLOW, "_IO_file_underflow"},
    {ST_SLOT_UFLOW, "_IO_default_uflow"},    {ST_SLOT_SEEKOFF, "_IO_file_seekoff"},
    {ST_SLOT_SETBUF, "_IO_file_setbuf"},     {ST_SLOT_SYNC, "_IO_file_sync"},
    {ST_SLOT_READ, "_IO_file_read"},         {ST_SLOT_WRITE, "_IO_file_write"},
    {ST_SLOT_SEEK, "_IO_file_seek"},         {ST_SLOT_CLOSE, "_IO_file_close"},
    {ST_SLOT_STAT, "_IO_file_stat"},
};

static const char *verify_layout(const struct libc_image *img, void *const *jumps)
{
    if (!is_table(img, jumps))
        return "_IO_file_jumps does not have the shape of struct _IO_jump_t";
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        void *want = st_stdio_libc_symbol(expected[i].name);
        if (!want || jumps[expected[i].slot] != want)
            return "glibc's stdio jump table layout is not the one seektrace knows";
    }
    return NULL;
}

/* A word's bucket in the scan's filter: functions start at 16-byte
 * boundaries, so the bits above those tell a few dozen implementations
 * apart. */
#define FILTER_BITS 1024
static unsigned filter_bit(uintptr_t v)
{
    return (unsigned)(v >> 4) % FILTER_BITS;
}

/* The RELRO as words, and what the patches make of them. */
struct scan {
    const struct libc_image *img;
    void **w;
    size_t n;
    const struct st_slot_patch *patches;
    /* The patches by their implementation's filter_bit: 1 + the index of
     * the first, 0 for none; then each one's next of the same bit. */
    unsigned char first[FILTER_BITS];
    unsigned char next[UCHAR_MAX];
    size_t table_ok; /* 1 + the word the last table proved valid begins at; 0: none */
};

/* Which patch word k takes (its index), or -1 to keep it: an
 * implementation we replace, at its slot of a table. Only the patches of
 * the word's filter bucket are compared (one, as a rule). */
static int replacement(struct scan *s, size_t k)
{
    for (int i = s->first[filter_bit((uintptr_t)s->w[k])] - 1; i >= 0; i = s->next[i] - 1) {
        size_t slot = (size_t)s->patches[i].slot;
        if (s->w[k] != *s->patches[i].orig || k < slot || k - slot + ST_SLOT_COUNT > s->n)
            continue;
        /* A table holds several entries we replace: its shape is checked
         * once (nothing is written before the scan ends). */
        size_t table = k - slot;
        if (s->table_ok == table + 1)
            return i;
        if (!is_table(s->img, s->w + table))
            return -1;
        s->table_ok = table + 1;
        return i;
    }
    return -1;
}

/* The table at `table` will have its read slot replaced: proof the scan
 * sees it. */
static int covers(struct scan *s, void *const *table)
{
    uintptr_t at = (uintptr_t)(table + ST_SLOT_READ);
    if (at < (uintptr_t)s->w || at >= (uintptr_t)(s->w + s->n))
        return 0;
    return replacement(s, (size_t)((void **)at - s->w)) >= 0;
}

/* The entries to replace, found before any is written: a replaced entry
 * no longer points into libc, so its table would fail is_table after.
 * Kept small (word index and patch index: 2.5 KiB) to live on the stack:
 * in .bss, 8 KiB used once would cost every process two page faults. */
#define MAX_ENTRIES 512
struct entries {
    size_t n;
    uint32_t at[MAX_ENTRIES];
    unsigned char patch[MAX_ENTRIES];
};

static int find_entries(struct scan *s, struct entries *e)
{
    e->n = 0;
    for (size_t k = 0; k < s->n; k++) {
        /* Most words of the RELRO are no implementation we replace: one
         * load each rules them out, not one compare per patch (thousands
         * of words, at every start-up); a word whose bucket holds a patch
         * is checked against it. */
        if (!s->first[filter_bit((uintptr_t)s->w[k])])
            continue;
        int r = replacement(s, k);
        if (r < 0)
            continue;
        if (e->n == MAX_ENTRIES || k > UINT32_MAX)
            return 0;
        e->at[e->n] = (uint32_t)k;
        e->patch[e->n++] = (unsigned char)r;
    }
    return e->n > 0;
}

/* The entries span at most this many words (glibc's tables take under
 * 3.5 KiB); a wider span is written with mprotect. */
#define MAX_SPAN_WORDS 1024

/* Writes through /proc/self/mem, which writes past the page protection as
 * it does for a debugger, so the pages never change protection: mprotect
 * splits and merges the mapping and flushes the TLB, and on some
 * hypervisors each call costs tens of microseconds. One write from the
 * first entry to the last; the words between are written back as they are
 * (nothing else writes these read-only pages). The kernel copies such a
 * write byte-wise: with other threads running, one could read a pointer
 * half written, so it is used only while the process has one thread. */
static int written_through_mem(const struct scan *s, const struct entries *e)
{
    void **w = s->w;
    size_t lo = e->at[0], hi = e->at[e->n - 1] + 1;
    void *copy[MAX_SPAN_WORDS];
    if (hi - lo > MAX_SPAN_WORDS || !__libc_single_threaded)
        return 0;
    memcpy(copy, w + lo, (hi - lo) * sizeof(void *));
    for (size_t i = 0; i < e->n; i++)
        copy[e->at[i] - lo] = s->patches[e->patch[i]].repl;
    int mem = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (mem < 0)
        return 0;
    long len = (long)((hi - lo) * sizeof(void *));
    int ok = syscall(SYS_pwrite64, mem, copy, len, (off_t)(uintptr_t)(w + lo)) == len;
    syscall(SYS_close, mem);
    return ok;
}

static int set_writable(void **from, void **to, int writable)
{
    uintptr_t page = (uintptr_t)getauxval(AT_PAGESZ);
    uintptr_t a = (uintptr_t)from & ~(page - 1);
    uintptr_t b = ((uintptr_t)to + page - 1) & ~(page - 1);
    return mprotect((void *)a, b - a, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

/* 0, or -1 when the tables could not be made writable (nothing patched).
 * Where /proc/self/mem is unavailable (no /proc, a kernel that refuses
 * forced writes, other threads) the pages are writable for the time of
 * the stores, each of which writes a whole word at once. */
static int patch(const struct scan *s, const struct entries *e)
{
    void **w = s->w;
    if (written_through_mem(s, e))
        return 0;
    void **lo = w + e->at[0], **hi = w + e->at[e->n - 1] + 1;
    if (set_writable(lo, hi, 1) != 0)
        return -1;
    for (size_t i = 0; i < e->n; i++)
        w[e->at[i]] = s->patches[e->patch[i]].repl;
    set_writable(lo, hi, 0);
    return 0;
}

const char *st_stdio_hook_install(const struct st_slot_patch *patches, int n)
{
    void **jumps = dlsym(RTLD_DEFAULT, "_IO_file_jumps");
    if (!jumps)
        return "this C library is not glibc (no _IO_file_jumps)";
    struct libc_image img;
    if (!locate((uintptr_t)jumps, &img))
        return "cannot find the RELRO and code of the library that holds _IO_file_jumps";
    if ((uintptr_t)jumps < img.relro.start ||
        (uintptr_t)(jumps + ST_SLOT_COUNT) > img.relro.end)
        return "_IO_file_jumps is not in libc's read-only-after-relocation data";
    const char *why = verify_layout(&img, jumps);
    if (why)
        return why;
    for (int i = 0; i < n; i++) {
        void *impl = patches[i].name ? st_stdio_libc_symbol(patches[i].name) : jumps[patches[i].slot];
        if (!impl)
            return "a stdio implementation seektrace hooks is missing from libc";
        *patches[i].orig = impl;
    }

    uintptr_t first = (img.relro.start + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
    if (n > UCHAR_MAX)
        return "too many stdio jump table entries to patch";
    struct scan s = {&img, (void **)first, (img.relro.end - first) / sizeof(void *), patches,
                     {0}, {0}, 0};
    for (int i = n - 1; i >= 0; i--) {
        unsigned bit = filter_bit((uintptr_t)*patches[i].orig);
        s.next[i] = s.first[bit];
        s.first[bit] = (unsigned char)(i + 1);
    }
    void **wide = st_stdio_libc_symbol("_IO_wfile_jumps");
    if (!covers(&s, jumps) || (wide && !covers(&s, wide)))
        return "glibc's stdio jump tables are not where their values say";
    struct entries e;
    if (!find_entries(&s, &e))
        return "too many stdio jump table entries to patch";
    if (patch(&s, &e) != 0)
        return "cannot make glibc's stdio jump tables writable (mprotect refused)";
    return NULL;
}

/* ---- The streams around glibc's exit-time cleanup ----
 *
 * _IO_cleanup walks the list of streams twice, from the head (the newest)
 * to the tail (stdin, the oldest): first flushing pending output, then
 * unbuffering every stream that was used, which syncs unread input back to
 * the kernel (an lseek). Both walks are the same on glibc 2.28 to 2.43.
 * Our head stream holds a byte of output, so the first walk's first write
 * is ours: begin(). Our tail stream holds a byte of unread input and no
 * file descriptor, so only the second walk's sync reaches it, last: its
 * seek is end(). Cookie streams run our functions through glibc's own
 * cookie table, which we do not patch, on every glibc and capture mode. */

/* Exported by every glibc since 2.2.5. The list and its lock are linked
 * to (accounts/streams.c and lifecycle/exit_report.c use them too); the
 * two that only this file needs are looked up in libc's own table. */
extern FILE *_IO_list_all;
extern void _IO_list_lock(void);
extern void _IO_list_unlock(void);
struct list_api {
    FILE **list_all;
    void (*lock)(void), (*unlock)(void);
    void (*un_link)(FILE *);
    void (*link_in)(FILE *);
};

static void (*exit_begins)(void), (*exit_ends)(void);
static char head_buf[8], tail_buf[8];

static ssize_t head_write(void *cookie, const char *buf, size_t n)
{
    void (*f)(void) = exit_begins;
    exit_begins = NULL;
    if (f)
        f();
    return (ssize_t)n;
}

static ssize_t tail_read(void *cookie, char *buf, size_t n)
{
    memset(buf, 0, n < 2 ? n : 2);
    return n < 2 ? (ssize_t)n : 2;
}

static int tail_seek(void *cookie, off64_t *pos, int whence)
{
    void (*f)(void) = exit_ends;
    exit_ends = NULL;
    *pos = 0;
    if (f)
        f();
    return 0;
}

static int find_list_api(struct list_api *api)
{
    api->list_all = &_IO_list_all;
    api->lock = _IO_list_lock;
    api->unlock = _IO_list_unlock;
    api->un_link = (void (*)(FILE *))st_stdio_libc_symbol("_IO_un_link");
    api->link_in = (void (*)(FILE *))st_stdio_libc_symbol("_IO_link_in");
    return api->un_link && api->link_in;
}

/* glibc's flag for a stream on its list (libio.h). */
#define ST_IO_LINKED 0x80

/* glibc 2.42 made the list doubly linked: _prevchain, a private field past
 * _lock, points at the link that points to the stream. Its offset is found
 * by value: fp's field holds `link` (the link to fp), and the next
 * stream's holds &fp->_chain. -1: no such field (glibc before 2.42). */
static long prevchain_offset(FILE *fp, FILE **link)
{
    FILE *next = fp->_chain;
    if (!next)
        return -1;
    for (size_t off = offsetof(FILE, _lock) + sizeof(void *); off + sizeof(void *) <= sizeof(FILE);
         off += sizeof(void *)) {
        void *mine, *theirs;
        memcpy(&mine, (char *)fp + off, sizeof mine);
        memcpy(&theirs, (char *)next + off, sizeof theirs);
        if (mine == (void *)link && theirs == (void *)&fp->_chain)
            return (long)off;
    }
    return -1;
}

/* fopencookie put fp at the head; it goes behind the last stream. */
static void move_to_tail(const struct list_api *api, FILE *fp)
{
    api->lock();
    FILE **link = api->list_all;
    while (*link && *link != fp)
        link = &(*link)->_chain;
    long prevchain = *link ? prevchain_offset(fp, link) : -1;
    api->un_link(fp);
    FILE *last = *api->list_all;
    if (!last) {
        api->link_in(fp);
    } else {
        while (last->_chain)
            last = last->_chain;
        fp->_chain = NULL;
        if (prevchain >= 0)
            memcpy((char *)fp + prevchain, &(FILE **){&last->_chain}, sizeof(FILE **));
        fp->_flags |= ST_IO_LINKED;
        last->_chain = fp;
    }
    api->unlock();
}

int st_stdio_exit_arm(void (*begin)(void), void (*end)(void))
{
    struct list_api api;
    if (!find_list_api(&api))
        return 0;
    FILE *tail = fopencookie(NULL, "r", (cookie_io_functions_t){.read = tail_read,
                                                                .seek = tail_seek});
    if (!tail)
        return 0;
    FILE *head = fopencookie(NULL, "w", (cookie_io_functions_t){.write = head_write});
    if (!head) {
        fclose(tail);
        return 0;
    }
    /* Our own small buffers: nothing allocated but the two FILEs, which
     * stay until the process ends. */
    setvbuf(tail, tail_buf, _IOFBF, sizeof tail_buf);
    setvbuf(head, head_buf, _IOFBF, sizeof head_buf);
    exit_begins = begin;
    exit_ends = end;
    if (fgetc(tail) == EOF || fputc('\n', head) == EOF) {
        exit_begins = exit_ends = NULL;
        return 0;
    }
    move_to_tail(&api, tail);
    return 1;
}
