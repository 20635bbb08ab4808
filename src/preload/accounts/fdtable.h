/* fdtable.h — what each file descriptor refers to, and where its offset is.
 *
 * The kernel keeps the offset per open file description, shared by dup'ed
 * descriptors; so do we. Offsets are shadowed from the calls we see (never
 * asked of the kernel: an lseek of ours would show in strace) and are known
 * only for descriptions opened while we watched or placed by an lseek.
 *
 * Entries and descriptions a close or a new open replaces are recycled
 * while the process has one thread, after a delay of many replacements
 * (fdtable.c): a program that opens and closes files for ever keeps a
 * table of constant size. */
#ifndef SEEKTRACE_FDTABLE_H
#define SEEKTRACE_FDTABLE_H

#include <stddef.h>
#include <stdint.h>

struct st_file;

struct st_desc {
    int64_t offset; /* -1 when unknown */
    int refs;       /* table entries that share it (fdtable.c recycles it at 0) */
    int append;     /* O_APPEND: every write lands at the end of the file */
};

struct st_fd {
    struct st_file *file;
    struct st_desc *desc;
};

/* Descriptors up to the kernel's highest (fs.nr_open's default), in pages
 * of ST_FD_PAGE entries from the arena, each made when a descriptor in it is
 * first named: a program whose descriptors stay below 1024 costs one 8 KiB
 * page, not the whole range's address space (which `ulimit -v` counts). */
#define ST_MAX_FDS (1 << 20)
#define ST_FD_PAGE_SHIFT 10
#define ST_FD_PAGE (1 << ST_FD_PAGE_SHIFT)

/* The table itself: page fd >> ST_FD_PAGE_SHIFT, entry fd & (ST_FD_PAGE - 1)
 * (NULL until first used). */
extern struct st_fd **st_fd_pages[ST_MAX_FDS >> ST_FD_PAGE_SHIFT];

/* fd was just opened on a new description at offset 0, by
 * openat(dir, path, flags) (AT_FDCWD for open and fopen; path NULL when
 * unknown): the file is named from dir's entry in this table and path when
 * name_in_dir.h allows, else by /proc, else by path (st_file_of_opening). */
void st_fd_opened(int fd, int dir, const char *path, int flags);
/* fd was opened where we could not see: look its name up again, keeping
 * what we know of its offset only if it still names the same file. */
void st_fd_refresh(int fd);
/* newfd now shares oldfd's description. */
void st_fd_dup(int oldfd, int newfd);
void st_fd_closed(int fd);
/* The files no entry names any more since the last call (at most max of
 * them, noted while the process had one thread): fold.h's candidates. */
size_t st_fd_files_emptied(struct st_file **out, size_t max);
/* fd's description was opened with O_APPEND, or fcntl(F_SETFL) set or
 * cleared it (on: non-zero). */
void st_fd_set_append(int fd, int on);
/* The entry for fd, resolved through /proc/self/fd the first time an fd we
 * did not see opened is used. NULL for fds we cannot track. Inline when
 * the entry exists: every stdio syscall hook asks. */
const struct st_fd *st_fd_get_slow(int fd);
/* The entry for fd if one exists, else NULL: never resolves, allocates or
 * locks, so a signal handler may ask (record.h). */
static inline const struct st_fd *st_fd_peek(int fd)
{
    if (__builtin_expect((unsigned)fd >= ST_MAX_FDS, 0))
        return NULL;
    struct st_fd **page =
        __atomic_load_n(&st_fd_pages[(unsigned)fd >> ST_FD_PAGE_SHIFT], __ATOMIC_ACQUIRE);
    return __builtin_expect(page != NULL, 1)
               ? __atomic_load_n(&page[(unsigned)fd & (ST_FD_PAGE - 1)], __ATOMIC_ACQUIRE)
               : NULL;
}

static inline const struct st_fd *st_fd_get(int fd)
{
    const struct st_fd *e = st_fd_peek(fd);
    return __builtin_expect(e != NULL, 1) ? e : st_fd_get_slow(fd);
}

/* The description e shares, NULL when e is. What a syscall books on is
 * the description: a fast-path entry keeps it (thread_state.h) and skips
 * the table, whose page is one more to walk to after every syscall. */
static inline struct st_desc *st_fd_desc(const struct st_fd *e)
{
    return e ? e->desc : NULL;
}

/* Offset bookkeeping; all are no-ops when the offset is unknown (d NULL or
 * its offset -1). Inline: a few per syscall. */
static inline int64_t st_desc_offset(const struct st_desc *d)
{
    return d ? __atomic_load_n(&d->offset, __ATOMIC_RELAXED) : -1;
}

static inline void st_desc_advance(struct st_desc *d, int64_t n)
{
    if (!d || n <= 0)
        return;
    int64_t off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);
    if (off >= 0)
        __atomic_store_n(&d->offset, off + n, __ATOMIC_RELAXED);
}

static inline void st_desc_set(struct st_desc *d, int64_t offset)
{
    if (d)
        __atomic_store_n(&d->offset, offset, __ATOMIC_RELAXED);
}

static inline int st_desc_append(const struct st_desc *d)
{
    return d ? __atomic_load_n(&d->append, __ATOMIC_RELAXED) : 0;
}

/* A write at the description's own offset returned n: the offset moves
 * past the bytes written, or, with O_APPEND, to the end of the file, which
 * seektrace does not know (asking the kernel would show in strace). */
static inline void st_desc_wrote(struct st_desc *d, int64_t n)
{
    if (n > 0 && st_desc_append(d))
        st_desc_set(d, -1);
    else
        st_desc_advance(d, n);
}

#endif
