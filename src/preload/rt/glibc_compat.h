/* glibc_compat.h — the one place that knows which glibc (and Linux
 * headers) the library is compiled against. Every file that uses a name
 * added after glibc 2.31 or Linux 5.10 includes this header instead of
 * that name's own.
 *
 * Built against glibc 2.32+ headers (the machine's, the usual build) this
 * is those headers and nothing more: the names bind to glibc directly.
 * Built against 2.31 (SEEKTRACE_GLIBC_SYSROOT, README "Which glibc") the
 * library must load on 2.31 and on every newer glibc, so the newer names
 * are looked up at run time (glibc_compat.c) and degrade where absent:
 *   __libc_single_threaded (2.32)  glibc's flag when it has one; before
 *       that, 0 ("threads may exist"): the locked, atomic paths, correct
 *       with any number of threads. Read through one pointer, as glibc's
 *       own flag is read through the GOT: no extra load on the hot paths.
 *   strerrorname_np (2.32)  glibc's, else "errno N".
 * close_range, closefrom and _Fork are interposed and reached through
 * dlsym already (boot/real.h, wrap/wrap_fds.c, wrap_process.c): absent,
 * they are ENOSYS.
 * CLOSE_RANGE_CLOEXEC (Linux 5.11) and SYS_close_range (named by glibc
 * 2.32's <sys/syscall.h>; 436 in x86-64's table and the generic one) are
 * constants of the kernel's ABI. */
#ifndef SEEKTRACE_GLIBC_COMPAT_H
#define SEEKTRACE_GLIBC_COMPAT_H

#include <features.h>
#include <string.h>
#include <sys/syscall.h>
#if __has_include(<linux/close_range.h>)
#include <linux/close_range.h>
#endif

#if __GLIBC_PREREQ(2, 32)
#include <sys/single_threaded.h>
#else
extern char *st_compat_single_threaded __attribute__((visibility("hidden")));
#define __libc_single_threaded (*st_compat_single_threaded)
const char *st_compat_strerrorname_np(int errnum);
#define strerrorname_np st_compat_strerrorname_np
#endif

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#endif
