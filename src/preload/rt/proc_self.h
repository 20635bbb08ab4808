/* proc_self.h — this process's entries under /proc, looked up from the
 * calling thread.
 *
 * /proc/thread-self goes on resolving after the main thread has exited
 * (a program whose main calls pthread_exit), when /proc/self no longer
 * does: a descriptor's name read there would be lost. Kernels before 3.17
 * have no /proc/thread-self: then /proc/self. Raw syscalls: the program
 * may wrap the libc names, and these are our own. */
#ifndef SEEKTRACE_PROC_SELF_H
#define SEEKTRACE_PROC_SELF_H

#include <stddef.h>

/* readlink of <proc>/rest ("fd/3", "exe"): the length, or -1. */
long st_proc_readlink(const char *rest, char *buf, size_t size);

/* The same for descriptor fd's link, fd/<fd> (fd >= 0). */
long st_proc_readlink_fd(int fd, char *buf, size_t size);

/* Opens <proc>/rest with flags: the descriptor, or -1. */
int st_proc_open(const char *rest, int flags);

/* A path that opens the program's own file, whatever name it has now. */
const char *st_proc_exe(void);

#endif
