/* libreader — the program's own shared library (libdiagreader.so, linked by
 * uses_lib) and the same code as a module loaded with dlopen
 * (diag_reader_module.so, loaded by uses_module). reader_fetch seeks and
 * reads one record: its fseek line is the site, its caller one frame up.
 * Built -O0 -g. */
#include <stdio.h>

__attribute__((visibility("default"))) long reader_fetch(FILE *fp, long at, void *record,
                                                         long size)
{
    if (fseek(fp, at, SEEK_SET) != 0) /* SITE:lib_fseek */
        return -1;
    return (long)fread(record, 1, (size_t)size, fp); /* SITE:lib_fread */
}
