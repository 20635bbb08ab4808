/* arena.h — memory for seektrace's own records, never from malloc.
 *
 * The library runs inside calls the program makes, possibly inside its
 * malloc (a custom allocator that reads a file) or a signal handler, so it
 * takes memory from mmap'd chunks with a lock-free bump pointer. Nothing is
 * freed: records live until the report at exit. Past 8 MiB the chunks are
 * huge pages where the kernel allows them (arena.c says why). */
#ifndef SEEKTRACE_ARENA_H
#define SEEKTRACE_ARENA_H

#include <stddef.h>

/* Zeroed memory aligned to 16 bytes, or NULL when the system refuses;
 * errno unchanged either way. */
void *st_alloc(size_t size);

/* A NUL-terminated copy of s in the arena (NULL if out of memory). */
char *st_strdup(const char *s);

/* Bytes mapped so far, for the overhead report. */
size_t st_arena_mapped(void);

#endif
