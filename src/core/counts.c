/* counts.c — arithmetic on st_counts. */
#include "counts.h"

#include <stddef.h>

static const char *const call_names[ST_CALL_COUNT] = {
#define CALL(id, name) [ST_CALL_##id] = name,
#include "calls.def"
#undef CALL
};

const char *st_call_name(enum st_call call)
{
    return (unsigned)call < ST_CALL_COUNT ? call_names[call] : "?";
}

void st_counts_add(struct st_counts *sum, const struct st_counts *part)
{
    /* The struct is nothing but uint64_t fields, so add it as an array:
     * a new field can never be forgotten here. */
    uint64_t *s = (uint64_t *)sum;
    const uint64_t *p = (const uint64_t *)part;
    for (size_t i = 0; i < sizeof *sum / sizeof(uint64_t); i++)
        s[i] += p[i];
}

void st_counts_sub(struct st_counts *sum, const struct st_counts *part)
{
    uint64_t *s = (uint64_t *)sum;
    const uint64_t *p = (const uint64_t *)part;
    for (size_t i = 0; i < sizeof *sum / sizeof(uint64_t); i++)
        s[i] = s[i] > p[i] ? s[i] - p[i] : 0;
}

double st_counts_amplification(const struct st_counts *c)
{
    if (c->delivered_bytes == 0)
        return 0.0;
    return (double)c->kernel_read_bytes / (double)c->delivered_bytes;
}

double st_counts_write_amplification(const struct st_counts *c)
{
    if (c->written_bytes == 0)
        return 0.0;
    return (double)c->kernel_write_bytes / (double)c->written_bytes;
}

uint64_t st_counts_wasted_bytes(const struct st_counts *c)
{
    return c->kernel_read_bytes > c->delivered_bytes
               ? c->kernel_read_bytes - c->delivered_bytes
               : 0;
}

uint64_t st_counts_cost(const struct st_counts *c)
{
    return st_counts_wasted_bytes(c) +
           (c->read_syscalls + c->lseek_syscalls + c->write_syscalls) * (uint64_t)ST_SYSCALL_COST_BYTES;
}

int st_counts_any(const struct st_counts *c)
{
    if (c->read_syscalls || c->lseek_syscalls || c->write_syscalls ||
        c->requested_bytes || c->delivered_bytes || c->written_bytes)
        return 1;
    for (int i = 0; i < ST_CALL_COUNT; i++)
        if (c->by_call[i].calls && i != ST_CALL_FOPEN && i != ST_CALL_OPEN &&
            i != ST_CALL_FCLOSE && i != ST_CALL_CLOSE && i != ST_CALL_DUP)
            return 1;
    return 0;
}
