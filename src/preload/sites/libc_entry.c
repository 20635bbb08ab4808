/* libc_entry.c — see libc_entry.h. */
#define _GNU_SOURCE 1
#include "libc_entry.h"

#include "loaded_object.h"

/* Every name a reader is exported under (fgets and _IO_fgets are one
 * function). __uflow is what the getc_unlocked macro calls, inline in the
 * program, once the buffer is empty. */
static const struct {
    const char *name;
    enum st_call call;
} readers[] = {
    {"fgets", ST_CALL_FGETS},
    {"_IO_fgets", ST_CALL_FGETS},
    {"fgets_unlocked", ST_CALL_FGETS},
    {"__fgets_chk", ST_CALL_FGETS},
    {"__fgets_unlocked_chk", ST_CALL_FGETS},
    {"getc", ST_CALL_GETC},
    {"_IO_getc", ST_CALL_GETC},
    {"fgetc", ST_CALL_GETC},
    {"getc_unlocked", ST_CALL_GETC},
    {"fgetc_unlocked", ST_CALL_GETC},
    {"getchar", ST_CALL_GETC},
    {"getchar_unlocked", ST_CALL_GETC},
    {"__uflow", ST_CALL_GETC},
};

/* Each name is looked up in the hash table of the object holding pc: a few
 * thousand instructions in all, where dladdr scanned all of libc's symbols
 * (~170,000), and nothing to keep between calls. */
enum st_call st_libc_entry_call(uintptr_t pc)
{
    struct st_loaded_object o;
    /* A return address follows its call: look up the call itself. */
    if (!pc || !st_loaded_object(pc - 1, &o))
        return ST_CALL_OTHER;
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        if (st_loaded_object_exports_at(&o, readers[i].name, pc - 1))
            return readers[i].call;
    return ST_CALL_OTHER;
}
