/* stdio_slots.h — what runs in place of glibc's stdio jump-table entries. */
#ifndef SEEKTRACE_STDIO_SLOTS_H
#define SEEKTRACE_STDIO_SLOTS_H

#include "stdio_hook.h"

/* Our replacement for each hooked slot (NULL where we leave glibc's). */
extern void *const st_slot_hooks[ST_SLOT_COUNT];

/* Set while glibc's exit-time cleanup runs: what it does is charged to "exit". */
extern int st_in_exit_cleanup;

#endif
