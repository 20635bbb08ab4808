/* stdio_hook.h — seeing the syscalls glibc's stdio makes for itself.
 *
 * glibc's stdio reaches the kernel through per-stream jump tables (struct
 * _IO_jump_t) kept in libc's __libc_IO_vtables section, never through the
 * PLT. glibc validates only that a stream's table pointer lies inside that
 * section, not what the table holds, so replacing entries in place is
 * invisible to it. We replace the entries equal to the plain file
 * implementation (the values in the exported _IO_file_jumps) in every table,
 * which covers ordinary, wide, popen and stdin/stdout/stderr streams alike.
 *
 * The same mechanism moves the final report behind glibc's own exit-time
 * stdio cleanup (the __libc_atexit hook), so syscalls glibc makes there
 * (the lseek that syncs a read stream's unread data) are counted too.
 *
 * All of this is glibc-internal and verified before use; when verification
 * fails, nothing is patched and st_stdio_hook_install says why. */
#ifndef SEEKTRACE_STDIO_HOOK_H
#define SEEKTRACE_STDIO_HOOK_H

/* Indices into struct _IO_jump_t (libio/libioP.h), glibc 2.x. */
enum st_slot {
    ST_SLOT_OVERFLOW = 3,
    ST_SLOT_UNDERFLOW = 4,
    ST_SLOT_UFLOW = 5,
    ST_SLOT_XSGETN = 8,
    ST_SLOT_SEEKOFF = 9,
    ST_SLOT_SETBUF = 11,
    ST_SLOT_SYNC = 12,
    ST_SLOT_READ = 14,
    ST_SLOT_WRITE = 15,
    ST_SLOT_SEEK = 16,
    ST_SLOT_CLOSE = 17,
    ST_SLOT_STAT = 18,
    ST_SLOT_COUNT = 21
};

/* One replacement: in every table, the entry at `slot` equal to the
 * implementation named `name` (NULL: the one in _IO_file_jumps) becomes
 * `repl`. The installer stores the implementation in *orig, where the
 * replacement finds it to call on. */
struct st_slot_patch {
    int slot;
    const char *name;
    void **orig;
    void *repl;
};

/* Applies the patches and chains after_cleanup behind glibc's exit-time
 * stdio cleanup (*cleanup_hooked says whether that worked). Returns NULL on
 * success, else a one-line reason (then nothing is patched). */
const char *st_stdio_hook_install(const struct st_slot_patch *patches, int n,
                                  void (*after_cleanup)(void), int *cleanup_hooked);

/* The cleanup function glibc had registered; after_cleanup calls it first. */
extern void (*st_stdio_orig_cleanup)(void);

#endif
