/* real_shim.c — a library that test_real links before libc, defining two
 * of the names the preload library resolves at start-up, as another
 * preloaded library or one the program links would: dlsym(RTLD_NEXT) from
 * the test finds these, not libc's, and so must st_real_resolve. Never
 * called. */
long pread64(int fd, void *buf, unsigned long n, long off)
{
    (void)fd;
    (void)buf;
    (void)n;
    (void)off;
    return -1;
}

int dup3(int fd, int nfd, int flags)
{
    (void)fd;
    (void)nfd;
    (void)flags;
    return -1;
}
