/* symbolize.c — see symbolize.h. */
#define _GNU_SOURCE 1
#include "symbolize.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"

/* The libdwfl entry points we use, resolved from a dlopen'ed libdw. */
static struct {
    void *handle;
    int tried;
    Dwfl *dwfl;
    __typeof__(dwfl_begin) *begin;
    __typeof__(dwfl_end) *end;
    __typeof__(dwfl_linux_proc_report) *proc_report;
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
    SYM(proc_report, dwfl_linux_proc_report);
    SYM(report_end, dwfl_report_end);
    SYM(addrmodule, dwfl_addrmodule);
    SYM(addrname, dwfl_module_addrname);
    SYM(getsrc, dwfl_module_getsrc);
    SYM(lineinfo, dwfl_lineinfo);
    SYM(module_info, dwfl_module_info);
    SYM(find_elf, dwfl_linux_proc_find_elf);
    SYM(find_debuginfo, dwfl_build_id_find_debuginfo);
#undef SYM
    if (!dw.begin || !dw.end || !dw.proc_report || !dw.report_end || !dw.addrmodule ||
        !dw.addrname || !dw.getsrc || !dw.lineinfo || !dw.module_info || !dw.find_elf ||
        !dw.find_debuginfo)
        return 0;
    callbacks.find_elf = dw.find_elf;
    /* Local debug info only (the binary's own, /usr/lib/debug/.build-id):
     * the standard search falls back to debuginfod, which loads libcurl and
     * some thirty libraries into the exiting program, opens sockets, and
     * may wait on the network. */
    callbacks.find_debuginfo = dw.find_debuginfo;
    dw.dwfl = dw.begin(&callbacks);
    if (!dw.dwfl)
        return 0;
    if (dw.proc_report(dw.dwfl, getpid()) != 0 || dw.report_end(dw.dwfl, NULL, NULL) != 0) {
        dw.end(dw.dwfl);
        dw.dwfl = NULL;
    }
    return dw.dwfl != NULL;
}

static void with_dladdr(uintptr_t pc, struct st_report_frame *f)
{
    Dl_info info;
    if (!dladdr((void *)(pc - 1), &info))
        return;
    f->module = info.dli_fname ? st_strdup(info.dli_fname) : NULL;
    f->offset = pc - (uintptr_t)info.dli_fbase;
    if (!f->function && info.dli_sname)
        f->function = st_strdup(info.dli_sname);
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

void st_symbolize(uintptr_t pc, struct st_report_frame *f)
{
    memset(f, 0, sizeof *f);
    with_dladdr(pc, f);
    if (!load_libdw())
        return;
    /* A return address follows the call: look up the call itself. */
    Dwarf_Addr at = pc - 1;
    Dwfl_Module *m = dw.addrmodule(dw.dwfl, at);
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

void st_symbolize_done(void)
{
    if (dw.dwfl)
        dw.end(dw.dwfl);
    dw.dwfl = NULL;
}
