/* counts.h — the figures seektrace keeps for a file, a stream or a process.
 *
 * One struct for every level so that totals are sums and every report prints
 * the same columns. Counters are plain uint64_t; the preload library updates
 * them with st_add() (see below), the tools with ordinary arithmetic. */
#ifndef SEEKTRACE_COUNTS_H
#define SEEKTRACE_COUNTS_H

#include <stdint.h>

enum st_call {
#define CALL(id, name) ST_CALL_##id,
#include "calls.def"
#undef CALL
    ST_CALL_COUNT
};

/* The JSON/text name of a call kind ("fread"). */
const char *st_call_name(enum st_call call);

/* What calls of one kind cost: how many were made, and the syscalls they
 * caused (for stdio calls, the ones glibc made inside them); the counters
 * are listed in call_cost_fields.def. */
struct st_call_cost {
#define CALL_COST_FIELD(name, k) uint64_t name;
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
};
enum {
#define CALL_COST_FIELD(name, k) ST_CALL_COST_FIELD_##name,
#include "call_cost_fields.def"
#undef CALL_COST_FIELD
    ST_CALL_COST_FIELDS
};
_Static_assert(sizeof(struct st_call_cost) == ST_CALL_COST_FIELDS * sizeof(uint64_t),
               "st_call_cost holds only its listed counters");

/* The scalar counters are listed in counts_fields.def. Two need a word:
 *   resync_lseeks                lseeks made by the seeks that kept the buffer
 *   whatif_4k_kernel_read_bytes  what the streams the library modelled at a
 *                                4 KiB buffer (whatif_live.h) would have read
 *   whatif_4k_recorded_bytes     what those same streams did read */
struct st_counts {
#define COUNT_FIELD(name, id) uint64_t name;
#include "counts_fields.def"
#undef COUNT_FIELD
    struct st_call_cost by_call[ST_CALL_COUNT];
};

/* sum += part, field by field. */
void st_counts_add(struct st_counts *sum, const struct st_counts *part);

/* sum -= part, field by field, never below zero (part is a share of sum,
 * read a moment later while other threads may still be counting). */
void st_counts_sub(struct st_counts *sum, const struct st_counts *part);

/* Kernel bytes read per byte delivered; 0 when nothing was delivered. */
double st_counts_amplification(const struct st_counts *c);

/* Kernel bytes written per byte the program handed over to be written
 * (written_bytes); 0 when nothing was handed over. */
double st_counts_write_amplification(const struct st_counts *c);

/* Kernel bytes read beyond what was delivered: what the waste costs. */
uint64_t st_counts_wasted_bytes(const struct st_counts *c);

/* A syscall costs about as much as copying 4 KiB from the page cache
 * (roughly 1 µs each on current x86): how reports weigh syscalls against
 * bytes when they rank. */
#define ST_SYSCALL_COST_BYTES 4096u

/* What reports rank by: wasted bytes plus ST_SYSCALL_COST_BYTES per read,
 * lseek and write syscall, so a pipe read in 2,000 syscalls outranks a 1 KiB file read
 * twice, and a file read 38 times over outranks one read once. */
uint64_t st_counts_cost(const struct st_counts *c);

/* True when the counts hold any read or write activity worth reporting. */
int st_counts_any(const struct st_counts *c);

#endif
