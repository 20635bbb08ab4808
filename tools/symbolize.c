/* symbolize.c — naming the sites of a trace, offline (tool.h).
 *
 * The library symbolizes in the traced process at exit, and the footer
 * keeps the result. A trace without a footer (the process was killed) has
 * only return addresses and the executable mappings they fell in, so this
 * does the same lookup afterwards: libdwfl on each module file at the
 * address it was loaded at — function, source and line, as long as the
 * files are still on this machine; module + offset otherwise. */
#define _GNU_SOURCE 1
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

struct symctx {
    Dwfl *dwfl;
    char **reported; /* module paths reported to dwfl */
    size_t n, cap;
    char **strings;  /* names handed out, freed with the context */
    size_t nstr, capstr;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

void *symbolizer_new(void)
{
    struct symctx *s = calloc(1, sizeof *s);
    if (s && !(s->dwfl = dwfl_begin(&callbacks))) {
        free(s);
        return NULL;
    }
    return s;
}

void symbolizer_free(void *ctx)
{
    struct symctx *s = ctx;
    if (!s)
        return;
    dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->n; i++)
        free(s->reported[i]);
    free(s->reported);
    for (size_t i = 0; i < s->nstr; i++)
        free(s->strings[i]);
    free(s->strings);
    free(s);
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

/* ET_EXEC files are linked at their addresses; anything else is placed
 * at start - file_offset (text segments map file offset = vaddr). */
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

static void report_module(struct symctx *s, const struct st_trace_module *m)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->reported[i], m->path) == 0)
            return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        char **r = realloc(s->reported, s->cap * sizeof *r);
        if (!r)
            return;
        s->reported = r;
    }
    s->reported[s->n++] = strdup(m->path);
    int exec = is_exec(m->path);
    if (exec < 0)
        return;
    dwfl_report_begin_add(s->dwfl);
    dwfl_report_elf(s->dwfl, m->path, m->path, -1, exec ? 0 : m->start - m->file_offset, false);
    dwfl_report_end(s->dwfl, NULL, NULL);
}

void symbolize_offline(void *ctx, const struct st_trace_module *module, uint64_t address,
                       struct st_report_frame *out)
{
    struct symctx *s = ctx;
    if (!s || !module)
        return;
    report_module(s, module);
    /* A return address follows the call: look up the call itself. */
    Dwarf_Addr at = address - 1;
    Dwfl_Module *m = dwfl_addrmodule(s->dwfl, at);
    if (!m)
        return;
    const char *name = dwfl_module_addrname(m, at);
    if (name)
        out->function = keep(s, name);
    Dwfl_Line *line = dwfl_module_getsrc(m, at);
    int lineno = 0;
    const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (src) {
        out->source = keep(s, src);
        out->line = lineno;
    }
}
