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

/* A module's file name, without its directory. */
static const char *base_name(const char *module)
{
    const char *base = module ? strrchr(module, '/') : NULL;
    return base ? base + 1 : module;
}

/* The interpreter: its binary (python3.11) or its library (libpython3.11.so). */
static int is_python_module(const char *module)
{
    const char *base = base_name(module);
    return base && (strncmp(base, "libpython", 9) == 0 || strncmp(base, "python", 6) == 0);
}

/* The JVM's native I/O: java.io's (libjava.so), java.nio's (libnio.so). */
static int is_java_module(const char *module)
{
    const char *base = base_name(module);
    return base && (strncmp(base, "libjava.so", 10) == 0 || strncmp(base, "libnio.so", 9) == 0);
}

/* The read calls made on f from sites in the runtime's modules, summed. */
static void runtime_reads(const struct st_report_file *f, int (*is_runtime)(const char *),
                          uint64_t *calls, uint64_t *requested)
{
    *calls = *requested = 0;
    for (size_t i = 0; i < f->nsites; i++) {
        const struct st_report_site *s = &f->sites[i];
        if (s->nframes && is_runtime(s->frames[0].module) &&
            s->counts.by_call[ST_CALL_READ].calls) {
            *calls += s->counts.by_call[ST_CALL_READ].calls;
            *requested += s->counts.requested_bytes;
        }
    }
}

/* A runtime's buffer refilled after seeks: its reads ask for a buffer
 * each, however little the program asked for. The bytes each read asked
 * for, or 0 when that is not the pattern. */
static uint64_t refill_size(const struct st_report_file *f, uint64_t calls, uint64_t requested)
{
    if (!calls || requested / calls < BUFFER_SIZED_REQUEST ||
        f->counts.lseek_syscalls < MIN_SEEKS)
        return 0;
    return requested / calls;
}

/* The line every runtime-buffer hint says: through what, how many reads of
 * how many bytes after how many seeks, whose requests are not seen, and
 * what to do. */
static void say_refills(char *text, size_t size, const struct st_report_file *f,
                        const char *through, uint64_t calls, uint64_t each, const char *who,
                        const char *advice)
{
    char n1[32], n2[32], b1[32];
    snprintf(text, size,
             "%s is read through %s: %s reads of %s bytes each are its refills after %s seeks, "
             "not what the %s asked for, which seektrace cannot see; %s",
             f->path, through, st_fmt_count(n1, sizeof n1, calls),
             st_fmt_count(b1, sizeof b1, each),
             st_fmt_count(n2, sizeof n2, f->counts.lseek_syscalls), who, advice);
}

/* A script seeks and reads a file through Python's buffered io: every read
 * the interpreter makes asks for a whole buffer, and seeks drop it. The
 * bytes the script asked for never reach a call seektrace counts. With
 * buffering=0 each read asks for what the script asked: no hint. */
static int python_buffer(const struct st_report_file *f, char *text, size_t size)
{
    uint64_t calls, requested;
    runtime_reads(f, is_python_module, &calls, &requested);
    uint64_t each = refill_size(f, calls, requested);
    if (each)
        say_refills(text, size, f, "Python's io buffer", calls, each, "script",
                    "open(..., buffering=0) to count the script's own reads, SEEKTRACE_STACK=8 "
                    "to see the interpreter's frames.");
    return each != 0;
}

/* A Java program seeks and reads through a buffered stream
 * (BufferedInputStream over a FileInputStream, 8 KiB): the JVM's reads are
 * the buffer's refills. A RandomAccessFile's reads ask for what the program
 * asked: no hint. */
static int java_buffer(const struct st_report_file *f, char *text, size_t size)
{
    uint64_t calls, requested;
    runtime_reads(f, is_java_module, &calls, &requested);
    uint64_t each = refill_size(f, calls, requested);
    if (each)
        say_refills(text, size, f, "a Java buffered stream", calls, each, "program",
                    "read the few bytes needed through RandomAccessFile (or a FileChannel at "
                    "a position) to count them.");
    return each != 0;
}

/* libstdc++'s std::filebuf refills its buffer of N bytes (BUFSIZ, 8 KiB,
 * unless pubsetbuf said otherwise) with reads of N - 1 bytes. Its frames are
 * the runtime's, so a read it makes is charged to the program's line: the
 * size is what gives it away. */
static int is_filebuf_read(uint64_t n)
{
    return n >= 1023 && ((n + 1) & n) == 0;
}

/* A C++ program seeks and reads through an ifstream: every seekg outside the
 * buffer drops it, and each read refills it whole. */
static int cxx_filebuf(const struct st_report_file *f, char *text, size_t size)
{
    uint64_t calls = 0, requested = 0;
    for (size_t i = 0; i < f->nsites; i++) {
        const struct st_report_site *s = &f->sites[i];
        uint64_t c = s->counts.by_call[ST_CALL_READ].calls, r = s->counts.requested_bytes;
        if (c && r % c == 0 && is_filebuf_read(r / c)) {
            calls += c;
            requested += r;
        }
    }
    uint64_t each = refill_size(f, calls, requested);
    if (each)
        say_refills(text, size, f,
                    "C++'s std::filebuf, it seems (reads of a buffer's size less one, as filebuf "
                    "asks)",
                    calls, each, "program",
                    "read with pread(2), or a smaller buffer (pubsetbuf), to count it.");
    return each != 0;
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
    {"java-io-buffer", java_buffer},
    {"cxx-filebuf", cxx_filebuf},
    {"mmap-unseen", mapped},
};

_Static_assert(sizeof rules / sizeof rules[0] == ST_HINT_RULES, "ST_HINT_RULES counts the rules");

unsigned st_file_hints(const struct st_report_file *f)
{
    char text[512];
    unsigned fired = 0;
    for (size_t k = 0; k < ST_HINT_RULES; k++)
        fired |= rules[k].fn(f, text, sizeof text) ? 1u << k : 0;
    return fired;
}

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
