/* elf_symtab.c — see elf_symtab.h.
 *
 * A reader of our own rather than elfutils' libelf: dlopen("libelf.so.1")
 * (it brings libz) costs 1.15 ms median on the development machine, 40 %
 * of libdw's 3.0 ms, and not loading libdw is the whole point. What is read
 * is small (headers, notes, one symbol table and its strings), so a careful
 * mmap reader costs less than that dlopen alone.
 *
 * The mapping is of a file the process has loaded: truncating it in place
 * (SIGBUS on our read) would already break the program's own code pages,
 * and upgrades replace files by rename, which leaves our mapping intact.
 *
 * Each rule below is cited by the libdwfl function (elfutils 0.188) it
 * copies; whatever libdwfl would do differently from the plain case is
 * handed back to libdw rather than imitated. */
#include "elf_symtab.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "sort.h"

/* Where libdwfl's symbol values are plain st_value: no function
 * descriptors to resolve, no address mask (its x86_64 and aarch64
 * backends). Elsewhere every file is libdw's. */
#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_MACHINE EM_AARCH64
#else
#define NATIVE_MACHINE EM_NONE
#endif

/* An SHF_ALLOC section at its run-time address. */
struct section {
    uint64_t start, end;
    size_t ndx;
};

struct st_elf {
    const unsigned char *map;
    size_t size;
    uint64_t bias; /* run-time address - file address */
    const Elf64_Shdr *shdrs;
    size_t shnum;
    const Elf64_Sym *syms;
    size_t nsyms, first_global;
    const char *strtab;
    size_t strsize;
    struct section *alloc; /* sorted as libdwfl's cache_sections sorts them */
    size_t nalloc;
    const unsigned char *build_id;
    size_t build_id_len;
};

static int in_file(const struct st_elf *e, uint64_t off, uint64_t len)
{
    return off <= e->size && len <= e->size - off;
}

/* A section's bytes in the file, or NULL (no bytes, compressed, outside). */
static const unsigned char *section_bytes(const struct st_elf *e, const Elf64_Shdr *sh)
{
    if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED) ||
        !in_file(e, sh->sh_offset, sh->sh_size))
        return NULL;
    return e->map + sh->sh_offset;
}

size_t st_elf_notes_build_id(const unsigned char *notes, size_t size, size_t align,
                             const unsigned char **id)
{
    /* gelf_getnote: name at 4, desc and next note at the section's alignment. */
    size_t pos = 0;
    Elf64_Nhdr n;
    while (pos <= size && size - pos >= sizeof n) {
        memcpy(&n, notes + pos, sizeof n);
        size_t name = pos + sizeof n;
        if (n.n_namesz > size - name)
            return 0;
        size_t desc = (name + n.n_namesz + align - 1) & ~(align - 1);
        size_t descsz = ((size_t)n.n_descsz + align - 1) & ~(align - 1);
        if (desc > size || size - desc < descsz)
            return 0;
        if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == sizeof "GNU" &&
            memcmp(notes + name, "GNU", sizeof "GNU") == 0) {
            *id = notes + desc;
            return n.n_descsz;
        }
        pos = desc + descsz;
    }
    return 0;
}

/* libdwfl's find_debuginfo, through dwfl_build_id_find_debuginfo: a file
 * named for the build ID (3 to 64 bytes) under debug_root that opens. */
static int has_debug_file(const char *debug_root, const unsigned char *id, size_t len)
{
    if (len < 3 || len > 64)
        return 0;
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/.build-id/%02x/", debug_root, id[0]);
    if (n < 0 || (size_t)n + 2 * len + sizeof ".debug" > sizeof path)
        return 1; /* cannot tell: libdw decides */
    for (size_t i = 1; i < len; i++)
        n += snprintf(path + n, 3, "%02x", id[i]);
    memcpy(path + n, ".debug", sizeof ".debug");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int section_before(const struct section *a, const struct section *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end < b->end;
    return a->ndx < b->ndx;
}

/* The file's symbol table, or 0 when libdw must read it. */
static int pick_symtab(struct st_elf *e, const Elf64_Shdr *table)
{
    if (table->sh_entsize != sizeof(Elf64_Sym) || table->sh_offset % 8 != 0)
        return 0;
    const unsigned char *syms = section_bytes(e, table);
    if (!syms || table->sh_link >= e->shnum)
        return 0;
    e->syms = (const Elf64_Sym *)syms;
    e->nsyms = table->sh_size / sizeof(Elf64_Sym);
    e->first_global = table->sh_info;
    if (e->first_global > e->nsyms)
        return 0;
    /* find_symtab's elf_strptr check: a string table, here also ending in
     * NUL so that every name in it is terminated. */
    const Elf64_Shdr *str = &e->shdrs[table->sh_link];
    const unsigned char *strtab = section_bytes(e, str);
    if (str->sh_type != SHT_STRTAB || !strtab || str->sh_size == 0 ||
        strtab[str->sh_size - 1] != '\0')
        return 0;
    e->strtab = (const char *)strtab;
    e->strsize = str->sh_size;
    return 1;
}

/* Validates the headers and decides whether the file is ours to read. */
static int parse(struct st_elf *e, uintptr_t low_addr, const char *debug_root)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || NATIVE_MACHINE == EM_NONE ||
        eh->e_machine != NATIVE_MACHINE || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
        return 0;

    /* open_elf and __libdwfl_getelf: bias = low_addr - the first PT_LOAD's
     * p_vaddr rounded down to its p_align. */
    if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == PN_XNUM || eh->e_phoff % 8 ||
        !in_file(e, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
        return 0;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->map + eh->e_phoff);
    size_t p = 0;
    while (p < eh->e_phnum && ph[p].p_type != PT_LOAD)
        p++;
    if (p == eh->e_phnum)
        return 0;
    e->bias = low_addr - (ph[p].p_vaddr & -ph[p].p_align);

    /* Extended section numbering (e_shnum 0 or past SHN_LORESERVE) is libdw's. */
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
        eh->e_shnum >= SHN_LORESERVE || eh->e_shstrndx >= eh->e_shnum || eh->e_shoff % 8 ||
        !in_file(e, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return 0;
    e->shdrs = (const Elf64_Shdr *)(e->map + eh->e_shoff);
    e->shnum = eh->e_shnum;
    const Elf64_Shdr *shstr = &e->shdrs[eh->e_shstrndx];
    const char *names = (const char *)section_bytes(e, shstr);
    if (!names || shstr->sh_size == 0 || names[shstr->sh_size - 1] != '\0')
        return 0;

    size_t nsymtab = 0, ndynsym = 0, symtab = 0, dynsym = 0;
    for (size_t i = 1; i < e->shnum; i++) {
        const Elf64_Shdr *sh = &e->shdrs[i];
        if (sh->sh_name >= shstr->sh_size)
            return 0;
        const char *name = names + sh->sh_name;
        /* DWARF in the file (dwarf_begin_elf's sections, compressed or not),
         * or a MiniDebugInfo symbol table (find_aux_sym): libdw's. So are
         * SHN_XINDEX indices (SHT_SYMTAB_SHNDX). */
        if (starts_with(name, ".debug") || starts_with(name, ".zdebug") ||
            strcmp(name, ".gnu_debugdata") == 0 || sh->sh_type == SHT_SYMTAB_SHNDX)
            return 0;
        /* load_symtab ignores tables with sh_entsize 0; with two of a
         * kind the later one would win, which is not worth imitating. */
        if (sh->sh_type == SHT_SYMTAB && sh->sh_entsize != 0) {
            nsymtab++;
            symtab = i;
        }
        if (sh->sh_type == SHT_DYNSYM && sh->sh_entsize != 0) {
            ndynsym++;
            dynsym = i;
        }
        /* __libdwfl_find_elf_build_id: the first GNU build ID of the
         * SHT_NOTE sections in order; a section outside the file is
         * skipped (libelf has no data for it), a compressed one is libdw's. */
        if (sh->sh_type == SHT_NOTE && (sh->sh_flags & SHF_COMPRESSED))
            return 0;
        const unsigned char *bytes;
        if (sh->sh_type == SHT_NOTE && !e->build_id && (bytes = section_bytes(e, sh)))
            e->build_id_len = st_elf_notes_build_id(bytes, sh->sh_size,
                                                    sh->sh_addralign == 8 ? 8 : 4, &e->build_id);
        if (sh->sh_flags & SHF_ALLOC)
            e->nalloc++;
    }
    if (e->build_id_len && has_debug_file(debug_root, e->build_id, e->build_id_len))
        return 0;
    if (nsymtab > 1 || (nsymtab == 0 && ndynsym != 1) ||
        !pick_symtab(e, &e->shdrs[nsymtab ? symtab : dynsym]))
        return 0;

    /* cache_sections: the SHF_ALLOC sections at run-time addresses, sorted
     * by start, end, index (a few dozen: insertion sort). */
    if (!(e->alloc = st_alloc(e->nalloc * sizeof *e->alloc)))
        return 0;
    size_t n = 0;
    for (size_t i = 1; i < e->shnum; i++) {
        const Elf64_Shdr *sh = &e->shdrs[i];
        if (!(sh->sh_flags & SHF_ALLOC))
            continue;
        struct section s = {sh->sh_addr + e->bias, sh->sh_addr + e->bias + sh->sh_size, i};
        size_t j = n++;
        for (; j > 0 && section_before(&s, &e->alloc[j - 1]); j--)
            e->alloc[j] = e->alloc[j - 1];
        e->alloc[j] = s;
    }
    return 1;
}

struct st_elf *st_elf_open(const char *path, uintptr_t low_addr, const char *debug_root)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    struct st_elf *e = st_alloc(sizeof *e);
    if (e) {
        *e = (struct st_elf){.map = map, .size = (size_t)st.st_size};
        if (parse(e, low_addr, debug_root))
            return e;
    }
    munmap(map, (size_t)st.st_size); /* the arena keeps e: it never frees */
    return NULL;
}

void st_elf_close(struct st_elf *e)
{
    if (e)
        munmap((void *)e->map, e->size);
}

size_t st_elf_build_id(const struct st_elf *e, const unsigned char **id)
{
    *id = e->build_id;
    return e->build_id_len;
}

/* __libdwfl_find_section_ndx: binary search of the sorted sections, a
 * section's end counting as inside it unless the next one starts there;
 * SHN_UNDEF (0) when no section holds addr. */
static size_t section_ndx(const struct st_elf *e, uint64_t addr)
{
    size_t l = 0, u = e->nalloc;
    while (l < u) {
        size_t i = (l + u) / 2;
        if (addr < e->alloc[i].start)
            u = i;
        else if (addr > e->alloc[i].end)
            l = i + 1;
        else {
            if (addr == e->alloc[i].end && i + 1 < e->nalloc && addr == e->alloc[i + 1].start)
                i++;
            return e->alloc[i].ndx;
        }
    }
    return SHN_UNDEF;
}

/* dwfl_module_addrsym.c's search_state, for dwfl_module_addrinfo (values
 * not adjusted back to st_value). */
struct search {
    const struct st_elf *e;
    uint64_t addr;
    const Elf64_Sym *closest;
    uint64_t closest_value;
    const Elf64_Sym *sizeless;
    uint64_t sizeless_value;
    uint64_t min_label;
    int defer; /* met something only libdw models */
};

static int binding_value(const Elf64_Sym *s)
{
    switch (ELF64_ST_BIND(s->st_info)) {
    case STB_GLOBAL:
        return 3;
    case STB_WEAK:
        return 2;
    case STB_LOCAL:
        return 1;
    default:
        return 0;
    }
}

/* same_section, without adjust_st_value: both addresses looked up. */
static int same_section(const struct search *s, uint64_t value, size_t shndx)
{
    if (shndx >= SHN_LORESERVE)
        return value == s->addr;
    return section_ndx(s->e, s->addr) == section_ndx(s->e, value);
}

/* try_sym_value. */
static void try_sym(struct search *s, uint64_t value, const Elf64_Sym *sym)
{
    if (value + sym->st_size > s->min_label)
        s->min_label = value + sym->st_size;
    if (sym->st_size != 0 && s->addr - value >= sym->st_size)
        return;
    if (!s->closest || s->closest_value < value || binding_value(s->closest) < binding_value(sym)) {
        if (sym->st_size != 0) {
            s->closest = sym;
            s->closest_value = value;
        }
        else if (!s->closest && value >= s->min_label && same_section(s, value, sym->st_shndx)) {
            s->sizeless = sym;
            s->sizeless_value = value;
        }
    }
    else if (sym->st_size != 0 && s->closest_value == value &&
             ((s->closest->st_size > sym->st_size && binding_value(s->closest) <= binding_value(sym)) ||
              (s->closest->st_size >= sym->st_size && binding_value(s->closest) < binding_value(sym)))) {
        s->closest = sym;
        s->closest_value = value;
    }
}

/* try_sym would leave the search as it is: the symbol ends before the
 * furthest end seen, and it neither holds the address (sized) nor could be
 * the sizeless candidate (which needs no sized one yet and a start at or
 * past that end). */
static int changes_nothing(const struct search *s, uint64_t value, const Elf64_Sym *sym)
{
    if (value + sym->st_size > s->min_label)
        return 0;
    if (sym->st_size != 0)
        return s->addr - value >= sym->st_size;
    return s->closest != NULL || value < s->min_label;
}

/* The first of the n searches (in order of address) whose address is at
 * or past value: the ones a symbol starting at value may concern. */
static size_t first_at_or_past(struct search *const *s, size_t n, uint64_t value)
{
    size_t l = 0, u = n;
    while (l < u) {
        size_t i = (l + u) / 2;
        if (s[i]->addr < value)
            l = i + 1;
        else
            u = i;
    }
    return l;
}

/* search_table, with __libdwfl_getsym's value: st_value plus the bias,
 * except for SHN_ABS and SHN_COMMON symbols and those of a section without
 * SHF_ALLOC (an index past the table or a reserved one other than those
 * two counts as allocated there, so it is here).
 *
 * For n searches at once, in order of address: each sees the symbols it
 * would see alone (those starting at or before its address), in the same
 * order, so each ends as it would alone; the table is walked once for all
 * of them. */
static void search_table(struct search *const *s, size_t n, size_t from, size_t to)
{
    const struct st_elf *e = s[0]->e;
    for (size_t i = from; i < to; i++) {
        const Elf64_Sym *sym = &e->syms[i];
        unsigned type = ELF64_ST_TYPE(sym->st_info);
        if (sym->st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE || type == STT_TLS)
            continue;
        if (sym->st_shndx == SHN_XINDEX) {
            for (size_t k = 0; k < n; k++)
                s[k]->defer = 1;
            return;
        }
        int alloc = sym->st_shndx >= SHN_LORESERVE || sym->st_shndx >= e->shnum ||
                    (e->shdrs[sym->st_shndx].sh_flags & SHF_ALLOC);
        uint64_t value = sym->st_value;
        if (alloc && sym->st_shndx != SHN_ABS && sym->st_shndx != SHN_COMMON)
            value += e->bias;
        /* A nameless symbol is no candidate, but its name is looked at only
         * when it would change a search: the names lie all over the string
         * table (1.3 MB for cc1's .dynsym), and reading every one faulted
         * in most of it for each address named. */
        for (size_t k = first_at_or_past(s, n, value); k < n; k++) {
            if (changes_nothing(s[k], value, sym))
                continue;
            if (sym->st_name >= e->strsize || e->strtab[sym->st_name] == '\0')
                break;
            try_sym(s[k], value, sym);
        }
    }
}

static int by_address(const void *a, const void *b)
{
    uint64_t x = (*(struct search *const *)a)->addr, y = (*(struct search *const *)b)->addr;
    return x < y ? -1 : x > y;
}

/* __libdwfl_addrsym for each search of s, in order of address: the globals
 * first (from 1 when sh_info is 0), the locals only for the searches no
 * global fits, unless a sizeless global starts exactly at the address; a
 * sizeless candidate only when no sized one fits. Moves the searches that
 * look at the locals to the front of s, still in order of address. */
static void addrsyms(const struct st_elf *e, struct search **s, size_t n)
{
    search_table(s, n, e->first_global == 0 ? 1 : e->first_global, e->nsyms);
    if (e->first_global <= 1)
        return;
    size_t more = 0;
    for (size_t k = 0; k < n; k++)
        if (!s[k]->defer && !s[k]->closest && (!s[k]->sizeless || s[k]->sizeless_value != s[k]->addr)) {
            struct search *t = s[more];
            s[more++] = s[k];
            s[k] = t;
        }
    if (more)
        search_table(s, more, 1, e->first_global);
}

static enum st_elf_answer answer_of(const struct search *s, const char **name)
{
    if (s->defer)
        return ST_ELF_LIBDW;
    const Elf64_Sym *best = s->closest;
    if (!best && s->sizeless && s->sizeless_value >= s->min_label)
        best = s->sizeless;
    if (!best)
        return ST_ELF_NO_NAME;
    *name = s->e->strtab + best->st_name;
    return ST_ELF_NAME;
}

enum st_elf_answer st_elf_addrname(const struct st_elf *e, uint64_t addr, const char **name)
{
    struct search one = {.e = e, .addr = addr}, *s = &one;
    addrsyms(e, &s, 1);
    return answer_of(&one, name);
}

int st_elf_addrnames(const struct st_elf *e, const uint64_t *addrs, size_t n,
                     enum st_elf_answer *answers, const char **names)
{
    struct search *all = st_alloc(n * sizeof *all);
    struct search **order = st_alloc(n * sizeof(void *));
    if (!all || !order)
        return -1;
    for (size_t k = 0; k < n; k++) {
        all[k] = (struct search){.e = e, .addr = addrs[k]};
        order[k] = &all[k];
    }
    st_sort(order, n, sizeof(void *), by_address);
    addrsyms(e, order, n);
    for (size_t k = 0; k < n; k++)
        answers[k] = answer_of(&all[k], &names[k]);
    return 0;
}
