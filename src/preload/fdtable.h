/* fdtable.h — what each file descriptor refers to, and where its offset is.
 *
 * The kernel keeps the offset per open file description, shared by dup'ed
 * descriptors; so do we. Offsets are shadowed from the calls we see (never
 * asked of the kernel: an lseek of ours would show in strace) and are known
 * only for descriptions opened while we watched or placed by an lseek. */
#ifndef SEEKTRACE_FDTABLE_H
#define SEEKTRACE_FDTABLE_H

#include <stdint.h>

struct st_file;

struct st_desc {
    int64_t offset; /* -1 when unknown */
};

struct st_fd {
    struct st_file *file;
    struct st_desc *desc;
};

/* fd was just opened on a new description at offset 0 (or unknown). */
void st_fd_opened(int fd, int offset_known);
/* fd was opened where we could not see: look its name up again, keeping
 * what we know of its offset only if it still names the same file. */
void st_fd_refresh(int fd);
/* newfd now shares oldfd's description. */
void st_fd_dup(int oldfd, int newfd);
void st_fd_closed(int fd);
/* The entry for fd, resolved through /proc/self/fd the first time an fd we
 * did not see opened is used. NULL for fds we cannot track. */
const struct st_fd *st_fd_get(int fd);

/* Offset bookkeeping; all are no-ops when the offset is unknown. */
int64_t st_desc_offset(const struct st_fd *e);
void st_desc_advance(const struct st_fd *e, int64_t n);
void st_desc_set(const struct st_fd *e, int64_t offset);

#endif
