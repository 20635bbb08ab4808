/* record.h — charging one syscall to the accounts it belongs to.
 *
 * Every syscall seektrace sees, whether glibc's stdio made it inside a hook
 * or the program made it through a wrapper, ends up here: counted on the
 * stream or file, and on the call that caused it. */
#ifndef SEEKTRACE_RECORD_H
#define SEEKTRACE_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "counts.h"

struct st_file;

/* The call to charge: the interposed call in progress, else `fallback`
 * (what the outermost stdio hook implies, e.g. getc for a refill in uflow). */
enum st_call st_charge(enum st_call fallback);

/* A read-family syscall that returned `result` at file offset `offset`
 * (-1 if unknown: then re-reads cannot be placed and are not counted). */
void st_record_read(struct st_file *f, struct st_counts *c, enum st_call call,
                    int64_t offset, ssize_t result);
void st_record_lseek(struct st_counts *c, enum st_call call);
void st_record_fstat(struct st_counts *c, enum st_call call);
void st_record_write(struct st_counts *c, ssize_t result);

#endif
