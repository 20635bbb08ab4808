/* stdio_hook.c — locating and patching glibc's stdio jump tables.
 * See stdio_hook.h for why this works and what it relies on. */
#define _GNU_SOURCE 1
#include "stdio_hook.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void (*st_stdio_orig_cleanup)(void);

struct section {
    uintptr_t start, end; /* run-time addresses */
};

struct libc_sections {
    struct section vtables;
    struct section atexit_hook;
    struct section relro;
};

/* Section headers are not mapped at run time, so map libc's file (mmap, not
 * read: a read of ours would show in strace beside the program's). */
static const char *find_sections(const char *path, uintptr_t base, struct libc_sections *out)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return "cannot open libc to find its stdio jump tables";
    const char *why = NULL;
    size_t len = 0;
    unsigned char *map = mmap(NULL, sizeof(Elf64_Ehdr), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        syscall(SYS_close, fd);
        return "cannot map libc";
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum) {
        munmap(map, sizeof(Elf64_Ehdr));
        syscall(SYS_close, fd);
        return "libc is not a 64-bit ELF file with section headers";
    }
    len = eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
    munmap(map, sizeof(Elf64_Ehdr));
    map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    syscall(SYS_close, fd);
    if (map == MAP_FAILED)
        return "cannot map libc's section headers";

    eh = (const Elf64_Ehdr *)map;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + eh->e_shoff);
    const Elf64_Shdr *strs = &sh[eh->e_shstrndx];
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size || strs->sh_offset + strs->sh_size > len)
            continue;
        const char *name = (const char *)map + strs->sh_offset + sh[i].sh_name;
        struct section *s = strcmp(name, "__libc_IO_vtables") == 0 ? &out->vtables
                          : strcmp(name, "__libc_atexit") == 0     ? &out->atexit_hook
                                                                   : NULL;
        if (s) {
            s->start = base + sh[i].sh_addr;
            s->end = s->start + sh[i].sh_size;
        }
    }
    munmap(map, len);
    if (!out->vtables.start)
        why = "libc has no __libc_IO_vtables section";
    return why;
}

struct relro_query {
    uintptr_t base;
    struct section *relro;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct relro_query *q = arg;
    if (info->dlpi_addr != q->base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            q->relro->start = q->base + info->dlpi_phdr[i].p_vaddr;
            q->relro->end = q->relro->start + info->dlpi_phdr[i].p_memsz;
        }
    }
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

static int set_writable(const struct section *s, const struct section *relro, int writable)
{
    /* Outside RELRO the pages are writable already: leave them be. */
    if (s->start < relro->start || s->end > relro->end)
        return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = s->start & ~(page - 1);
    uintptr_t b = (s->end + page - 1) & ~(page - 1);
    return mprotect((void *)a, b - a, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

static void patch_tables(const struct section *vt, const struct st_slot_patch *patches, int np)
{
    void **w = (void **)vt->start;
    size_t n = (vt->end - vt->start) / sizeof(void *);
    for (size_t k = 0; k < n; k++) {
        for (int i = 0; i < np; i++) {
            size_t slot = (size_t)patches[i].slot;
            if (w[k] != *patches[i].orig || k < slot)
                continue;
            /* A table starts with two zero words; anything else is not a
             * table entry at this slot. */
            if (w[k - slot] == NULL && w[k - slot + 1] == NULL)
                w[k] = patches[i].repl;
            break;
        }
    }
}

static void hook_cleanup(const struct section *ah, const struct section *relro,
                         void (*after_cleanup)(void), int *hooked)
{
    *hooked = 0;
    if (!ah->start || ah->end - ah->start < sizeof(void *) || !after_cleanup)
        return;
    /* glibc runs these in order after every atexit handler and destructor:
     * chaining behind the last one makes our report the very last thing. */
    void **last = (void **)(ah->end - sizeof(void *));
    Dl_info info;
    if (!*last || !dladdr(*last, &info) || set_writable(ah, relro, 1) != 0)
        return;
    st_stdio_orig_cleanup = (void (*)(void))*last;
    *last = (void *)after_cleanup;
    set_writable(ah, relro, 0);
    *hooked = 1;
}

const char *st_stdio_hook_install(const struct st_slot_patch *patches, int n,
                                  void (*after_cleanup)(void), int *cleanup_hooked)
{
    *cleanup_hooked = 0;
    void **jumps = dlsym(RTLD_DEFAULT, "_IO_file_jumps");
    if (!jumps)
        return "this C library is not glibc (no _IO_file_jumps)";
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(jumps, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !info.dli_fname)
        return "cannot locate the library that holds _IO_file_jumps";

    struct libc_sections sec;
    const char *why = find_sections(info.dli_fname, lm->l_addr, &sec);
    if (why)
        return why;
    if ((uintptr_t)jumps < sec.vtables.start || (uintptr_t)jumps >= sec.vtables.end)
        return "_IO_file_jumps is not inside __libc_IO_vtables";
    if ((why = verify_layout(jumps)) != NULL)
        return why;

    struct relro_query q = {lm->l_addr, &sec.relro};
    dl_iterate_phdr(find_relro, &q);

    for (int i = 0; i < n; i++) {
        void *impl = patches[i].name ? dlsym(RTLD_DEFAULT, patches[i].name) : jumps[patches[i].slot];
        if (!impl)
            return "a stdio implementation seektrace hooks is missing from libc";
        *patches[i].orig = impl;
    }
    if (set_writable(&sec.vtables, &sec.relro, 1) != 0)
        return "cannot make glibc's stdio jump tables writable (mprotect refused)";
    patch_tables(&sec.vtables, patches, n);
    set_writable(&sec.vtables, &sec.relro, 0);
    hook_cleanup(&sec.atexit_hook, &sec.relro, after_cleanup, cleanup_hooked);
    return NULL;
}
