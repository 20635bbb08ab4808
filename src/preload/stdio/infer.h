/* infer.h — the fallback when glibc's stdio jump tables cannot be hooked.
 *
 * Then the syscalls stdio makes are invisible, and are inferred instead from
 * the public FILE fields before and after each interposed stdio call: a new
 * buffer window means a refill (one read of the window's size), a seek call
 * means an lseek. Bytes of plain sequential and seek+read patterns come out
 * right; what happens inside one call that refills several times, and the
 * per-byte readers we do not interpose, are missed. Reports say "inferred".
 * SEEKTRACE_CAPTURE=inferred forces this mode, to test it or compare. */
#ifndef SEEKTRACE_INFER_H
#define SEEKTRACE_INFER_H

#include <stdio.h>

struct st_stream;

/* st_capture_inferred, whether this mode is on, is streams.h's: the
 * stream accounts follow it. */
void st_infer_begin(struct st_stream *s, FILE *fp);
void st_infer_end(void);

#endif
