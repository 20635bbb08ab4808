/* stdio_model.h — what glibc's stdio would ask of the kernel for a read stream.
 *
 * Replays a recorded sequence of stdio calls on one read-only stream ("r" mode,
 * byte oriented, not "rm") against a simulated FILE and a simulated regular file
 * of known size, and counts the read, lseek and fstat syscalls and the kernel
 * bytes glibc would make at a chosen buffer size. `seektrace whatif` uses it to
 * answer "what would this program have cost with a 4 KiB / 1 MiB buffer".
 *
 * The rules are those of glibc's libio (fileops.c, genops.c): each function
 * in stdio_model.c names the glibc function it follows. They are 2.36's, the
 * same up to 2.41; glibc 2.42 changed three, chosen by cfg.glibc:
 * fflush gives back what a backup area (ungetc) holds and the main get
 * area's unread bytes (bug 5994), fclose syncs an input stream that still
 * holds unread bytes (bug 12724), and exit's flush syncs input streams
 * (bug 32369). Before 2.36 one differs: exit syncs a stream still in its
 * backup area there, giving back only the backup's bytes (bug 27821's fix,
 * which Debian 12's 2.36 has from a stable-branch update, frees the backup
 * area first). Validated against strace under Debian 11's 2.31, 12's 2.36, 13's
 * 2.41 and sid's 2.43 by tests/model/validate.py.
 *
 * Not modelled: the write side ("r+", "w", "a" streams), wide streams,
 * mmap'ed "rm" streams, stdio's internal readers (fscanf, getw, ...), files
 * that are not regular or change size, and other handles moving the shared
 * file offset.
 *
 * Streaming and allocation-free: st_model_step() works in time proportional
 * to the refills the call makes (constant for most calls), so traces of
 * millions of calls replay in constant memory. */
#ifndef SEEKTRACE_STDIO_MODEL_H
#define SEEKTRACE_STDIO_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* One stdio call, as recorded. Only what the model cannot derive itself is
 * recorded: how far a line-reading call went depends on the file's content. */
enum st_model_op_kind {
    ST_M_OPEN,     /* fopen(path, "r") or fdopen(fd, "r"): a new stream;
                    * arg = the descriptor's file offset (0 after fopen) */
    ST_M_FREAD,    /* fread: arg = size * nmemb, the bytes asked for */
    ST_M_GETC,     /* fgetc, getc, getc_unlocked, getchar */
    ST_M_GETC_RUN, /* arg = n: n calls of the above in a row, each taking
                    * one byte (what a trace records: per-byte readers are
                    * seen only as the bytes they take between refills) */
    ST_M_FGETS,    /* fgets: arg = n; len = bytes stored (0 when it returned
                    * NULL); delim_seen = they end with '\n' */
    ST_M_GETDELIM, /* getline, getdelim: len = bytes stored (0 when it returned
                    * -1); delim_seen = they end with the delimiter */
    ST_M_UNGETC,   /* ungetc with c != EOF: matches_prev = c equals the byte
                    * just before the stream position (the usual "put back
                    * what I just read"), which glibc can put back in place */
    ST_M_FSEEK,    /* fseek, fseeko: arg = offset, whence = SEEK_SET/CUR/END;
                    * fsetpos is ST_M_FSEEK with SEEK_SET */
    ST_M_FTELL,    /* ftell, ftello, fgetpos */
    ST_M_REWIND,
    ST_M_FFLUSH,
    ST_M_CLEARERR,
    ST_M_CLOSE,    /* fclose */
    ST_M_EXIT,     /* exit (or return from main) with the stream still open;
                    * also fcloseall, which runs the same _IO_cleanup */
};

struct st_model_op {
    enum st_model_op_kind kind;
    int whence;
    bool delim_seen;
    bool matches_prev;
    int64_t arg;
    int64_t len;
};

/* How the stream got its buffer. */
enum st_model_buffering {
    ST_M_BUF_ALLOC, /* glibc allocates it on first use, after one fstat */
    ST_M_BUF_USER,  /* setvbuf(fp, buf, _IOFBF, bufsize) before first use */
    ST_M_BUF_NONE,  /* setvbuf(fp, NULL, _IONBF, 0): a 1-byte buffer */
};

struct st_model_config {
    uint64_t file_size;
    /* file_size is only what the recording proves the file holds (no fstat
     * or EOF was seen): a read that this assumed end shortens is counted in
     * cost.assumed_end_reads, and the figures are then lower bounds. */
    bool size_is_lower_bound;
    uint64_t bufsize; /* ignored for ST_M_BUF_NONE */
    enum st_model_buffering buffering;
    unsigned glibc;   /* whose rules: st_model_glibc("2.43"); 0 is 2.36's */
};

/* The glibc rules to replay with, from a version string ("2.43", as
 * gnu_get_libc_version gives it): 243. 0 (2.36's rules) for NULL or a
 * string that is not a glibc 2.x version. */
unsigned st_model_glibc(const char *version);

/* Whether glibc's fclose syncs an input stream holding unread bytes (2.42
 * on, bug 12724); inferred capture asks, having no model of its own. */
bool st_model_fclose_syncs_input(unsigned glibc);

/* The glibc versions whose rules cfg.glibc selects: "2.42+", "2.36-2.41"
 * or "2.28-2.35". */
const char *st_model_rules_name(unsigned glibc);

struct st_model_cost {
    uint64_t read_syscalls;
    uint64_t kernel_read_bytes; /* what those reads returned */
    uint64_t lseek_syscalls;
    uint64_t fstat_syscalls;
    uint64_t assumed_end_reads; /* reads shortened by an assumed file end */
};

/* The simulated FILE. Positions in the main get area are offsets from
 * _IO_buf_base. Read the cost from .cost; treat the rest as private. */
struct st_model {
    struct st_model_config cfg;
    struct st_model_cost cost;
    uint64_t bufsize;       /* cfg.bufsize, or 1 for ST_M_BUF_NONE */
    int64_t kernel_pos;     /* the descriptor's file offset */
    int64_t offset;         /* FILE._offset: file offset of _IO_read_end,
                             * or ST_M_POS_BAD when glibc does not know it */
    uint64_t read_base, read_ptr, read_end; /* the main get area */
    uint64_t backup_unread; /* ungetc bytes not yet re-read */
    bool is_open;
    bool buf_allocated;     /* _IO_buf_base != NULL */
    bool eof_seen;          /* _IO_EOF_SEEN */
    bool oriented;          /* _mode != 0 */
    bool have_backup;       /* _IO_backup_base != NULL */
    bool in_backup;         /* _IO_IN_BACKUP */
};

#define ST_M_POS_BAD (-1)

/* Starts a model with no stream open and all counts zero. */
void st_model_init(struct st_model *m, const struct st_model_config *cfg);

/* Applies one call. Returns what the call returns, as the model predicts it,
 * so that a caller can check the recording against the model:
 *   ST_M_FREAD                bytes delivered
 *   ST_M_GETC                 1 for a byte, -1 for EOF
 *   ST_M_FGETS, ST_M_GETDELIM bytes delivered: op->len, unless the simulated
 *                             file disagrees with the recording (ends
 *                             earlier, or goes on where the call met EOF)
 *   ST_M_FSEEK, ST_M_FFLUSH   0, or -1 when it fails
 *   ST_M_FTELL                the position, or -1
 *   otherwise                 0
 * and -1 for any call but ST_M_OPEN on a stream not open. */
int64_t st_model_step(struct st_model *m, const struct st_model_op *op);

#endif
