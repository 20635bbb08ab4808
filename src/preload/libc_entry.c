/* libc_entry.c — see libc_entry.h. */
#define _GNU_SOURCE 1
#include "libc_entry.h"

#include <dlfcn.h>
#include <string.h>

#include "registry_lock.h"

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

static enum st_call named(uintptr_t pc)
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

/* dladdr scans the library's symbols (~150,000 instructions for libc), and
 * every line of a program that calls fgets passes the same return address
 * in fgets: the answers are kept by address. Filled under the registry
 * lock, read without it (an entry's pc is published after its call). */
#define KNOWN 32
static struct {
    uintptr_t pc;
    enum st_call call;
} known[KNOWN];
static unsigned nknown;

enum st_call st_libc_entry_call(uintptr_t pc)
{
    unsigned n = __atomic_load_n(&nknown, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (__atomic_load_n(&known[i].pc, __ATOMIC_ACQUIRE) == pc)
            return known[i].call;
    enum st_call call = named(pc);
    st_registry_lock();
    n = nknown;
    if (n < KNOWN) {
        known[n].call = call;
        __atomic_store_n(&known[n].pc, pc, __ATOMIC_RELEASE);
        __atomic_store_n(&nknown, n + 1, __ATOMIC_RELEASE);
    }
    st_registry_unlock();
    return call;
}
