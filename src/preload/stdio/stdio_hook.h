/* stdio_hook.h — seeing the syscalls glibc's stdio makes for itself.
 *
 * glibc's stdio reaches the kernel through per-stream jump tables (struct
 * _IO_jump_t), never through the PLT. The tables lie in libc's data that
 * is read-only once relocated (RELRO): up to glibc 2.37 in a section of
 * their own, from 2.38 in one array. glibc validates only that a stream's
 * table pointer lies in that range, not what the table holds, so replacing
 * entries in place is invisible to it. We find the tables by their values,
 * with no section name or private symbol: every RELRO word equal to an
 * exported _IO_file_* implementation that sits at its slot in a run of
 * words shaped like a table (two zero words, then code addresses of libc)
 * is an entry we replace. That covers ordinary, wide, mmap, popen, cookie
 * and stdin/stdout/stderr streams alike, on every glibc from 2.28 to now.
 *
 * The report goes behind glibc's exit-time stdio cleanup (_IO_cleanup, the
 * last thing exit does before _exit), so the syscalls glibc makes there (the
 * lseek that syncs a read stream's unread data) are counted too. Nothing
 * runs after _IO_cleanup that we could hook on every glibc, so we place two
 * streams of our own, made with fopencookie, around the program's in the
 * list glibc walks: one at the head, whose pending byte glibc flushes
 * first, and one at the tail, whose unread byte glibc syncs last.
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

/* The glibc whose stdio rules the models replay here (st_model_glibc of
 * its version; 0: not glibc, or older rules). Set once at start-up. */
extern unsigned st_glibc_rules;

/* Applies the patches. Returns NULL on success, else a one-line reason
 * (then nothing is patched). */
const char *st_stdio_hook_install(const struct st_slot_patch *patches, int n);

/* A symbol of the C library: once st_stdio_hook_install has found the
 * object that holds _IO_file_jumps, its own definition, read from its
 * symbol table (a dlsym costs every process ~900 instructions a name);
 * dlsym(RTLD_DEFAULT)'s answer before that, or where that table has none.
 * NULL when there is no such symbol (another C library). */
void *st_stdio_libc_symbol(const char *name);

/* Places the two streams around the program's, for an exit under way:
 * begin() runs when glibc's exit-time cleanup flushes its first stream,
 * end() when it has synced its last. Returns 0 when they could not be
 * placed (not glibc, no memory): the caller reports now instead. Called
 * from our destructor, which exit runs before that cleanup. */
int st_stdio_exit_arm(void (*begin)(void), void (*end)(void));

#endif
