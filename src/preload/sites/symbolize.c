/* symbolize.c — see symbolize.h. */
#define _GNU_SOURCE 1
#include "symbolize.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "arena.h"
#include "bulk.h"
#include "elf_symtab.h"
#include "proc_self.h"
#include "loaded_object.h"

/* The libdwfl entry points we use, resolved from a dlopen'ed libdw. */
static struct {
    void *handle;
    int tried;
    Dwfl *dwfl;
    __typeof__(dwfl_begin) *begin;
    __typeof__(dwfl_end) *end;
    __typeof__(dwfl_report_begin_add) *report_begin_add;
    __typeof__(dwfl_report_elf) *report_elf;
    __typeof__(dwfl_report_end) *report_end;
    __typeof__(dwfl_addrmodule) *addrmodule;
    __typeof__(dwfl_module_addrname) *addrname;
    __typeof__(dwfl_module_getsrc) *getsrc;
    __typeof__(dwfl_lineinfo) *lineinfo;
    __typeof__(dwfl_module_info) *module_info;
    __typeof__(dwfl_linux_proc_find_elf) *find_elf;
    __typeof__(dwfl_build_id_find_debuginfo) *find_debuginfo;
} dw;

static Dwfl_Callbacks callbacks;

static int load_libdw(void)
{
    if (dw.tried)
        return dw.dwfl != NULL;
    dw.tried = 1;
    dw.handle = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!dw.handle)
        return 0;
#define SYM(field, name) *(void **)&dw.field = dlsym(dw.handle, #name)
    SYM(begin, dwfl_begin);
    SYM(end, dwfl_end);
    SYM(report_begin_add, dwfl_report_begin_add);
    SYM(report_elf, dwfl_report_elf);
    SYM(report_end, dwfl_report_end);
    SYM(addrmodule, dwfl_addrmodule);
    SYM(addrname, dwfl_module_addrname);
    SYM(getsrc, dwfl_module_getsrc);
    SYM(lineinfo, dwfl_lineinfo);
    SYM(module_info, dwfl_module_info);
    SYM(find_elf, dwfl_linux_proc_find_elf);
    SYM(find_debuginfo, dwfl_build_id_find_debuginfo);
#undef SYM
    if (!dw.begin || !dw.end || !dw.report_begin_add || !dw.report_elf || !dw.report_end ||
        !dw.addrmodule || !dw.addrname || !dw.getsrc || !dw.lineinfo || !dw.module_info ||
        !dw.find_elf || !dw.find_debuginfo)
        return 0;
    callbacks.find_elf = dw.find_elf;
    /* Local debug info only (the binary's own, /usr/lib/debug/.build-id):
     * the standard search falls back to debuginfod, which loads libcurl and
     * some thirty libraries into the exiting program, opens sockets, and
     * may wait on the network. */
    callbacks.find_debuginfo = dw.find_debuginfo;
    dw.dwfl = dw.begin(&callbacks);
    if (dw.dwfl && dw.report_end(dw.dwfl, NULL, NULL) != 0) {
        dw.end(dw.dwfl);
        dw.dwfl = NULL;
    }
    return dw.dwfl != NULL;
}

/* The loaded objects handed to libdw so far, by load bias: each once, even
 * when libdw could not take it. */
#define MAX_REPORTED 64
static uintptr_t reported[MAX_REPORTED] ST_BULK; /* the exit report's */
static int nreported;

/* libdw's module for the address, handed the one loaded object that holds
 * it on first need: only the modules of sites libdw must name are opened,
 * never the rest of the process (libdw's dwfl_linux_proc_report would also
 * read /proc/PID/maps, which strace shows in the program's name). An
 * object without a file (the vdso) is never libdw's. The main program is
 * named by the file the kernel ran, as dladdr's argv[0] may not be it. */
static Dwfl_Module *libdw_module(Dwarf_Addr at)
{
    Dwfl_Module *m = dw.addrmodule(dw.dwfl, at);
    struct st_loaded_object o;
    if (m || !st_loaded_object((uintptr_t)at, &o))
        return m;
    int i = 0;
    while (i < nreported && reported[i] != o.base)
        i++;
    if (i < nreported)
        return NULL;
    if (nreported < MAX_REPORTED)
        reported[nreported++] = o.base;
    const char *path = o.path[0] == '\0' ? st_proc_exe() : o.path;
    if (path[0] != '/')
        return NULL;
    dw.report_begin_add(dw.dwfl);
    dw.report_elf(dw.dwfl, path, path, -1, o.base, false);
    if (dw.report_end(dw.dwfl, NULL, NULL) != 0)
        return NULL;
    return dw.addrmodule(dw.dwfl, at);
}

static void with_dladdr(uintptr_t pc, const Dl_info *info, struct st_report_frame *f)
{
    f->module = info->dli_fname ? st_strdup(info->dli_fname) : NULL;
    f->offset = pc - (uintptr_t)info->dli_fbase;
    if (info->dli_sname)
        f->function = st_strdup(info->dli_sname);
}

/* Modules whose names come from their own symbol table (elf_symtab.h),
 * by dli_fbase; elf NULL: libdw's. A program maps a few dozen objects at
 * most; past the table, libdw answers. */
#define MAX_MODULES 64
static struct module {
    uintptr_t base;
    struct st_elf *elf;
} modules[MAX_MODULES] ST_BULK; /* the exit report's */
static int nmodules;

/* The program's argv: the array the loader keeps as _dl_argv, whose
 * argv[0] dladdr gives as the file of the program's own frames. */
static char **program_argv;

void st_symbolize_set_argv(char **argv)
{
    program_argv = argv;
}

/* dladdr's answer for at, less the symbol: the module's file name and where
 * its lowest segment is mapped (the loader's l_map_start), read from the
 * loader's list. dladdr itself would walk every dynamic symbol of the
 * module to find the symbol too (29,000 in cc1: 1.5 ms for each site), and
 * most frames are named from the module's own table. 0 as dladdr when no
 * module holds at. */
static int module_info(uintptr_t at, Dl_info *info)
{
    struct st_loaded_object o;
    if (!st_loaded_object(at, &o) || (o.path[0] == '\0' && !(program_argv && program_argv[0])))
        return dladdr((void *)at, info);
    uintptr_t page = getauxval(AT_PAGESZ), low = UINTPTR_MAX;
    for (int i = 0; i < o.phnum; i++)
        if (o.phdr[i].p_type == PT_LOAD && (o.phdr[i].p_vaddr & ~(page - 1)) < low)
            low = o.phdr[i].p_vaddr & ~(page - 1);
    info->dli_fname = o.path[0] != '\0' ? o.path : program_argv[0];
    info->dli_fbase = (void *)(o.base + low);
    info->dli_sname = NULL;
    info->dli_saddr = NULL;
    return 1;
}

/* dladdr's symbol for at, for the frames libdw names: its name stands
 * where libdw finds none. */
static void dladdr_symbol(uintptr_t at, Dl_info *info)
{
    Dl_info full;
    if (dladdr((void *)at, &full))
        *info = full;
}

/* The build ID note of a loaded object, in memory; its length, 0 if none. */
static size_t build_id_of(const struct st_loaded_object *o, const unsigned char **id)
{
    for (int i = 0; i < o->phnum; i++) {
        const ElfW(Phdr) *ph = &o->phdr[i];
        size_t n = ph->p_type != PT_NOTE ? 0
                   : st_elf_notes_build_id((const unsigned char *)(o->base + ph->p_vaddr),
                                           ph->p_memsz, ph->p_align == 8 ? 8 : 4, id);
        if (n)
            return n;
    }
    return 0;
}

/* The module's file when it is the one loaded: libdw reads the file the
 * mapping came from (/proc/PID/maps), while a path may since name another
 * (an upgrade renames a new file over it), so the build IDs must agree. */
static struct st_elf *open_module(const Dl_info *info, uintptr_t at)
{
    struct st_loaded_object o;
    if (!st_loaded_object(at, &o))
        return NULL;
    /* The main program's dli_fname is argv[0]; the kernel knows its file.
     * A relative name (the vdso, or a dlopen relative to a directory the
     * program may have left) is libdw's. */
    const char *path = o.path[0] == '\0' ? st_proc_exe() : o.path;
    if (path[0] != '/')
        return NULL;
    struct st_elf *e = st_elf_open(path, (uintptr_t)info->dli_fbase, "/usr/lib/debug");
    const unsigned char *id, *loaded_id = NULL;
    size_t loaded_len = build_id_of(&o, &loaded_id);
    if (e && (st_elf_build_id(e, &id) != loaded_len ||
              (loaded_len && memcmp(id, loaded_id, loaded_len) != 0))) {
        st_elf_close(e);
        e = NULL;
    }
    return e;
}

/* The module table's entry for the module holding at (info from
 * module_info), opened on first need; -1 past the table. */
static int module_of(const Dl_info *info, uintptr_t at)
{
    uintptr_t base = (uintptr_t)info->dli_fbase;
    int i = 0;
    while (i < nmodules && modules[i].base != base)
        i++;
    if (i == nmodules) {
        if (nmodules == MAX_MODULES)
            return -1;
        modules[nmodules++] = (struct module){base, open_module(info, at)};
    }
    return i;
}

/* C++ names as a person writes them, when the process has a demangler
 * (libstdc++ is loaded in every C++ program); the symbol itself otherwise. */
static const char *demangled(const char *name)
{
    typedef char *demangle_fn(const char *, char *, size_t *, int *);
    static demangle_fn *demangle;
    static int looked;
    if (name[0] != '_' || name[1] != 'Z')
        return st_strdup(name);
    if (!looked) {
        looked = 1;
        *(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    }
    int status = -1;
    char *plain = demangle ? demangle(name, NULL, NULL, &status) : NULL;
    const char *r = st_strdup(status == 0 && plain ? plain : name);
    free(plain); /* report time: the demangler's own malloc */
    return r;
}

/* What a frame's module said of it before its name is written. */
struct pending {
    Dl_info info;
    int known;  /* module_info found its module */
    int module; /* its entry in modules, or -1 */
    enum st_elf_answer answer;
    const char *name;
};

/* The answers from each module's own table, one walk of the table for all
 * the frames in it (elf_symtab.h), one at a time if the arena is full. */
static void answer_from_tables(const uintptr_t *pcs, size_t n, struct pending *p)
{
    uint64_t *at = st_alloc(n * sizeof *at);
    enum st_elf_answer *answers = st_alloc(n * sizeof *answers);
    const char **names = st_alloc(n * sizeof *names);
    size_t *which = st_alloc(n * sizeof *which);
    for (int m = 0; m < nmodules; m++) {
        if (!modules[m].elf)
            continue;
        size_t k = 0;
        for (size_t i = 0; at && which && i < n; i++)
            if (p[i].module == m) {
                at[k] = pcs[i] - 1;
                which[k++] = i;
            }
        if (k && answers && names &&
            st_elf_addrnames(modules[m].elf, at, k, answers, names) == 0) {
            for (size_t j = 0; j < k; j++) {
                p[which[j]].answer = answers[j];
                p[which[j]].name = names[j];
            }
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (p[i].module == m)
                p[i].answer = st_elf_addrname(modules[m].elf, pcs[i] - 1, &p[i].name);
    }
}

/* f for a frame libdw names (its module has DWARF, or none of ours). */
static void from_libdw(Dwarf_Addr at, struct st_report_frame *f)
{
    if (!load_libdw())
        return;
    Dwfl_Module *m = libdw_module(at);
    if (!m)
        return;
    const char *name = dw.addrname(m, at);
    if (name)
        f->function = demangled(name);
    Dwfl_Line *line = dw.getsrc(m, at);
    int lineno = 0;
    const char *src = line ? dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (src) {
        f->source = st_strdup(src);
        f->line = lineno;
    }
}

/* f for pc, from what its module said. */
static void finish(uintptr_t pc, struct pending *p, struct st_report_frame *f)
{
    memset(f, 0, sizeof *f);
    /* A return address follows the call: look up the call itself. */
    Dwarf_Addr at = pc - 1;
    if (p->known) {
        /* Where the module's table names nothing, dladdr names nothing
         * either: it looks in the same symbols (or, beside a .symtab, in
         * the .dynsym that table holds) for one that contains the address,
         * and such a symbol would be the table's answer. */
        if (p->answer == ST_ELF_LIBDW)
            dladdr_symbol(at, &p->info);
        with_dladdr(pc, &p->info, f);
        switch (p->answer) {
        case ST_ELF_NAME:
            f->function = demangled(p->name);
            return;
        case ST_ELF_NO_NAME:
            return;
        case ST_ELF_LIBDW:
            break;
        }
    }
    from_libdw(at, f);
}

/* What module_info and the module table say of the frame at pc. */
static void look_up(uintptr_t pc, struct pending *p)
{
    uintptr_t at = pc - 1;
    p->known = module_info(at, &p->info);
    p->module = p->known ? module_of(&p->info, at) : -1;
    p->answer = ST_ELF_LIBDW;
}

void st_symbolize(uintptr_t pc, struct st_report_frame *f)
{
    struct pending p;
    look_up(pc, &p);
    if (p.module >= 0 && modules[p.module].elf)
        p.answer = st_elf_addrname(modules[p.module].elf, pc - 1, &p.name);
    finish(pc, &p, f);
}

void st_symbolize_many(const uintptr_t *pcs, size_t n, struct st_report_frame *frames)
{
    struct pending *p = st_alloc(n * sizeof *p);
    if (!p) {
        for (size_t i = 0; i < n; i++)
            st_symbolize(pcs[i], &frames[i]);
        return;
    }
    /* A module without DWARF has no source lines for libdw to find, and
     * its own symbol table gives libdw's names: loading libdw (some 2 ms)
     * is only for the frames of the others. */
    for (size_t i = 0; i < n; i++)
        look_up(pcs[i], &p[i]);
    answer_from_tables(pcs, n, p);
    for (size_t i = 0; i < n; i++)
        finish(pcs[i], &p[i], &frames[i]);
}

void st_symbolize_done(void)
{
    for (int i = 0; i < nmodules; i++)
        st_elf_close(modules[i].elf);
    nmodules = 0;
    nreported = 0;
    if (dw.dwfl)
        dw.end(dw.dwfl);
    dw.dwfl = NULL;
}
