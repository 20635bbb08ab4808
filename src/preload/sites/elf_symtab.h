/* elf_symtab.h — function names from an ELF file's own symbol table,
 * chosen exactly as libdwfl's dwfl_module_addrname chooses them, without
 * loading libdw.
 *
 * What it promises:
 * - It answers only for a module where libdw, as symbolize.c sets it up
 *   (local files only, /usr/lib/debug/.build-id, no debuginfod), would read
 *   nothing but that same table: a native ELF64 ET_EXEC or ET_DYN file with
 *   no DWARF of its own (no .debug_* or .zdebug_* section), no separate debug
 *   file for its build ID, no MiniDebugInfo (.gnu_debugdata), and exactly one
 *   .symtab (else exactly one .dynsym). For any other file st_elf_open
 *   returns NULL, and for an address it cannot model st_elf_addrname answers
 *   ST_ELF_LIBDW: libdw must answer then.
 * - Its names are libdwfl's (elfutils 0.188's __libdwfl_addrsym): the same
 *   candidates, the same preferences (sized over sizeless, closest start,
 *   global over weak over local, the first found on a tie), the same bias.
 * - It never faults on a truncated or corrupt file: every offset and size
 *   is checked against the file's size before use; such a file gives no name.
 * - No malloc: the file is mmap'd read-only, the little it keeps comes from
 *   the arena. Names point into the mapping and live until st_elf_close.
 *
 * Report time only. */
#ifndef SEEKTRACE_ELF_SYMTAB_H
#define SEEKTRACE_ELF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

enum st_elf_answer {
    ST_ELF_LIBDW,   /* not modelled here: ask libdw */
    ST_ELF_NO_NAME, /* libdw would find no symbol either */
    ST_ELF_NAME,
};

struct st_elf;

/* Opens the module file at path whose lowest mapping starts at low_addr
 * (dladdr's dli_fbase, libdwfl's low_addr). debug_root is where libdw
 * looks for .build-id/NN/REST.debug ("/usr/lib/debug"). NULL: ask libdw. */
struct st_elf *st_elf_open(const char *path, uintptr_t low_addr, const char *debug_root);

/* The name of the symbol libdwfl would give for the run-time address addr. */
enum st_elf_answer st_elf_addrname(const struct st_elf *e, uint64_t addr, const char **name);

/* st_elf_addrname of each of n addresses (in any order) into answers[i]
 * and names[i], with one walk of the symbol table for all of them: walking
 * cc1's 29,000 symbols once per call site took 3 ms of each compile. -1
 * when the arena has no room for the n searches (nothing answered). */
int st_elf_addrnames(const struct st_elf *e, const uint64_t *addrs, size_t n,
                     enum st_elf_answer *answers, const char **names);

/* The file's NT_GNU_BUILD_ID bits (in the mapping), 0 when it has none. */
size_t st_elf_build_id(const struct st_elf *e, const unsigned char **id);

/* The first NT_GNU_BUILD_ID in size bytes of notes laid out with the given
 * alignment (4, or 8 for a section or segment aligned to 8), as libelf
 * reads them; 0 when there is none. Shared with the check of the loaded
 * copy in memory, so file and memory are read by the same rules. */
size_t st_elf_notes_build_id(const unsigned char *notes, size_t size, size_t align,
                             const unsigned char **id);

/* Unmaps the file; its names are gone. */
void st_elf_close(struct st_elf *e);

#endif
