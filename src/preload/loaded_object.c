/* loaded_object.c — see loaded_object.h. */
#define _GNU_SOURCE 1
#include "loaded_object.h"

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
