/* libc_entry.h — which stdio call a return address inside the C library
 * belongs to.
 *
 * The per-byte and per-line readers (getc, fgets and their variants) are not
 * interposed (wrap_stdio.def says why). When one of them refills its
 * buffer, the walk up the stack that finds the program's line passes the
 * library function the program called; this names it. */
#ifndef SEEKTRACE_LIBC_ENTRY_H
#define SEEKTRACE_LIBC_ENTRY_H

#include <stdint.h>

#include "counts.h"

/* The call pc is in (ST_CALL_OTHER when it is none of the readers known
 * here). Walks the loaded objects and hashes the readers' names: call it
 * on slow paths only. */
enum st_call st_libc_entry_call(uintptr_t pc);

#endif
