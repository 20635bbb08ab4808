/* libc_entry.c — see libc_entry.h. */
#define _GNU_SOURCE 1
#include "libc_entry.h"

#include <dlfcn.h>
#include <string.h>

/* dladdr names one of a function's aliases (fgets or _IO_fgets): both are
 * listed. __uflow is what the getc_unlocked macro calls, inline in the
 * program, once the buffer is empty. */
static const struct {
    const char *name;
    enum st_call call;
} readers[] = {
    {"fgets", ST_CALL_FGETS},          {"_IO_fgets", ST_CALL_FGETS},
    {"fgets_unlocked", ST_CALL_FGETS}, {"__fgets_chk", ST_CALL_FGETS},
    {"__fgets_unlocked_chk", ST_CALL_FGETS},
    {"getc", ST_CALL_GETC},            {"_IO_getc", ST_CALL_GETC},
    {"fgetc", ST_CALL_GETC},           {"getc_unlocked", ST_CALL_GETC},
    {"fgetc_unlocked", ST_CALL_GETC},  {"getchar", ST_CALL_GETC},
    {"getchar_unlocked", ST_CALL_GETC}, {"__uflow", ST_CALL_GETC},
};

enum st_call st_libc_entry_call(uintptr_t pc)
{
    Dl_info info;
    /* A return address follows its call: look up the call itself. */
    if (!pc || !dladdr((void *)(pc - 1), &info) || !info.dli_sname)
        return ST_CALL_OTHER;
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        if (strcmp(info.dli_sname, readers[i].name) == 0)
            return readers[i].call;
    return ST_CALL_OTHER;
}
