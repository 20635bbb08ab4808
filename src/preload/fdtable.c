/* fdtable.c — see fdtable.h. */
#include "fdtable.h"

#include <sys/mman.h>

#include "arena.h"
#include "files.h"
#include "staleness.h"

struct st_fd **st_fd_table;

static struct st_fd **slots(void)
{
    struct st_fd **t = __atomic_load_n(&st_fd_table, __ATOMIC_ACQUIRE);
    if (t)
        return t;
    void *p = mmap(NULL, ST_MAX_FDS * sizeof(struct st_fd *), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct st_fd **expected = NULL;
    if (!__atomic_compare_exchange_n(&st_fd_table, &expected, p, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        munmap(p, ST_MAX_FDS * sizeof(struct st_fd *));
        return expected;
    }
    return p;
}

/* Entries are immutable once published; a change publishes a new one. */
static void publish(int fd, struct st_file *file, struct st_desc *desc)
{
    struct st_fd **t = slots();
    if (!t || fd < 0 || fd >= ST_MAX_FDS)
        return;
    struct st_fd *e = NULL;
    if (file && (e = st_alloc(sizeof *e)) != NULL) {
        e->file = file;
        e->desc = desc;
    }
    __atomic_store_n(&t[fd], e, __ATOMIC_RELEASE);
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
        publish(fd, st_file_of_fd(fd, name), d);
}

void st_fd_refresh(int fd)
{
    struct st_file *f = st_file_of_fd(fd, NULL);
    const struct st_fd *e = st_fd_peek(fd);
    if (e && e->file == f)
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
    struct st_fd **t = slots();
    if (!t || fd < 0 || fd >= ST_MAX_FDS)
        return NULL;
    struct st_fd *e = __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE);
    if (e)
        return e;
    struct st_desc *d = new_desc(-1);
    if (!d)
        return NULL;
    publish(fd, st_file_of_fd(fd, NULL), d);
    return __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE);
}
