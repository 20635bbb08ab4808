/* devices.c — the block devices under a report's files and their readahead
 * (tool.h): what `seektrace report` prints after a text report.
 *
 * Read when the report is made, from the files as they are now (a trace
 * does not record devices): each file the kernel read bytes from that still
 * exists on a block device, grouped by device, with the device's
 * /sys/dev/block/MAJ:MIN/queue/read_ahead_kb, or its parent disk's for a
 * partition. */
#define _GNU_SOURCE 1
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "tool.h"

/* A sysfs file's number, or -1. */
static long read_number(const char *path)
{
    FILE *f = fopen(path, "re");
    char line[32];
    long v = -1;
    if (f) {
        if (fgets(line, sizeof line, f)) {
            char *end;
            v = strtol(line, &end, 10);
            if (end == line || (*end && *end != '\n') || v < 0)
                v = -1;
        }
        fclose(f);
    }
    return v;
}

static void describe(struct device_files *d)
{
    char sys[96], real[PATH_MAX], q[PATH_MAX + 32];
    snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(d->dev), minor(d->dev));
    snprintf(d->name, sizeof d->name, "%u:%u", major(d->dev), minor(d->dev));
    d->read_ahead_kb = -1;
    if (!realpath(sys, real))
        return;
    const char *base = strrchr(real, '/');
    const char *name = base ? base + 1 : real;
    size_t len = strnlen(name, sizeof d->name - 1);
    memcpy(d->name, name, len);
    d->name[len] = '\0';
    snprintf(q, sizeof q, "%s/queue/read_ahead_kb", real);
    if ((d->read_ahead_kb = read_number(q)) < 0) { /* a partition: its disk's queue */
        snprintf(q, sizeof q, "%s/../queue/read_ahead_kb", real);
        d->read_ahead_kb = read_number(q);
    }
}

void devices_add(void *devices, const struct st_report_file *f)
{
    struct devices *d = devices;
    struct stat st;
    if (!f->counts.kernel_read_bytes || f->path[0] != '/' || stat(f->path, &st) != 0 ||
        !S_ISREG(st.st_mode) || major(st.st_dev) == 0)
        return;
    size_t k = 0;
    while (k < d->n && d->dev[k].dev != st.st_dev)
        k++;
    if (k == d->n) {
        if (d->n == DEVICES_MAX) {
            d->more++;
            return;
        }
        d->dev[k].dev = st.st_dev;
        d->dev[k].files = 0;
        describe(&d->dev[d->n++]);
    }
    d->dev[k].files++;
}

void devices_print(const struct devices *d)
{
    if (!d->n)
        return;
    out_printf("\n  block devices of the files read (read_ahead_kb as it is now):\n");
    for (size_t k = 0; k < d->n; k++) {
        char ra[48];
        if (d->dev[k].read_ahead_kb >= 0)
            snprintf(ra, sizeof ra, "%ld KiB readahead", d->dev[k].read_ahead_kb);
        else
            snprintf(ra, sizeof ra, "readahead unknown");
        out_printf("    %s (%u:%u): %s, %zu file%s\n", d->dev[k].name, major(d->dev[k].dev),
                   minor(d->dev[k].dev), ra, d->dev[k].files, d->dev[k].files == 1 ? "" : "s");
    }
    if (d->more)
        out_printf("    ... and %zu more file%s on other devices\n", d->more,
                   d->more == 1 ? "" : "s");
}
