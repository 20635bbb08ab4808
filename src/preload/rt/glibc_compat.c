/* glibc_compat.c — glibc 2.32+ names looked up at run time, for a library
 * built against glibc 2.31 (glibc_compat.h). Empty otherwise. */
#include "glibc_compat.h"

#if !__GLIBC_PREREQ(2, 32)
#include <dlfcn.h>
#include <stdio.h>

static char threads_may_exist;
char *st_compat_single_threaded = &threads_may_exist;

/* Before any other constructor of the library: until then (another
 * library's constructor calling in first) the flag reads 0, which is
 * always safe. */
__attribute__((constructor(101))) static void find_single_threaded(void)
{
    char *flag = dlsym(RTLD_DEFAULT, "__libc_single_threaded");
    if (flag)
        __atomic_store_n(&st_compat_single_threaded, flag, __ATOMIC_RELEASE);
}

const char *st_compat_strerrorname_np(int errnum)
{
    static __thread char unnamed[24];
    const char *(*name)(int);
    *(void **)&name = dlsym(RTLD_DEFAULT, "strerrorname_np");
    if (name)
        return name(errnum);
    snprintf(unnamed, sizeof unnamed, "errno %d", errnum);
    return unnamed;
}
#endif
