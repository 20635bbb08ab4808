/* storage.c — see storage.h. */
#define _GNU_SOURCE 1
#include "storage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bulk.h"
#include "config.h"
#include "files.h"
#include "report_model.h"

#define BLOCK_UNIT 512u      /* ru_inblock/ru_oublock count 512-byte blocks */
#define FILES_CHECKED 64     /* report rows looked at for a device-less file */
#define BTRFS_MAGIC 0x9123683eL /* a block file system with anonymous st_dev */

static uint64_t base_in, base_out;

static int usage_now(uint64_t *in, uint64_t *out)
{
    struct rusage ru;
    if (syscall(SYS_getrusage, RUSAGE_SELF, &ru) != 0)
        return -1;
    *in = (uint64_t)ru.ru_inblock;
    *out = (uint64_t)ru.ru_oublock;
    return 0;
}

void st_storage_start(void)
{
    if (usage_now(&base_in, &base_out) != 0)
        base_in = base_out = 0;
}

uint64_t st_storage_thread_blocks(void)
{
    struct rusage ru;
    return syscall(SYS_getrusage, RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_inblock : 0;
}

void st_storage_charge_slow(struct st_file *f, uint64_t mark)
{
    uint64_t now = st_storage_thread_blocks();
    if (now > mark)
        __atomic_fetch_add(&f->device_read_bytes, (now - mark) * BLOCK_UNIT, __ATOMIC_RELAXED);
}

void st_storage_fork_child(void)
{
    base_in = base_out = 0;
}

void st_storage_opened(int fd, const struct st_file *f)
{
    if (st_config.fadvise < 0 || !f || !f->seekable)
        return;
    int saved = errno;
    syscall(SYS_fadvise64, fd, (off_t)0, (off_t)0, st_config.fadvise);
    errno = saved;
}

/* File systems with no block device whose files hold data the page cache
 * serves (name), and kernel pseudo file systems, whose reads no cache
 * serves and no device could (NULL: not a reason to doubt the figures). */
static const struct {
    long type;
    const char *name;
} kinds[] = {
    {0x01021994L, "tmpfs"},   {0x858458f6L, "ramfs"},    {0x794c7630L, "overlay"},
    {0x6969L, "nfs"},         {0x65735546L, "fuse"},     {0x01021997L, "9p"},
    {0xff534d42L, "cifs"},    {0xfe534d42L, "smb2"},     {0x6a656a63L, "virtiofs"},
    {0x00c36400L, "ceph"},    {0x9fa0L, NULL /* proc */}, {0x62656572L, NULL /* sysfs */},
    {0x27e0ebL, NULL /* cgroup */}, {0x63677270L, NULL /* cgroup2 */},
    {0x64626720L, NULL /* debugfs */}, {0x74726163L, NULL /* tracefs */},
    {0x73636673L, NULL /* securityfs */}, {0xcafe4a11L, NULL /* bpf */},
    {0x6165676cL, NULL /* pstore */}, {0x62656570L, NULL /* configfs */},
    {0xde5e81e4L, NULL /* efivarfs */}, {0x958458f6L, NULL /* hugetlbfs */},
};

/* Whether path lives on a file system with no block device under it that
 * serves file data from the page cache; its name then in name. */
static int deviceless(const char *path, char *name, size_t size)
{
    struct stat st;
    struct statfs sf;
    if (path[0] != '/' || syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) != 0 ||
        !S_ISREG(st.st_mode) || major(st.st_dev) != 0 ||
        syscall(SYS_statfs, path, &sf) != 0 || (long)sf.f_type == BTRFS_MAGIC)
        return 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].type == (long)sf.f_type) {
            if (!kinds[i].name)
                return 0;
            snprintf(name, size, "%s", kinds[i].name);
            return 1;
        }
    snprintf(name, size, "a file system of type %#lx", (unsigned long)sf.f_type);
    return 1;
}

void st_storage_report(struct st_report *r)
{
    static char why[512] ST_BULK; /* only for a file without a block device */
    struct st_report_storage *s = &r->storage;
    uint64_t in, out;
    s->processes = 1;
    if (usage_now(&in, &out) != 0) {
        s->why_not = "getrusage failed";
        s->processes_unmeasured = 1;
        return;
    }
    for (size_t i = 0; i < r->nfiles && i < FILES_CHECKED; i++) {
        const struct st_report_file *f = &r->files[i];
        char name[64];
        if (!f->counts.kernel_read_bytes || !deviceless(f->path, name, sizeof name))
            continue;
        snprintf(why, sizeof why, "%s is on %s, which has no block device", f->path, name);
        s->why_not = why;
        s->processes_unmeasured = 1;
        return;
    }
    s->measured = 1;
    s->per_file = st_config.storage_per_file;
    for (size_t i = 0; s->per_file && i < r->nfiles; i++)
        r->files[i].device_measured = 1; /* exit_report.c filled device_read_bytes */
    s->device_read_bytes = (in - base_in) * BLOCK_UNIT;
    s->device_write_bytes = (out - base_out) * BLOCK_UNIT;
}
