/* symbolize.h — turning return addresses into function, file and line.
 *
 * Done once, at report time, never on a hot path. Uses elfutils' libdwfl
 * (loaded with dlopen only then, so a traced program carries no libdw until
 * it exits) for DWARF line info and full symbol tables; without it, dladdr's
 * dynamic symbols and module+offset. */
#ifndef SEEKTRACE_SYMBOLIZE_H
#define SEEKTRACE_SYMBOLIZE_H

#include <stdint.h>

#include "report_model.h"

/* Fills f for the return address pc; strings live in the arena. */
void st_symbolize(uintptr_t pc, struct st_report_frame *f);

/* Releases libdwfl's state (its files and memory) after the report. */
void st_symbolize_done(void);

#endif
