/* uses_module — reads through a module it loads with dlopen.
 *
 *   uses_module MODULE FILE SEEKS
 *
 * Like uses_lib, but reader_fetch comes from MODULE (diag_reader_module.so,
 * the same libreader.c) found with dlopen/dlsym. The module stays loaded until
 * exit, when the report is written. Prints {"fseeks", "requested",
 * "delivered"}. Built -O0 -g. */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/stat.h>

#include "diag.h"

typedef long fetch_fn(FILE *fp, long at, void *record, long size);

int main(int argc, char **argv)
{
    if (argc != 4)
        usage("uses_module MODULE FILE SEEKS");
    long seeks = arg_long(argv[3]);
    void *module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!module) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    fetch_fn *fetch = (fetch_fn *)dlsym(module, "reader_fetch");
    if (!fetch)
        usage("MODULE has no reader_fetch");
    struct stat st;
    if (stat(argv[2], &st) != 0 || st.st_size < (2L << 20))
        usage("FILE must be at least 2 MiB");
    FILE *fp = fopen(argv[2], "rb");
    if (!fp)
        die(argv[2]);
    long half = st.st_size / 2 & ~0xfffffL, delivered = 0;
    char record[16];
    for (long i = 0; i < seeks; i++) {
        long got = fetch(fp, (i % 2 ? half : 0) + 100, record, 16); /* SITE:call */
        if (got < 0)
            die("reader_fetch");
        delivered += got;
    }
    fclose(fp);
    return print_counts("fseeks", seeks, "requested", seeks * 16, "delivered", delivered,
                        (char *)0);
}
