/* hints.c — see hints.h. */
#include "hints.h"

#include <stdio.h>
#include <string.h>

#include "units.h"

/* Python's BufferedReader refills a buffer of io.DEFAULT_BUFFER_SIZE (8 KiB)
 * or st_blksize (4 KiB here); a seek outside it drops the buffer. Below
 * these a script's seeks cost too little to mention. */
#define BUFFER_SIZED_REQUEST 4096u
#define MIN_SEEKS 100u

/* The interpreter: its binary (python3.11) or its library (libpython3.11.so). */
static int is_python_module(const char *module)
{
    const char *base = module ? strrchr(module, '/') : NULL;
    base = base ? base + 1 : module;
    return base && (strncmp(base, "libpython", 9) == 0 || strncmp(base, "python", 6) == 0);
}

/* The read calls the interpreter made on f, summed over its sites. */
static void python_reads(const struct st_report_file *f, uint64_t *calls, uint64_t *requested)
{
    *calls = *requested = 0;
    for (size_t i = 0; i < f->nsites; i++) {
        const struct st_report_site *s = &f->sites[i];
        if (s->nframes && is_python_module(s->frames[0].module) &&
            s->counts.by_call[ST_CALL_READ].calls) {
            *calls += s->counts.by_call[ST_CALL_READ].calls;
            *requested += s->counts.requested_bytes;
        }
    }
}

/* A script seeks and reads a file through Python's buffered io: every read
 * the interpreter makes asks for a whole buffer, and seeks drop it. The
 * bytes the script asked for never reach a call seektrace counts. With
 * buffering=0 each read asks for what the script asked: no hint. */
static int python_buffer(const struct st_report_file *f, char *text, size_t size)
{
    uint64_t calls, requested;
    python_reads(f, &calls, &requested);
    if (!calls || requested / calls < BUFFER_SIZED_REQUEST || f->counts.lseek_syscalls < MIN_SEEKS)
        return 0;
    char n1[32], n2[32], b1[32];
    snprintf(text, size,
             "%s is read through Python's io buffer: its %s reads of %s each are the buffer's "
             "refills after %s seeks, not what the script asked for, which seektrace cannot see; "
             "open(..., buffering=0) to count the script's own reads, SEEKTRACE_STACK=8 to see "
             "the interpreter's frames.",
             f->path, st_fmt_count(n1, sizeof n1, calls),
             st_fmt_bytes(b1, sizeof b1, requested / calls),
             st_fmt_count(n2, sizeof n2, f->counts.lseek_syscalls));
    return 1;
}

/* A file the program mapped (mmap) is read by page faults wherever the
 * program touches the mapping: no syscall shows those reads, so the file's
 * figures are only its read calls' (git's packs, ripgrep, LLVM's tools). */
static int mapped(const struct st_report_file *f, char *text, size_t size)
{
    uint64_t maps = f->counts.by_call[ST_CALL_MMAP].calls;
    if (!maps)
        return 0;
    char n1[32];
    snprintf(text, size,
             "%s was mapped into memory (mmap, %s time%s): what the program reads there "
             "comes in by page faults, which no syscall shows and seektrace cannot count; "
             "its figures are its read calls' only. `perf stat -e major-faults` or "
             "/proc/PID/io's read_bytes show the faults.",
             f->path, st_fmt_count(n1, sizeof n1, maps), maps == 1 ? "" : "s");
    return 1;
}

typedef int (*hint_fn)(const struct st_report_file *f, char *text, size_t size);

static const struct {
    const char *rule;
    hint_fn fn;
} rules[] = {
    {"python-io-buffer", python_buffer},
    {"mmap-unseen", mapped},
};

size_t st_find_hints(const struct st_report *r, struct st_hint *out, size_t max)
{
    size_t n = 0;
    for (size_t k = 0; k < sizeof rules / sizeof rules[0] && n < max; k++)
        for (size_t i = 0; i < r->nfiles; i++) /* files are worst first */
            if (rules[k].fn(&r->files[i], out[n].text, sizeof out[n].text)) {
                out[n].rule = rules[k].rule;
                out[n].file = &r->files[i];
                n++;
                break;
            }
    return n;
}
