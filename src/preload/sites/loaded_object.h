/* loaded_object.h — the loaded object (the program or a shared library)
 * that holds an address, as the dynamic loader lists it.
 *
 * What dladdr would name, without its walk over the object's symbol table
 * (tens of microseconds for libc); and the object's program headers in
 * memory, for whatever else a caller needs of it (its build ID, its RELRO,
 * where its ELF header is mapped). */
#ifndef SEEKTRACE_LOADED_OBJECT_H
#define SEEKTRACE_LOADED_OBJECT_H

#include <link.h>
#include <stdint.h>

struct st_loaded_object {
    uintptr_t base;          /* load bias: run-time address = base + p_vaddr */
    const char *path;        /* "" for the main program */
    const ElfW(Phdr) *phdr;  /* its program headers, mapped while it is loaded */
    int phnum;
};

/* 1, with *out filled, when a PT_LOAD segment of a loaded object holds
 * addr; else 0. */
int st_loaded_object(uintptr_t addr, struct st_loaded_object *out);

/* 1 when a function that o exports under `name` (any of its versions)
 * holds addr: the answer dladdr would give for addr's name, found through
 * the object's GNU hash table in a few hundred instructions instead of a
 * scan of every symbol. 0 also when o has no GNU hash table. */
int st_loaded_object_exports_at(const struct st_loaded_object *o, const char *name, uintptr_t addr);

#endif
