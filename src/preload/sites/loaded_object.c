/* loaded_object.c — see loaded_object.h. */
#define _GNU_SOURCE 1
#include "loaded_object.h"

#include <stddef.h>

#include "dynsym.h"

struct query {
    uintptr_t addr;
    struct st_loaded_object found;
};

static int holds(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct query *q = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && q->addr - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz) {
            q->found = (struct st_loaded_object){info->dlpi_addr, info->dlpi_name,
                                                 info->dlpi_phdr, info->dlpi_phnum};
            return 1;
        }
    }
    return 0;
}

int st_loaded_object(uintptr_t addr, struct st_loaded_object *out)
{
    struct query q = {.addr = addr};
    if (!dl_iterate_phdr(holds, &q))
        return 0;
    *out = q.found;
    return 1;
}

static int function_at(const struct st_symbols *t, const ElfW(Sym) *s, const void *arg)
{
    uintptr_t addr = *(const uintptr_t *)arg;
    return ELF64_ST_TYPE(s->st_info) == STT_FUNC && addr - (t->base + s->st_value) < s->st_size;
}

int st_loaded_object_exports_at(const struct st_loaded_object *o, const char *name, uintptr_t addr)
{
    struct st_symbols t;
    return st_symbols_of(o->base, o->phdr, o->phnum, &t) &&
           st_symbols_find(&t, name, function_at, &addr) != NULL;
}
