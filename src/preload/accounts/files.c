/* files.c — see files.h. */
#include "files.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "attribution.h"
#include "cells.h"
#include "glibc_compat.h"
#include "hash_chains.h"
#include "proc_self.h"
#include "registry_lock.h"
#include "stream.h"

static struct st_file *all_files;

static unsigned hash_path(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static unsigned hash_of_file(const void *entry)
{
    return hash_path(((const struct st_file *)entry)->path);
}

ST_CHAINS_DEFINE(files, 1u << 18, struct st_file, hash_of_file);

static struct st_file *lookup(const char *path, unsigned h)
{
    for (struct st_file *f = st_chains_first(&files, h); f; f = st_chains_next(&files, f))
        if (strcmp(f->path, path) == 0)
            return f;
    return NULL;
}

/* Regular files and block devices have offsets; pipes, sockets and
 * anonymous inodes ("pipe:[123]") and the pseudo files under /proc do not
 * re-read anything meaningful. */
static int is_seekable_name(const char *path)
{
    return path[0] == '/' && strncmp(path, "/proc/", 6) != 0 && strncmp(path, "/dev/", 5) != 0;
}

/* Records of files folded away (st_file_fold_out), for the next files:
 * still on all_files, with zero counts, which reports skip. */
static struct st_file *free_files;

/* path in f's own memory: the memory of the name it had, when the new one
 * fits; names are given room in steps of 64 bytes, so that most do. */
static int take_name(struct st_file *f, const char *path)
{
    size_t len = strlen(path) + 1;
    if (len > f->path_room) {
        size_t room = (len + 63) & ~(size_t)63;
        char *p = st_alloc(room);
        if (!p)
            return -1;
        f->path = p;
        f->path_room = room;
    }
    memcpy((char *)f->path, path, len);
    return 0;
}

/* A record for a new file: a folded one while the process has one thread
 * (it is on all_files already), else a new one. */
static struct st_file *record_new(const char *path)
{
    struct st_file *f = free_files;
    if (f && __libc_single_threaded) {
        if (take_name(f, path) != 0)
            return NULL;
        free_files = f->next_free;
        f->next_free = NULL;
        f->unnamed = 0;
        return f;
    }
    f = st_alloc(sizeof *f);
    if (!f || take_name(f, path) != 0)
        return NULL;
    st_ranges_init(&f->ranges, st_alloc, NULL);
    f->next_all = all_files;
    __atomic_store_n(&all_files, f, __ATOMIC_RELEASE);
    return f;
}

struct st_file *st_file_get(const char *path)
{
    unsigned h = hash_path(path);
    struct st_file *f = lookup(path, h);
    if (f)
        return f;
    if (!st_registry_lock())
        return NULL;
    f = lookup(path, h);
    if (!f && (f = record_new(path)) != NULL) {
        f->seekable = is_seekable_name(path);
        f->ranges_epoch = __atomic_load_n(&st_accounts_epoch, __ATOMIC_RELAXED);
        st_chains_add(&files, h, f);
    }
    st_registry_unlock();
    return f;
}

int st_file_fold_out(struct st_file *f)
{
    if (!st_registry_lock())
        return -1;
    st_chains_remove(&files, hash_path(f->path), f);
    st_cells_recycle(f->direct_cells);
    f->direct_cells = NULL;
    /* No id of the trace names the next file by this record's (cells get
     * theirs zeroed when made again, streams when taken as spares). */
    __atomic_store_n(&f->owner.trace_id, 0, __ATOMIC_RELEASE);
    /* Its streams are all closed: each becomes a spare, for the streams of
     * the file this record will be next. */
    f->spares = NULL;
    for (struct st_stream *s = f->streams; s; s = s->next_in_file) {
        st_cells_recycle(s->cells);
        s->cells = NULL;
        __atomic_store_n(&s->owner.trace_id, 0, __ATOMIC_RELEASE);
        s->spare = 1;
        s->next_spare = f->spares;
        f->spares = s;
    }
    memset(&f->in_handler, 0, sizeof f->in_handler);
    f->device_read_bytes = 0;
    st_ranges_clear(&f->ranges);
    __atomic_add_fetch(&f->ranges_generation, 1, __ATOMIC_RELEASE);
    f->fold_slot = 0;
    f->next_free = free_files;
    free_files = f;
    st_registry_unlock();
    return 0;
}

/* given made absolute, in name; 0 when there is none. */
static int absolute_name(const char *given, char *name, size_t size)
{
    if (!given || !*given)
        return 0;
    size_t at = 0;
    if (given[0] != '/') {
        long n = syscall(SYS_getcwd, name, size); /* the length, its NUL included */
        if (n <= 1 || name[0] != '/')
            return 0;
        at = (size_t)n - 1;
        if (at > 1)
            name[at++] = '/';
    }
    size_t len = strlen(given);
    if (at + len >= size)
        return 0;
    memcpy(name + at, given, len + 1);
    return 1;
}

/* fd's name in name (size 4096): its link under /proc, else `given` made
 * absolute; 0 when neither can be had. */
static int fd_name(int fd, const char *given, char *name, size_t size)
{
    long n = st_proc_readlink_fd(fd, name, size - 1);
    if (n > 0) {
        name[n] = '\0';
        return 1;
    }
    return absolute_name(given, name, size);
}

static struct st_file *unnamed(const char *name)
{
    struct st_file *f = st_file_get(name);
    if (f)
        f->unnamed = 1;
    return f;
}

struct st_file *st_file_of_fd(int fd)
{
    char name[4096];
    if (fd_name(fd, NULL, name, sizeof name))
        return st_file_get(name);
    snprintf(name, sizeof name, "fd:%d", fd);
    return unnamed(name);
}

struct st_file *st_file_of_opening(int fd, const char *given)
{
    static unsigned openings;
    char name[4096];
    if (fd_name(fd, given, name, sizeof name))
        return st_file_get(name);
    snprintf(name, sizeof name, "fd:%d (opening %u)", fd,
             __atomic_add_fetch(&openings, 1, __ATOMIC_RELAXED));
    return unnamed(name);
}

/* This thread's last range known to be read in a file, once there are
 * threads. A file's ranges only grow until its accounts are reset, so a
 * read inside that range is all re-read, and is counted without the lock
 * or a write to anything shared: threads reading one file would otherwise
 * pass its lock's cache line between them on every read. While there was
 * one thread it was not kept up to date (files.h), but what it holds stays
 * true: the ranges only grow, and a reset moves the generation on. */
static __thread struct {
    const struct st_file *file;
    unsigned generation;
    uint64_t start, end;
} known __attribute__((tls_model("initial-exec")));

/* Out of line, so that the common re-read inside the known range needs no
 * stack frame. */
static __attribute__((noinline)) uint64_t note_range_locked(struct st_file *f, uint64_t offset,
                                                            uint64_t len)
{
    struct st_range held;
    st_spin_lock(&f->ranges_lock);
    unsigned epoch = __atomic_load_n(&st_accounts_epoch, __ATOMIC_RELAXED);
    if (f->ranges_epoch != epoch) { /* a fork child's first read of it */
        st_ranges_clear(&f->ranges);
        __atomic_add_fetch(&f->ranges_generation, 1, __ATOMIC_RELEASE);
        f->ranges_epoch = epoch;
    }
    uint64_t overlap = st_ranges_add(&f->ranges, offset, len, &held);
    unsigned generation = f->ranges_generation;
    st_spin_unlock(&f->ranges_lock);
    if (held.end != 0) {
        known.file = f;
        known.generation = generation;
        known.start = held.start;
        known.end = held.end;
    }
    return overlap;
}

uint64_t st_file_note_range_threaded(struct st_file *f, uint64_t offset, uint64_t len)
{
    uint64_t end = offset + len;
    if (known.file == f && offset >= known.start && end <= known.end && end > offset &&
        known.generation == __atomic_load_n(&f->ranges_generation, __ATOMIC_ACQUIRE))
        return len;
    return note_range_locked(f, offset, len);
}

struct st_file *st_files_first(void)
{
    return __atomic_load_n(&all_files, __ATOMIC_ACQUIRE);
}

static void zero_cells(struct st_cell *c)
{
    for (; c; c = c->next_of_owner)
        if (st_cell_live(c)) /* an earlier epoch's are zero already */
            st_tally_zero(&c->counts);
}

void st_files_zero_counts(void)
{
    for (struct st_file *f = st_files_first(); f; f = f->next_all) {
        zero_cells(__atomic_load_n(&f->direct_cells, __ATOMIC_ACQUIRE));
        __atomic_store_n(&f->in_handler.read_syscalls, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&f->in_handler.kernel_read_bytes, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&f->in_handler.lseek_syscalls, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&f->in_handler.write_syscalls, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&f->in_handler.kernel_write_bytes, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&f->device_read_bytes, 0, __ATOMIC_RELAXED);
        for (struct st_stream *s = f->streams; s; s = s->next_in_file) {
            zero_cells(__atomic_load_n(&s->cells, __ATOMIC_ACQUIRE));
            s->folded_whatif_predicted = s->folded_whatif_recorded = 0;
        }
    }
}

/* Writes only what is not zero already: a page written here is a page the
 * kernel copies for the child. */
static void zero_if_set(uint64_t *v)
{
    if (*v)
        *v = 0;
}

void st_files_reset(void)
{
    known.file = NULL;
    for (struct st_file *f = st_files_first(); f; f = f->next_all) {
        if (f->ranges_lock.locked) /* by a thread of the parent's */
            f->ranges_lock.locked = 0;
        zero_if_set(&f->in_handler.read_syscalls);
        zero_if_set(&f->in_handler.kernel_read_bytes);
        zero_if_set(&f->in_handler.lseek_syscalls);
        zero_if_set(&f->in_handler.write_syscalls);
        zero_if_set(&f->in_handler.kernel_write_bytes);
        zero_if_set(&f->device_read_bytes);
        for (struct st_stream *s = f->streams; s; s = s->next_in_file) {
            zero_if_set(&s->folded_whatif_predicted);
            zero_if_set(&s->folded_whatif_recorded);
            /* Its 4 KiB what-if has followed the parent's calls: it cannot
             * speak for the child's alone. */
            if (s->whatif.on)
                s->whatif.on = 0;
        }
    }
}
