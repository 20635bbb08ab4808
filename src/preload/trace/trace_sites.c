/* trace_sites.c — call sites in the trace: their ids (kept in the struct
 * st_site, as trace_ids.c keeps the targets'), defined by the thread that
 * gives one (SITE_DEF: its frames' addresses); and the executable
 * mappings those addresses lie in (MODULE), recorded before the first site
 * that needs them, so that a reader can turn an address into module +
 * offset. */
#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <unistd.h>

#include "bulk.h"
#include "sites.h"
#include "trace_encode.h"
#include "trace_writer_internal.h"

#define MAX_MODULES 1024

/* The executable mappings recorded so far (appended under module_lock;
 * nmodules published last, so a reader without the lock sees whole
 * entries). */
static struct {
    uintptr_t start, end;
} modules[MAX_MODULES] ST_BULK;
static unsigned nmodules;
static st_spin module_lock;
/* The last site id handed out. */
static uint32_t next_site;

void st_tw_sites_restart(void)
{
    next_site = 0;
    nmodules = 0;
    module_lock.locked = 0;
}

static int module_known(uintptr_t addr)
{
    unsigned n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (addr >= modules[i].start && addr < modules[i].end)
            return 1;
    return 0;
}

static void emit_module(struct st_tw_thread *t, uintptr_t start, uintptr_t end, uint64_t off,
                        const char *path, size_t len)
{
    uint8_t *p = st_tw_reserve(t, len + 6 * ST_VARINT_MAX);
    if (!p) {
        st_tw_lost();
        return;
    }
    st_tw_commit(t, put_MODULE(p, start, end, off, path, len));
}

/* Each executable segment of a loaded object not yet known is recorded.
 * From the loader's own list: reading /proc/self/maps would show in
 * strace as the program's reads, of a file it may read itself. */
static int module_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct st_tw_thread *t = arg;
    const char *path = info->dlpi_name[0] ? info->dlpi_name : st_tw_exe();
    if (path[0] != '/') /* the vdso: no file */
        return 0;
    uintptr_t page = (uintptr_t)getpagesize();
    for (int i = 0; i < info->dlpi_phnum && nmodules < MAX_MODULES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t at = info->dlpi_addr + ph->p_vaddr;
        uintptr_t start = at & ~(page - 1), end = (at + ph->p_memsz + page - 1) & ~(page - 1);
        if (module_known(start))
            continue;
        modules[nmodules].start = start;
        modules[nmodules].end = end;
        __atomic_store_n(&nmodules, nmodules + 1, __ATOMIC_RELEASE);
        emit_module(t, start, end, ph->p_offset & ~(uint64_t)(page - 1), path,
                    st_tw_bounded_len(path, MAX_PATH));
    }
    return 0;
}

static void scan_modules(struct st_tw_thread *t)
{
    dl_iterate_phdr(module_segments, t);
}

uint32_t st_tw_site_id(struct st_tw_thread *t, struct st_site *site)
{
    if (!site)
        return 0;
    int fresh;
    uint32_t id = st_tw_claim_id(&site->trace_id, &next_site, &fresh);
    if (!fresh)
        return id;
    int nframes = site->nframes > 0 ? site->nframes : 1;
    if (nframes > ST_MAX_FRAMES)
        nframes = ST_MAX_FRAMES;
    const uintptr_t *frames = site->nframes > 0 ? site->frames : &site->pc;
    int unknown = 0;
    for (int f = 0; f < nframes; f++)
        unknown |= !module_known(frames[f]);
    if (unknown && st_spin_trylock(&module_lock)) {
        int saved = errno;
        scan_modules(t);
        errno = saved;
        st_spin_unlock(&module_lock);
    }
    uint8_t *p = st_tw_reserve(t, 2 + (2 + (size_t)nframes) * ST_VARINT_MAX);
    if (!p) {
        st_tw_lost();
        return id;
    }
    st_tw_commit(t, put_SITE_DEF(p, id, frames, nframes));
    return id;
}
