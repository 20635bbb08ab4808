/* stdio_slots.h — what runs in place of glibc's stdio jump-table entries. */
#ifndef SEEKTRACE_STDIO_SLOTS_H
#define SEEKTRACE_STDIO_SLOTS_H

#include "stdio_hook.h"

/* Every replacement, for st_stdio_hook_install. */
extern const struct st_slot_patch st_slot_patches[];
extern const int st_slot_patch_count;

/* Set while glibc's exit-time cleanup runs: what it does is charged to "exit". */
extern int st_in_exit_cleanup;

#endif
