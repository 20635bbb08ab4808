/* bufsize.c — see bufsize.h. */
#include "bufsize.h"

#include <sys/mman.h>

#include "config.h"
#include "real.h"
#include "streams.h"

void st_bufsize_apply(FILE *fp, struct st_stream *s)
{
    size_t n = st_config.bufsize;
    if (!n || !s)
        return;
    /* mmap, not malloc: the program's allocator never sees our buffers,
     * and they go back to the system when the stream closes. */
    void *buf = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return;
    if (ST_REAL(setvbuf)(fp, buf, _IOFBF, n) != 0) {
        munmap(buf, n);
        return;
    }
    s->forced_buffer = buf;
    s->forced_size = n;
}

int st_bufsize_overrides(int mode)
{
    return st_config.bufsize && mode == _IOFBF;
}

/* Called from the close hook: glibc only resets its pointers after the
 * close, it never touches a user buffer's bytes again. */
void st_bufsize_release(struct st_stream *s)
{
    if (s->forced_buffer)
        munmap(s->forced_buffer, s->forced_size);
    s->forced_buffer = NULL;
}
