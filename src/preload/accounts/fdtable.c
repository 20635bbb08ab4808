/* fdtable.c — see fdtable.h. */
#include "fdtable.h"

#include <fcntl.h>

#include "arena.h"
#include "bulk.h"
#include "files.h"
#include "glibc_compat.h"
#include "name_in_dir.h"
#include "staleness.h"
#include "storage.h"

/* 8 KiB, of which a process with fewer than a page of descriptors uses
 * the first word: bulk, next to limbo, not among the small variables. */
struct st_fd **st_fd_pages[ST_MAX_FDS >> ST_FD_PAGE_SHIFT] ST_BULK;

/* fd's slot, its page made if need be; NULL for fds we cannot track. Two
 * threads making one page: the loser's stays unused in the arena. */
static struct st_fd **slot(int fd)
{
    if (fd < 0 || fd >= ST_MAX_FDS)
        return NULL;
    struct st_fd ***at = &st_fd_pages[fd >> ST_FD_PAGE_SHIFT];
    struct st_fd **page = __atomic_load_n(at, __ATOMIC_ACQUIRE);
    if (!page) {
        struct st_fd **fresh = st_alloc(ST_FD_PAGE * sizeof(struct st_fd *));
        if (!fresh)
            return NULL;
        page = fresh;
        struct st_fd **expected = NULL;
        if (!__atomic_compare_exchange_n(at, &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            page = expected;
    }
    return &page[fd & (ST_FD_PAGE - 1)];
}

/* Entries and descriptions, both 16 bytes, come from one pool. */
union block {
    struct st_fd fd;
    struct st_desc desc;
    union block *next_ready;
};
_Static_assert(sizeof(struct st_fd) == 16 && sizeof(struct st_desc) == 16,
               "one pool of 16-byte blocks");

/* A replaced entry (or a description no entry shares any more) may still
 * be in a reader's hands: bookkeeping that fetched it just before (and,
 * through a thread's fast entry, a syscall that a signal handler's own
 * opens and closes interrupted). It is reused only after LIMBO later
 * replacements, and only while the process has one thread: with threads
 * a reader may be anywhere, and replaced blocks are left unused as before.
 * Callers are busy (the wrappers' bookkeeping), so a signal handler's
 * calls never find the ring half updated. */
#define LIMBO 1024

static union block *limbo[LIMBO] ST_BULK;
static unsigned limbo_next, limbo_count;
static union block *ready;

static void *block_new(void)
{
    union block *b = ready;
    if (b && __libc_single_threaded) {
        ready = b->next_ready;
        b->next_ready = NULL;
        return b;
    }
    return st_alloc(sizeof *b);
}

static void block_retire(void *p)
{
    if (!__libc_single_threaded)
        return;
    union block *b = p;
    if (limbo_count == LIMBO) {
        union block *old = limbo[limbo_next];
        old->next_ready = ready;
        ready = old;
    } else {
        limbo_count++;
    }
    limbo[limbo_next] = b;
    limbo_next = (limbo_next + 1) % LIMBO;
}

static void desc_release(struct st_desc *d)
{
    if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
        block_retire(d);
}

/* Files whose last entry went away, until st_fd_files_emptied asks: kept
 * while the process has one thread (its only reader, fold.c, acts only
 * then); more at once (a close_range) are not kept. */
#define EMPTIED_MAX 8
static struct st_file *emptied[EMPTIED_MAX];
static unsigned nemptied;

static void note_emptied(struct st_file *f)
{
    if (!__libc_single_threaded || nemptied == EMPTIED_MAX)
        return;
    for (unsigned i = 0; i < nemptied; i++)
        if (emptied[i] == f)
            return;
    emptied[nemptied++] = f;
}

size_t st_fd_files_emptied(struct st_file **out, size_t max)
{
    size_t n = 0;
    for (; n < nemptied && n < max; n++)
        out[n] = emptied[n];
    nemptied = 0;
    return n;
}

/* Entries are immutable once published; a change publishes a new one, and
 * the one it replaces (and its description, when no entry shares it any
 * more) is retired. */
static void publish(int fd, struct st_file *file, struct st_desc *desc)
{
    struct st_fd **at = slot(fd);
    if (!at)
        return;
    struct st_fd *e = NULL;
    if (file && (e = block_new()) != NULL) {
        e->file = file;
        e->desc = desc;
        __atomic_add_fetch(&file->fds, 1, __ATOMIC_ACQ_REL);
        if (desc)
            __atomic_add_fetch(&desc->refs, 1, __ATOMIC_ACQ_REL);
    }
    struct st_fd *old = __atomic_exchange_n(at, e, __ATOMIC_ACQ_REL);
    st_staleness_fds_changed(); /* what a thread learnt from the table may be stale */
    if (old) {
        if (__atomic_sub_fetch(&old->file->fds, 1, __ATOMIC_ACQ_REL) == 0)
            note_emptied(old->file);
        desc_release(old->desc);
        block_retire(old);
    }
}

/* With no entry yet: the first publish takes it (or, when it cannot, it
 * is retired at once by publish_new). */
static struct st_desc *new_desc(int64_t offset)
{
    struct st_desc *d = block_new();
    if (d) {
        d->offset = offset;
        d->refs = 0;
        d->append = 0;
    }
    return d;
}

/* publish for a description just made: given back when no entry holds it. */
static void publish_new(int fd, struct st_file *file, struct st_desc *d)
{
    publish(fd, file, d);
    if (__atomic_load_n(&d->refs, __ATOMIC_ACQUIRE) == 0)
        block_retire(d);
}

/* The record of a file opened by an entry of the directory dir, named from
 * the directory's name and the entry when name_in_dir.h allows (no
 * readlink), else NULL. The directory's entry is only peeked at: one this
 * table does not know is left to /proc. Not inlined: its name buffer is
 * gone before st_file_of_opening's is on the stack (wrappers run on
 * signal handlers' stacks). */
static __attribute__((noinline)) struct st_file *file_in_dir(int dir, const char *path, int flags)
{
    const struct st_fd *d = st_fd_peek(dir);
    char name[4096];
    if (d && !d->file->unnamed && st_name_in_dir(d->file->path, path, flags, name, sizeof name))
        return st_file_get(name);
    return NULL;
}

/* The record of the file just opened on fd: file_in_dir's, else as
 * st_file_of_opening names it, from the name given when that is not
 * relative to another directory. */
static struct st_file *opened_file(int fd, int dir, const char *path, int flags)
{
    struct st_file *f = dir == AT_FDCWD ? NULL : file_in_dir(dir, path, flags);
    if (f)
        return f;
    return st_file_of_opening(fd, dir == AT_FDCWD || (path && path[0] == '/') ? path : NULL);
}

void st_fd_opened(int fd, int dir, const char *path, int flags)
{
    struct st_file *f = opened_file(fd, dir, path, flags);
    struct st_desc *d = new_desc(0);
    if (d)
        publish_new(fd, f, d);
    st_storage_opened(fd, f);
}

void st_fd_refresh(int fd)
{
    struct st_file *f = st_file_of_fd(fd);
    const struct st_fd *e = st_fd_peek(fd);
    /* Unnamed now and before: nothing says it is another file. */
    if (e && (e->file == f || (f && f->unnamed && e->file->unnamed)))
        return;
    struct st_desc *d = new_desc(-1);
    if (d)
        publish_new(fd, f, d);
}

void st_fd_dup(int oldfd, int newfd)
{
    const struct st_fd *old = st_fd_get(oldfd);
    if (old)
        publish(newfd, old->file, old->desc);
    else
        st_fd_closed(newfd);
}

void st_fd_closed(int fd)
{
    publish(fd, NULL, NULL);
}

void st_fd_set_append(int fd, int on)
{
    const struct st_fd *e = st_fd_get(fd);
    if (e && e->desc)
        __atomic_store_n(&e->desc->append, on != 0, __ATOMIC_RELAXED);
}

const struct st_fd *st_fd_get_slow(int fd)
{
    struct st_fd **at = slot(fd);
    if (!at)
        return NULL;
    struct st_fd *e = __atomic_load_n(at, __ATOMIC_ACQUIRE);
    if (e)
        return e;
    struct st_desc *d = new_desc(-1);
    if (!d)
        return NULL;
    publish_new(fd, st_file_of_fd(fd), d);
    return __atomic_load_n(at, __ATOMIC_ACQUIRE);
}
