/* stdio_hook.c — locating and patching glibc's stdio jump tables.
 * See stdio_hook.h for why this works and what it relies on. */
#define _GNU_SOURCE 1
#include "stdio_hook.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loaded_object.h"

void (*st_stdio_orig_cleanup)(void);

struct section {
    uintptr_t start, end; /* run-time addresses */
};

struct libc_sections {
    struct section vtables;
    struct section atexit_hook;
};

/* libc as the loader has it: where it is, its file, where its ELF header
 * is mapped (NULL if it is not) and its RELRO. */
struct object {
    uintptr_t base;
    const char *path;
    const Elf64_Ehdr *ehdr;
    struct section relro;
};

static int locate(uintptr_t addr, struct object *o)
{
    struct st_loaded_object lo;
    memset(o, 0, sizeof *o);
    if (!st_loaded_object(addr, &lo))
        return 0;
    o->base = lo.base;
    o->path = lo.path;
    for (int i = 0; i < lo.phnum; i++) {
        const Elf64_Phdr *ph = &lo.phdr[i];
        if (ph->p_type == PT_LOAD && ph->p_offset == 0 && ph->p_filesz >= sizeof(Elf64_Ehdr) &&
            !o->ehdr)
            o->ehdr = (const Elf64_Ehdr *)(o->base + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) {
            o->relro.start = o->base + ph->p_vaddr;
            o->relro.end = o->relro.start + ph->p_memsz;
        }
    }
    return 1;
}

static uintptr_t page_size(void)
{
    return (uintptr_t)getauxval(AT_PAGESZ);
}

/* Section headers are not mapped at run time, so map them from libc's file
 * (mmap, not read: a read of ours would show in strace beside the
 * program's). The ELF header is mapped already, by the loader; of the file,
 * only the pages holding the section headers and their names are mapped:
 * every page mapped and touched costs a page fault and its teardown. */
static const char *find_sections(const struct object *lib, struct libc_sections *out)
{
    const Elf64_Ehdr *eh = lib->ehdr;
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum)
        return "libc is not a 64-bit ELF file with section headers";
    int fd = (int)syscall(SYS_openat, AT_FDCWD, lib->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return "cannot open libc to find its stdio jump tables";
    /* The names are read only where they lie before the end of the headers. */
    size_t end = eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
    size_t from = eh->e_shoff & ~(page_size() - 1);
    unsigned char *map = mmap(NULL, end - from, PROT_READ, MAP_PRIVATE, fd, (off_t)from);
    const Elf64_Shdr *strs =
        map == MAP_FAILED ? NULL : (const Elf64_Shdr *)(map + (eh->e_shoff - from)) + eh->e_shstrndx;
    if (strs && strs->sh_offset < from && strs->sh_offset + strs->sh_size <= end) {
        /* Names before the headers' first page: map from theirs instead. */
        size_t names = strs->sh_offset & ~(page_size() - 1);
        munmap(map, end - from);
        from = names;
        map = mmap(NULL, end - from, PROT_READ, MAP_PRIVATE, fd, (off_t)from);
        strs = map == MAP_FAILED ? NULL
                                 : (const Elf64_Shdr *)(map + (eh->e_shoff - from)) + eh->e_shstrndx;
    }
    syscall(SYS_close, fd);
    if (!strs)
        return "cannot map libc's section headers";

    const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + (eh->e_shoff - from));
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size || strs->sh_offset < from ||
            strs->sh_offset + strs->sh_size > end)
            continue;
        const char *name = (const char *)map + (strs->sh_offset - from) + sh[i].sh_name;
        struct section *s = strcmp(name, "__libc_IO_vtables") == 0 ? &out->vtables
                          : strcmp(name, "__libc_atexit") == 0     ? &out->atexit_hook
                                                                   : NULL;
        if (s) {
            s->start = lib->base + sh[i].sh_addr;
            s->end = s->start + sh[i].sh_size;
        }
    }
    munmap(map, end - from);
    if (!out->vtables.start)
        return "libc has no __libc_IO_vtables section";
    return NULL;
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

static const char *verify_layout(void *const *jumps)
{
    if (jumps[0] || jumps[1])
        return "_IO_file_jumps does not start with the two dummy words of struct _IO_jump_t";
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        void *want = dlsym(RTLD_DEFAULT, expected[i].name);
        if (!want || jumps[expected[i].slot] != want)
            return "glibc's stdio jump table layout is not the one seektrace knows";
    }
    return NULL;
}

/* libc's tables and atexit hook lie in its RELRO, read-only once it is
 * relocated. Writes there go through /proc/self/mem, which writes past the
 * page protection as it does for a debugger, so the pages never change
 * protection: mprotect splits and merges the mapping and flushes the TLB,
 * and on some hypervisors each call costs tens of microseconds. Where
 * /proc/self/mem is unavailable (no /proc, a kernel that refuses forced
 * writes) the pages are made writable for the time of the writes. */
struct writer {
    const struct section *relro;
    int mem; /* /proc/self/mem, or -1 */
};

static int in_relro(const struct section *s, const struct section *relro)
{
    return s->start >= relro->start && s->end <= relro->end;
}

static int set_writable(const struct section *s, int writable)
{
    uintptr_t page = page_size();
    uintptr_t a = s->start & ~(page - 1);
    uintptr_t b = (s->end + page - 1) & ~(page - 1);
    return mprotect((void *)a, b - a, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

/* 1 when the n words at `at` now hold vals. */
static int written_through_mem(struct writer *wr, void **at, void *const *vals, size_t n)
{
    if (wr->mem < 0)
        return 0;
    long len = (long)(n * sizeof(void *));
    if (syscall(SYS_pwrite64, wr->mem, vals, len, (off_t)(uintptr_t)at) == len)
        return 1;
    syscall(SYS_close, wr->mem);
    wr->mem = -1;
    return 0;
}

/* What entry k of the tables at w becomes, or NULL to keep it. */
static void *replacement(void *const *w, size_t k, const struct st_slot_patch *patches, int np)
{
    for (int i = 0; i < np; i++) {
        size_t slot = (size_t)patches[i].slot;
        if (w[k] != *patches[i].orig || k < slot)
            continue;
        /* A table starts with two zero words; anything else is not a
         * table entry at this slot. */
        return w[k - slot] == NULL && w[k - slot + 1] == NULL ? patches[i].repl : NULL;
    }
    return NULL;
}

static void patch_in_place(void **w, size_t n, const struct st_slot_patch *patches, int np)
{
    for (size_t k = 0; k < n; k++) {
        void *r = replacement(w, k, patches, np);
        if (r)
            w[k] = r;
    }
}

/* glibc's tables take about 3.4 KiB; larger ones are patched in place. */
#define MAX_TABLE_WORDS 1024

/* One write from the first replaced entry to the last; the entries between
 * are written back as they are (nothing else writes these read-only pages). */
static int patched_through_mem(struct writer *wr, void **w, size_t n,
                               const struct st_slot_patch *patches, int np)
{
    void *copy[MAX_TABLE_WORDS];
    if (n > MAX_TABLE_WORDS)
        return 0;
    size_t lo = n, hi = 0;
    for (size_t k = 0; k < n; k++) {
        void *r = replacement(w, k, patches, np);
        copy[k] = r ? r : w[k];
        if (r) {
            lo = lo < k ? lo : k;
            hi = k + 1;
        }
    }
    return lo >= hi || written_through_mem(wr, w + lo, copy + lo, hi - lo);
}

/* 0, or -1 when the tables could not be made writable (nothing patched). */
static int patch_tables(struct writer *wr, const struct section *vt,
                        const struct st_slot_patch *patches, int np)
{
    void **w = (void **)vt->start;
    size_t n = (vt->end - vt->start) / sizeof(void *);
    /* Outside RELRO the pages are writable already: leave them be. */
    if (!in_relro(vt, wr->relro)) {
        patch_in_place(w, n, patches, np);
        return 0;
    }
    if (patched_through_mem(wr, w, n, patches, np))
        return 0;
    if (set_writable(vt, 1) != 0)
        return -1;
    patch_in_place(w, n, patches, np);
    set_writable(vt, 0);
    return 0;
}

/* The last entry of glibc's exit-time hooks, when it can be chained. */
static void **cleanup_entry(const struct section *ah, void (*after_cleanup)(void))
{
    if (!ah->start || ah->end - ah->start < sizeof(void *) || !after_cleanup)
        return NULL;
    /* glibc runs these in order after every atexit handler and destructor:
     * chaining behind the last one makes our report the very last thing. */
    void **last = (void **)(ah->end - sizeof(void *));
    struct st_loaded_object owner;
    return *last && st_loaded_object((uintptr_t)*last, &owner) ? last : NULL;
}

/* 0 when value could not be written (the page could not be made writable). */
static int word_written(struct writer *wr, const struct section *s, void **at, void *value)
{
    if (!in_relro(s, wr->relro)) {
        *at = value;
        return 1;
    }
    if (written_through_mem(wr, at, &value, 1))
        return 1;
    if (set_writable(s, 1) != 0)
        return 0;
    *at = value;
    set_writable(s, 0);
    return 1;
}

static void hook_cleanup(struct writer *wr, const struct section *ah,
                         void (*after_cleanup)(void), int *hooked)
{
    void **last = cleanup_entry(ah, after_cleanup);
    if (!last)
        return;
    /* Read only once hooked; in place before the hook can run. */
    st_stdio_orig_cleanup = (void (*)(void))*last;
    *hooked = word_written(wr, ah, last, (void *)after_cleanup);
}

const char *st_stdio_hook_install(const struct st_slot_patch *patches, int n,
                                  void (*after_cleanup)(void), int *cleanup_hooked)
{
    *cleanup_hooked = 0;
    void **jumps = dlsym(RTLD_DEFAULT, "_IO_file_jumps");
    if (!jumps)
        return "this C library is not glibc (no _IO_file_jumps)";
    struct object lib;
    if (!locate((uintptr_t)jumps, &lib) || !lib.path)
        return "cannot locate the library that holds _IO_file_jumps";

    struct libc_sections sec;
    const char *why = find_sections(&lib, &sec);
    if (why)
        return why;
    if ((uintptr_t)jumps < sec.vtables.start || (uintptr_t)jumps >= sec.vtables.end)
        return "_IO_file_jumps is not inside __libc_IO_vtables";
    if ((why = verify_layout(jumps)) != NULL)
        return why;

    for (int i = 0; i < n; i++) {
        void *impl = patches[i].name ? dlsym(RTLD_DEFAULT, patches[i].name) : jumps[patches[i].slot];
        if (!impl)
            return "a stdio implementation seektrace hooks is missing from libc";
        *patches[i].orig = impl;
    }
    /* The kernel copies a /proc/self/mem write byte-wise, as it likes: with
     * other threads already running (start-up from another library's
     * thread), one could read a pointer half written. mprotect and a plain
     * store write each word at once. */
    struct writer wr = {&lib.relro, -1};
    if (in_relro(&sec.vtables, &lib.relro) && __libc_single_threaded)
        wr.mem = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (patch_tables(&wr, &sec.vtables, patches, n) != 0)
        why = "cannot make glibc's stdio jump tables writable (mprotect refused)";
    else
        hook_cleanup(&wr, &sec.atexit_hook, after_cleanup, cleanup_hooked);
    if (wr.mem >= 0)
        syscall(SYS_close, wr.mem);
    return why;
}
