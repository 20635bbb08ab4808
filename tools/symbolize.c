/* symbolize.c — naming the sites of a trace, offline (tool.h).
 *
 * A traced process names its call sites at exit from each module's own
 * symbol table and, for modules with DWARF, libdw; it leaves them all for
 * later under SEEKTRACE_SYMBOLIZE=later, which `seektrace run` sets, and a
 * trace without a footer (the process was killed) has only return
 * addresses. Both keep the executable mappings
 * those addresses fell in (MODULE events), so this does the look-up here:
 * libdwfl on each module file — function, source and line, as long as the
 * file is still on this machine and unchanged since the process started;
 * module + offset otherwise.
 *
 * One context serves every trace a command reads: each module file is
 * opened and its DWARF indexed once for the whole job, however many
 * processes mapped it (a make or configure run maps libc a thousand times).
 * Each file is reported to a Dwfl of its own at its link-time addresses, so
 * processes that loaded it at different places share it. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo_local.h"
#include "tool.h"

/* A module file as found on this machine. */
struct module_file {
    char *path;
    dev_t dev;
    ino_t ino;
    struct timespec ctime; /* when it became the file at path */
    int exec;              /* ET_EXEC: linked at the addresses it runs at */
    Dwfl *dwfl;            /* NULL: not an ELF file libdwfl could take */
};

/* A name found, by module file and address: a job's processes run the same
 * programs, and libdwfl looks a symbol up by a walk of the whole table (a
 * second for make's 31 runs of cc1 and its 29,000 symbols). */
struct named {
    size_t file; /* index in files, + 1: 0 is an empty slot */
    Dwarf_Addr at;
    const char *function, *source;
    int line;
};

struct symctx {
    struct module_file *files;
    size_t n, cap;
    struct named *names; /* open addressing, capnames a power of two */
    size_t nnames, capnames;
    uint64_t started_ns; /* the trace's process start (wall clock), 0: unknown */
    char **strings;      /* names handed out, freed with the context */
    size_t nstr, capstr;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = debuginfo_find_local,
    .section_address = dwfl_offline_section_address,
};

static void *symbolizer_new(void)
{
    return calloc(1, sizeof(struct symctx));
}

static void symbolizer_free(void *ctx)
{
    struct symctx *s = ctx;
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        if (s->files[i].dwfl)
            dwfl_end(s->files[i].dwfl);
        free(s->files[i].path);
    }
    free(s->files);
    free(s->names);
    for (size_t i = 0; i < s->nstr; i++)
        free(s->strings[i]);
    free(s->strings);
    free(s);
}

static void *shared;

static void free_shared(void)
{
    symbolizer_free(shared);
}

void *symbolizer_shared(void)
{
    if (!shared && (shared = symbolizer_new()) != NULL)
        atexit(free_shared);
    return shared;
}

void symbolizer_for_trace(void *ctx, uint64_t started_realtime_ns)
{
    struct symctx *s = ctx;
    if (s)
        s->started_ns = started_realtime_ns;
}

/* A copy of str that lives as long as the context. */
static const char *keep(struct symctx *s, const char *str)
{
    if (!str)
        return NULL;
    if (s->nstr == s->capstr) {
        size_t cap = s->capstr ? s->capstr * 2 : 64;
        char **v = realloc(s->strings, cap * sizeof *v);
        if (!v)
            return NULL;
        s->strings = v;
        s->capstr = cap;
    }
    char *d = strdup(str);
    if (d)
        s->strings[s->nstr++] = d;
    return d;
}

/* C++ names as a person writes them, as the library gives them at exit:
 * through libstdc++'s demangler, loaded on the first mangled name (this
 * command is C); the symbol itself when there is none. */
static const char *demangled(struct symctx *s, const char *name)
{
    typedef char *demangle_fn(const char *, char *, size_t *, int *);
    static demangle_fn *demangle;
    static int looked;
    if (name[0] != '_' || name[1] != 'Z')
        return keep(s, name);
    if (!looked) {
        looked = 1;
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h)
            *(void **)&demangle = dlsym(h, "__cxa_demangle");
    }
    int status = -1;
    char *plain = demangle ? demangle(name, NULL, NULL, &status) : NULL;
    const char *r = keep(s, status == 0 && plain ? plain : name);
    free(plain);
    return r;
}

/* 1 for ET_EXEC, 0 for another ELF type, -1 when not an ELF file. */
static int is_exec(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char e[18];
    ssize_t n = pread(fd, e, sizeof e, 0);
    close(fd);
    if (n != (ssize_t)sizeof e || memcmp(e, "\177ELF", 4) != 0)
        return -1;
    unsigned type = e[5] == 1 ? (unsigned)(e[16] | e[17] << 8) : (unsigned)(e[16] << 8 | e[17]);
    return type == 2; /* ET_EXEC */
}

static int same_file(const struct module_file *f, const char *path, const struct stat *st)
{
    return f->dev == st->st_dev && f->ino == st->st_ino &&
           f->ctime.tv_sec == st->st_ctim.tv_sec && f->ctime.tv_nsec == st->st_ctim.tv_nsec &&
           strcmp(f->path, path) == 0;
}

/* The file at path, opened once per identity: a path rebuilt while the
 * command runs is a new file. */
static struct module_file *file_of(struct symctx *s, const char *path, const struct stat *st)
{
    for (size_t i = 0; i < s->n; i++)
        if (same_file(&s->files[i], path, st))
            return &s->files[i];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct module_file *v = realloc(s->files, cap * sizeof *v);
        if (!v)
            return NULL;
        s->files = v;
        s->cap = cap;
    }
    struct module_file *f = &s->files[s->n];
    *f = (struct module_file){.path = strdup(path), .dev = st->st_dev, .ino = st->st_ino,
                              .ctime = st->st_ctim};
    if (!f->path)
        return NULL;
    s->n++;
    f->exec = is_exec(path);
    if (f->exec < 0 || !(f->dwfl = dwfl_begin(&callbacks)))
        return f;
    dwfl_report_begin(f->dwfl);
    if (!dwfl_report_elf(f->dwfl, path, path, -1, 0, false) ||
        dwfl_report_end(f->dwfl, NULL, NULL) != 0) {
        dwfl_end(f->dwfl);
        f->dwfl = NULL;
    }
    return f;
}

/* The module's file, if it is the one the process ran: one that became
 * the file at that path after the process started (a rebuilt program, the
 * next conftest of a configure run) would give another program's names. */
static struct module_file *file_that_ran(struct symctx *s, const char *path)
{
    struct stat st;
    if (path[0] != '/' || stat(path, &st) != 0)
        return NULL;
    uint64_t changed_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec;
    if (s->started_ns && changed_ns > s->started_ns)
        return NULL;
    return file_of(s, path, &st);
}

static size_t slot_of(const struct named *v, size_t cap, size_t file, Dwarf_Addr at)
{
    size_t i = (size_t)((at ^ (Dwarf_Addr)file * 0x9e3779b97f4a7c15u) * 0xff51afd7ed558ccdu >> 17);
    for (i &= cap - 1; v[i].file && (v[i].file != file || v[i].at != at); i = (i + 1) & (cap - 1))
        ;
    return i;
}

/* The cache's slot for (file, at): found, or empty for it; NULL when the
 * table cannot grow (the name is then looked up every time). */
static struct named *name_slot(struct symctx *s, size_t file, Dwarf_Addr at)
{
    if (2 * (s->nnames + 1) > s->capnames) {
        size_t cap = s->capnames ? 2 * s->capnames : 256;
        struct named *v = calloc(cap, sizeof *v);
        if (!v)
            return NULL;
        for (size_t i = 0; i < s->capnames; i++)
            if (s->names[i].file)
                v[slot_of(v, cap, s->names[i].file, s->names[i].at)] = s->names[i];
        free(s->names);
        s->names = v;
        s->capnames = cap;
    }
    return &s->names[slot_of(s->names, s->capnames, file, at)];
}

/* What libdwfl says of at in f. */
static void look_up(struct symctx *s, struct module_file *f, Dwarf_Addr at, struct named *out)
{
    Dwfl_Module *m = dwfl_addrmodule(f->dwfl, at);
    if (!m)
        return;
    const char *name = dwfl_module_addrname(m, at);
    if (name)
        out->function = demangled(s, name);
    Dwfl_Line *line = dwfl_module_getsrc(m, at);
    int lineno = 0;
    const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (src) {
        out->source = keep(s, src);
        out->line = lineno;
    }
}

void symbolize_offline(void *ctx, const struct st_trace_module *module, uint64_t address,
                       struct st_report_frame *out)
{
    struct symctx *s = ctx;
    if (!s || !module)
        return;
    struct module_file *f = file_that_ran(s, module->path);
    if (!f || !f->dwfl)
        return;
    /* A return address follows the call: look up the call itself, at the
     * file's own addresses (a shared object or PIE is placed at start -
     * file_offset: text segments map file offset = vaddr). */
    Dwarf_Addr at = address - 1;
    if (!f->exec)
        at -= module->start - module->file_offset;
    size_t file = (size_t)(f - s->files) + 1;
    struct named *n = name_slot(s, file, at), found = {file, at, NULL, NULL, 0};
    if (n && n->file) {
        found = *n;
    } else {
        look_up(s, f, at, &found);
        if (n) {
            *n = found;
            s->nnames++;
        }
    }
    if (found.function)
        out->function = found.function;
    if (found.source) {
        out->source = found.source;
        out->line = found.line;
    }
}
