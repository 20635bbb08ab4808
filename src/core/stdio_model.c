/* stdio_model.c — glibc's stdio read-stream rules, replayed on a simulated FILE.
 *
 * Each function follows one libio function, named in its comment, as far as
 * that function touches the kernel or the state that decides later kernel
 * calls; copying bytes, the write side, wide streams and markers are left out.
 * The simulated FILE keeps glibc's pointers as offsets from _IO_buf_base, and
 * the simulated descriptor keeps the kernel's file offset, which decides what
 * each read returns near the end of the file. */
#include "stdio_model.h"

#include <unistd.h>

/* ---- The kernel side: a regular file of cfg.file_size bytes. ---- */

static uint64_t sys_read(struct st_model *m, uint64_t want)
{
    uint64_t size = m->cfg.file_size;
    uint64_t pos = (uint64_t)m->kernel_pos;
    uint64_t left = pos < size ? size - pos : 0;
    uint64_t got = want < left ? want : left;

    m->cost.read_syscalls++;
    m->cost.kernel_read_bytes += got;
    if (got < want && m->cfg.size_is_lower_bound)
        m->cost.assumed_end_reads++;
    m->kernel_pos += (int64_t)got;
    return got;
}

/* whence is SEEK_SET or SEEK_CUR: glibc's read streams never lseek with
 * SEEK_END on a regular file (they fstat and seek with SEEK_SET). */
static int64_t sys_lseek(struct st_model *m, int64_t offset, int whence)
{
    int64_t target = whence == SEEK_CUR ? m->kernel_pos + offset : offset;

    m->cost.lseek_syscalls++;
    if (target < 0)
        return -1; /* EINVAL, and the offset stays */
    m->kernel_pos = target;
    return target;
}

/* ---- Which glibc. ---- */

#define GLIBC_2_36 236
#define GLIBC_2_42 242

unsigned st_model_glibc(const char *version)
{
    unsigned major = 0, minor = 0;
    const char *p = version;
    if (!p)
        return 0;
    while (*p >= '0' && *p <= '9' && major < 100)
        major = major * 10 + (unsigned)(*p++ - '0');
    if (major != 2 || *p++ != '.' || *p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9' && minor < 100)
        minor = minor * 10 + (unsigned)(*p++ - '0');
    return minor < 100 ? 200 + minor : 0;
}

const char *st_model_rules_name(unsigned glibc)
{
    if (glibc >= GLIBC_2_42)
        return "2.42+";
    return glibc == 0 || glibc >= GLIBC_2_36 ? "2.36-2.41" : "2.28-2.35";
}

/* The fix of bug 27821 (exit frees ungetc's backup area before syncing):
 * Debian 12's 2.36 (a stable-branch update), 2.41 and 2.43 have it; 2.31
 * (Debian 11) syncs in the backup area (stdio_model.h). */
static bool frees_backup_at_exit(const struct st_model *m)
{
    return m->cfg.glibc == 0 || m->cfg.glibc >= GLIBC_2_36;
}

bool st_model_fclose_syncs_input(unsigned glibc)
{
    return glibc >= GLIBC_2_42;
}

/* glibc 2.42's fixes of bugs 5994, 12724 and 32369 (stdio_model.h). */
static bool syncs_input(const struct st_model *m)
{
    return st_model_fclose_syncs_input(m->cfg.glibc);
}

/* ---- The FILE side. ---- */

static uint64_t unread(const struct st_model *m)
{
    return m->in_backup ? m->backup_unread : m->read_end - m->read_ptr;
}

static void consume(struct st_model *m, uint64_t n)
{
    if (m->in_backup)
        m->backup_unread -= n;
    else
        m->read_ptr += n;
}

static void setg_empty(struct st_model *m)
{
    m->read_base = m->read_ptr = m->read_end = 0;
}

/* _IO_doallocbuf → _IO_file_doallocate: a buffer glibc allocates itself is
 * sized by one fstat (min(st_blksize, BUFSIZ)). */
static void doallocbuf(struct st_model *m)
{
    if (m->buf_allocated)
        return;
    m->buf_allocated = true;
    if (m->cfg.buffering == ST_M_BUF_ALLOC)
        m->cost.fstat_syscalls++;
}

/* _IO_switch_to_main_get_area: reading resumes where ungetc parked the main
 * get area (its _IO_read_base); whatever is left in the backup is skipped. */
static void switch_to_main(struct st_model *m)
{
    m->in_backup = false;
    m->backup_unread = 0;
    m->read_ptr = m->read_base;
}

/* _IO_free_backup_area (a no-op without one) */
static void free_backup(struct st_model *m)
{
    if (m->in_backup)
        switch_to_main(m);
    m->have_backup = false;
}

/* _IO_new_file_underflow: one read of a whole buffer. EOF is sticky (C99), and
 * after it glibc forgets _offset because the program may switch handles. */
static bool file_underflow(struct st_model *m)
{
    uint64_t got;

    if (m->eof_seen)
        return false;
    doallocbuf(m);
    setg_empty(m);
    got = sys_read(m, m->bufsize);
    if (got == 0) {
        m->eof_seen = true;
        m->offset = ST_M_POS_BAD;
        return false;
    }
    m->read_end = got;
    if (m->offset != ST_M_POS_BAD)
        m->offset += (int64_t)got;
    return true;
}

/* __underflow: the backup area, then the main get area, then the file. This
 * is where a stream gets its byte orientation (_IO_fwide (fp, -1)), which
 * later decides whether exit syncs it. */
static bool underflow(struct st_model *m)
{
    m->oriented = true;
    if (unread(m) > 0)
        return true;
    if (m->in_backup) {
        switch_to_main(m);
        if (unread(m) > 0)
            return true;
    }
    free_backup(m);
    return file_underflow(m);
}

/* __uflow via _IO_default_uflow: underflow, then take one byte. */
static bool uflow(struct st_model *m)
{
    if (!underflow(m))
        return false;
    consume(m, 1);
    return true;
}

/* getc: __getc_unlocked_body takes a buffered byte inline, without touching
 * the orientation, and calls __uflow only on an empty get area. */
static int64_t do_getc(struct st_model *m)
{
    if (unread(m) > 0) {
        consume(m, 1);
        return 1;
    }
    return uflow(m) ? 1 : -1;
}

/* The direct branch of _IO_file_xsgetn, taken while the caller still wants a
 * buffer or more: read straight into the caller's memory, a whole number of
 * buffers when the buffer is 128 bytes or more ("to maintain alignment"). It
 * does not look at _IO_EOF_SEEN, so it reads again after EOF, and unlike
 * underflow it keeps _offset at EOF. */
static bool read_direct(struct st_model *m, uint64_t *want)
{
    uint64_t count = *want;
    uint64_t got;

    setg_empty(m);
    if (m->bufsize >= 128)
        count -= count % m->bufsize;
    got = sys_read(m, count);
    if (got == 0) {
        m->eof_seen = true;
        return false;
    }
    *want -= got;
    if (m->offset != ST_M_POS_BAD)
        m->offset += (int64_t)got;
    return true;
}

/* _IO_fread → _IO_file_xsgetn: drain the get area, then refill it while less
 * than a buffer is wanted, else read directly. */
static int64_t do_fread(struct st_model *m, uint64_t n)
{
    uint64_t want = n;

    if (n == 0)
        return 0; /* _IO_fread returns before touching the stream */
    doallocbuf(m);
    while (want > 0) {
        uint64_t have = unread(m);

        if (want <= have) {
            consume(m, want);
            want = 0;
            break;
        }
        consume(m, have);
        want -= have;
        if (m->in_backup) {
            switch_to_main(m);
            continue;
        }
        if (want < m->bufsize ? !underflow(m) : !read_direct(m, &want))
            break;
    }
    return (int64_t)(n - want);
}

/* The copy loop of _IO_getline_info (fgets), and a run of getc calls: take
 * len bytes, calling __uflow whenever the get area is empty. Returns the bytes taken: fewer than len
 * only if the simulated file ends first. */
static uint64_t take_bytes(struct st_model *m, uint64_t len)
{
    uint64_t left = len;

    while (left > 0) {
        uint64_t chunk = unread(m);

        if (chunk == 0) {
            if (!uflow(m))
                break;
            left--;
            continue;
        }
        if (chunk > left)
            chunk = left;
        consume(m, chunk);
        left -= chunk;
    }
    return len - left;
}

/* _IO_fgets → _IO_getline_info (fp, buf, n - 1, '\n', 1). A line that stops
 * neither at '\n' nor at n - 1 bytes stopped because __uflow met EOF, which
 * costs one more underflow after the last byte. */
static int64_t do_fgets(struct st_model *m, int64_t n, uint64_t len,
                        bool delim_seen)
{
    uint64_t got;

    if (n <= 1)
        return 0; /* _IO_fgets stores at most the NUL: no read */
    m->oriented = true;
    got = take_bytes(m, len);
    if (got == len && !delim_seen && len < (uint64_t)(n - 1) && uflow(m))
        got++; /* the recording says EOF, the simulated file has more */
    return (int64_t)got;
}

/* __getdelim: like fgets without a limit, but with __underflow, and only
 * after the get area is empty, so a line that ends exactly at the end of the
 * buffer costs no read. */
static int64_t do_getdelim(struct st_model *m, uint64_t len, bool delim_seen)
{
    uint64_t left = len;

    if (unread(m) == 0 && !underflow(m))
        return 0;
    for (;;) {
        uint64_t chunk = unread(m);

        if (chunk > left)
            chunk = left;
        consume(m, chunk);
        left -= chunk;
        if (left == 0 && delim_seen)
            break;
        if (!underflow(m))
            break;
        if (left == 0)
            return (int64_t)len + 1; /* recorded EOF, but the file has more */
    }
    return (int64_t)(len - left);
}

/* _IO_sputbackc, else _IO_default_pbackfail. Putting back the byte just read
 * only steps back in the get area. Anything else parks the main get area at
 * the current position (its _IO_read_base) and reads from a separate backup
 * buffer until that runs dry. */
static int64_t do_ungetc(struct st_model *m, bool matches_prev)
{
    if (!m->in_backup && m->read_ptr > m->read_base && matches_prev) {
        m->read_ptr--;
    } else {
        if (!m->in_backup) {
            m->read_base = m->read_ptr;
            m->have_backup = true;
            m->in_backup = true;
        }
        m->backup_unread++;
    }
    m->eof_seen = false;
    return 0;
}

/* The dumb: label of _IO_new_file_seekoff: _IO_unsave_markers drops any
 * backup area, then a plain lseek empties the get area. The only way a seek
 * learns an unknown _offset. */
static int64_t seek_dumb(struct st_model *m, int64_t offset, int whence)
{
    int64_t result;

    free_backup(m);
    result = sys_lseek(m, offset, whence);
    if (result < 0)
        return -1;
    m->eof_seen = false;
    m->offset = result;
    setg_empty(m);
    return result;
}

/* _IO_new_file_seekoff, destination within the current buffer: no read, but
 * the kernel offset is set again ("resync") in case another process sharing
 * the descriptor moved it. The range ends before _offset: seeking to the end
 * of the buffered data is not "in the buffer". */
static bool seek_in_buffer(struct st_model *m, int64_t offset)
{
    int64_t start;

    if (m->offset == ST_M_POS_BAD)
        return false;
    start = m->offset - (int64_t)m->read_end;
    if (offset < start || offset >= m->offset)
        return false;
    m->read_base = 0;
    m->read_ptr = (uint64_t)(offset - start);
    m->eof_seen = false;
    sys_lseek(m, m->offset, SEEK_SET);
    return true;
}

/* _IO_new_file_seekoff, any other destination: lseek to the "block boundary"
 * offset & ~(bufsize - 1) (for a bufsize that is not a power of two this only
 * clears some low bits; the remainder is always below bufsize, so glibc's
 * delta > bufsize branch never runs), then, unless that is the target itself,
 * read a whole buffer, or just up to the target when must_be_exact. A read that falls short of
 * the target (past EOF) is followed by an lseek over the rest. */
static int64_t seek_block(struct st_model *m, int64_t offset, bool must_be_exact)
{
    int64_t block = offset & ~(int64_t)(m->bufsize - 1);
    uint64_t delta = (uint64_t)(offset - block);
    uint64_t count = 0;

    if (sys_lseek(m, block, SEEK_SET) < 0)
        return -1;
    if (delta > 0) {
        count = sys_read(m, must_be_exact ? delta : m->bufsize);
        if (count < delta)
            return seek_dumb(m, (int64_t)(delta - count), SEEK_CUR);
    }
    m->read_base = 0;
    m->read_ptr = delta;
    m->read_end = count;
    m->offset = block + (int64_t)count;
    m->eof_seen = false;
    return offset;
}

/* _IO_new_file_seekoff for a read stream (mode != 0). */
static int64_t file_seekoff(struct st_model *m, int64_t offset, int whence)
{
    /* glibc reads "POSIX: exact offset after fflush" as: an empty get area
     * (_IO_read_base == _IO_read_end) gets only the bytes up to the target. */
    bool must_be_exact = !m->in_backup && m->read_base == m->read_end;

    if (!m->buf_allocated) {
        /* A backup area made before the buffer is freed here, and with it
         * whatever ungetc put back. */
        m->in_backup = false;
        m->backup_unread = 0;
        doallocbuf(m);
        setg_empty(m);
    }
    switch (whence) {
    case SEEK_CUR:
        offset -= (int64_t)unread(m);
        if (m->offset == ST_M_POS_BAD)
            return seek_dumb(m, offset, SEEK_CUR);
        offset += m->offset;
        if (offset < 0)
            return -1; /* EINVAL, before any syscall */
        break;
    case SEEK_END:
        m->cost.fstat_syscalls++;
        offset += (int64_t)m->cfg.file_size;
        break;
    }
    free_backup(m);
    if (seek_in_buffer(m, offset))
        return offset;
    return seek_block(m, offset, must_be_exact);
}

/* fseek → _IO_seekoff_unlocked, which first drops a backup area, correcting a
 * SEEK_CUR offset for the bytes put back (only on a byte-oriented stream). */
static int64_t do_fseek(struct st_model *m, int64_t offset, int whence)
{
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END)
        return -1;
    if (m->oriented && m->have_backup) {
        if (whence == SEEK_CUR && m->in_backup)
            offset -= (int64_t)m->backup_unread;
        free_backup(m);
    }
    return file_seekoff(m, offset, whence) < 0 ? -1 : 0;
}

/* __ftello → do_ftell: _offset, or while _offset is unknown (after fopen,
 * fflush, EOF) lseek (fd, 0, SEEK_CUR), less what is buffered but unread;
 * in the backup area __ftello also takes off the main get area's bytes from
 * where ungetc parked it. */
static int64_t do_ftell(struct st_model *m)
{
    int64_t pos = m->offset != ST_M_POS_BAD ? m->offset
                                            : sys_lseek(m, 0, SEEK_CUR);

    if (m->buf_allocated)
        pos -= (int64_t)unread(m);
    if (m->in_backup)
        pos -= (int64_t)(m->read_end - m->read_base);
    return pos < 0 ? -1 : pos;
}

/* _IO_new_file_sync (fflush): give the unread bytes back to the kernel with
 * lseek (fd, -unread, SEEK_CUR) and drop them by pulling _IO_read_end back
 * to _IO_read_ptr (so a get area read from its start is empty again, which
 * the next seek sees as must_be_exact), and forget _offset. */
static int64_t do_fflush(struct st_model *m)
{
    uint64_t n = unread(m);

    /* From 2.42 a backup area's bytes go back too, with the main get
     * area's, which reading then refills. */
    if (syncs_input(m) && m->in_backup) {
        n += m->read_end - m->read_base;
        switch_to_main(m);
    }
    if (n > 0) {
        if (sys_lseek(m, -(int64_t)n, SEEK_CUR) < 0)
            return -1;
        if (m->in_backup)
            m->backup_unread = 0;
        else
            m->read_end = m->read_ptr;
    }
    m->offset = ST_M_POS_BAD;
    return 0;
}

/* _IO_cleanup → _IO_unbuffer_all: at exit every stream still open is
 * unbuffered with _IO_SETBUF (fp, NULL, 0), which syncs it first, unless it
 * is already unbuffered or never got an orientation ("it wasn't used"). The
 * backup area is freed before that (glibc 2.36 stable branch, BZ #27821);
 * before 2.36 the sync gives back only the backup area's unread bytes. */
static void do_exit(struct st_model *m)
{
    /* From 2.42 _IO_flush_all syncs input streams first (bug 32369). */
    if (syncs_input(m) && unread(m) > 0)
        do_fflush(m);
    if (frees_backup_at_exit(m))
        free_backup(m);
    if (m->cfg.buffering != ST_M_BUF_NONE && m->oriented)
        do_fflush(m);
    m->is_open = false;
}

/* _IO_new_file_close_it: up to 2.41 it syncs only writers. From 2.42 an
 * input stream that holds unread bytes (or is in its backup area) puts the
 * descriptor's offset where the program stopped reading: _IO_SEEKOFF's
 * do_ftell (an lseek while _offset is unknown), less the parked main get
 * area when in the backup, then an lseek to it (bug 12724). */
static void do_close(struct st_model *m)
{
    if (syncs_input(m) && (m->in_backup || m->read_end > m->read_ptr)) {
        int64_t pos = m->offset != ST_M_POS_BAD ? m->offset : sys_lseek(m, 0, SEEK_CUR);
        pos -= (int64_t)unread(m);
        if (m->in_backup)
            pos -= (int64_t)(m->read_end - m->read_base);
        sys_lseek(m, pos, SEEK_SET);
    }
    m->is_open = false;
}

/* _IO_new_file_fopen or _IO_new_fdopen, then setvbuf if configured: no
 * syscall on a read stream, and _offset is unknown, "since another handle
 * may change the position" (_IO_new_file_init_internal). */
static void do_open(struct st_model *m, int64_t kernel_pos)
{
    m->kernel_pos = kernel_pos;
    m->offset = ST_M_POS_BAD;
    setg_empty(m);
    m->backup_unread = 0;
    m->is_open = true;
    m->buf_allocated = m->cfg.buffering != ST_M_BUF_ALLOC;
    m->eof_seen = false;
    m->oriented = false;
    m->have_backup = false;
    m->in_backup = false;
}

void st_model_init(struct st_model *m, const struct st_model_config *cfg)
{
    *m = (struct st_model){ .cfg = *cfg, .offset = ST_M_POS_BAD };
    m->bufsize = cfg->buffering == ST_M_BUF_NONE ? 1 : cfg->bufsize;
}

int64_t st_model_step(struct st_model *m, const struct st_model_op *op)
{
    if (op->kind == ST_M_OPEN) {
        do_open(m, op->arg);
        return 0;
    }
    if (!m->is_open)
        return -1;
    switch (op->kind) {
    case ST_M_FREAD:
        return do_fread(m, (uint64_t)op->arg);
    case ST_M_GETC:
        return do_getc(m);
    case ST_M_GETC_RUN:
        return (int64_t)take_bytes(m, (uint64_t)op->arg);
    case ST_M_FGETS:
        return do_fgets(m, op->arg, (uint64_t)op->len, op->delim_seen);
    case ST_M_GETDELIM:
        return do_getdelim(m, (uint64_t)op->len, op->delim_seen);
    case ST_M_UNGETC:
        return do_ungetc(m, op->matches_prev);
    case ST_M_FSEEK:
        return do_fseek(m, op->arg, op->whence);
    case ST_M_FTELL:
        return do_ftell(m);
    case ST_M_REWIND:
        do_fseek(m, 0, SEEK_SET);
        m->eof_seen = false;
        return 0;
    case ST_M_FFLUSH:
        return do_fflush(m);
    case ST_M_CLEARERR:
        m->eof_seen = false;
        return 0;
    case ST_M_CLOSE:
        do_close(m);
        return 0;
    case ST_M_EXIT:
        do_exit(m);
        return 0;
    case ST_M_OPEN:
        break;
    }
    return -1;
}
