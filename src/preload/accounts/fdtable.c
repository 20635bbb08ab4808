/* fdtable.c — see fdtable.h. */
#include "fdtable.h"

#include "arena.h"
#include "files.h"
#include "staleness.h"

struct st_fd **st_fd_pages[ST_MAX_FDS >> ST_FD_PAGE_SHIFT];

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

/* Entries are immutable once published; a change publishes a new one. */
static void publish(int fd, struct st_file *file, struct st_desc *desc)
{
    struct st_fd **at = slot(fd);
    if (!at)
        return;
    struct st_fd *e = NULL;
    if (file && (e = st_alloc(sizeof *e)) != NULL) {
        e->file = file;
        e->desc = desc;
    }
    __atomic_store_n(at, e, __ATOMIC_RELEASE);
    st_staleness_fds_changed(); /* what a thread learnt from the table may be stale */
}

static struct st_desc *new_desc(int64_t offset)
{
    struct st_desc *d = st_alloc(sizeof *d);
    if (d)
        d->offset = offset;
    return d;
}

void st_fd_opened(int fd, const char *name)
{
    struct st_desc *d = new_desc(0);
    if (d)
        publish(fd, st_file_of_opening(fd, name), d);
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
        publish(fd, f, d);
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
    publish(fd, st_file_of_fd(fd), d);
    return __atomic_load_n(at, __ATOMIC_ACQUIRE);
}
