/* wrap_fds.c — the interposed calls that close descriptors where the close
 * wrapper cannot see: close_range, closefrom, closedir.
 *
 * Each calls the real function through lifecycle/lifecycle_fds.c, which
 * lists what was open, keeps the library's own descriptors out of the
 * range and tells the fd table what closed (its opening comment says why). */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <limits.h>

#include "ensure_init.h"
#include "export.h"
#include "lifecycle.h"
#include "real.h"

ST_EXPORT(int, close_range, (unsigned int lo, unsigned int hi, int flags))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(close_range)
    return st_lifecycle_close_range(lo, hi, flags, real, NULL);
}

ST_EXPORT(void, closefrom, (int lo))
{
    st_ensure_init();
    __typeof__(st_real.closefrom) real = ST_REAL(closefrom);
    if (!real || lo < 0) {
        if (real)
            real(lo);
        return;
    }
    st_lifecycle_close_range((unsigned)lo, UINT_MAX, 0, NULL, real);
}

/* closedir closes the directory's descriptor inside glibc. When the
 * program opened that descriptor itself (open, then fdopendir: Python's
 * os.listdir(fd), fts), a pipe or socket that later reuses the number
 * would be charged to the directory. */
ST_EXPORT(int, closedir, (DIR *dir))
{
    st_ensure_init();
    ST_REAL_OR_ENOSYS(closedir)
    int fd = dir ? dirfd(dir) : -1;
    int r = real(dir);
    st_lifecycle_dir_closed(fd);
    return r;
}
