/* symbolize.h — turning return addresses into function, file and line.
 *
 * Done once, at report time, never on a hot path. A frame in a module
 * without DWARF (no debug sections, no /usr/lib/debug/.build-id file) is
 * named from the module's own symbol table (elf_symtab.h), as libdwfl would
 * name it. The others use elfutils' libdwfl (loaded with dlopen only then,
 * and only when such a frame exists, so most traced programs never carry
 * libdw) for DWARF line info and full symbol tables, handed only the
 * modules that hold such frames (the process's other objects are never
 * opened); without it, dladdr's dynamic symbols and module+offset. */
#ifndef SEEKTRACE_SYMBOLIZE_H
#define SEEKTRACE_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

/* The program's argv, as its constructors are given it: the program's own
 * frames are filed under argv[0], as dladdr files them. */
void st_symbolize_set_argv(char **argv);

/* Fills f for the return address pc; strings live in the arena. */
void st_symbolize(uintptr_t pc, struct st_report_frame *f);

/* st_symbolize of n return addresses into frames[0..n): the same names,
 * each module's symbol table walked once for all of its frames rather than
 * once a frame (elf_symtab.h). */
void st_symbolize_many(const uintptr_t *pcs, size_t n, struct st_report_frame *frames);

/* Releases libdwfl's state (its files and memory) after the report. */
void st_symbolize_done(void);

#endif
