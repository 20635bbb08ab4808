/* name_in_dir.h — the kernel's name of a file just opened by one name in
 * a directory whose kernel name is known, without asking /proc.
 *
 * Every opened file is named as /proc/self/fd names it (files.h), which
 * costs a readlink: 3.3 µs on this project's VM, more than the program's
 * own openat and close together, and a third of `grep -r`'s traced run.
 * Tree walkers (fts: grep -r, find, du, rm -r, chmod -R) open every file as
 * openat(dirfd, "entry", O_NOFOLLOW), and there the kernel's name of the
 * file is the directory's name, '/', the entry: a file reached by one name
 * in a directory is that directory's child (a mount on the entry is mounted
 * there too), and the name cannot be a symlink leading elsewhere — with
 * O_NOFOLLOW the open fails on one, and O_CREAT|O_EXCL never follows one.
 *
 * What it cannot see: a directory renamed (or the process's root changed)
 * after its name was read; /proc would give the new name, this the name it
 * had. Directories under /proc, whose entries the kernel names its own way,
 * and names /proc reports as deleted are never used. */
#ifndef SEEKTRACE_NAME_IN_DIR_H
#define SEEKTRACE_NAME_IN_DIR_H

#include <stddef.h>

/* The kernel's name of the file openat(dir, entry, flags) opened, in name
 * (size bytes), when dir_name is the directory's kernel name and the rules
 * above hold; 1 then, else 0 (name undefined). */
int st_name_in_dir(const char *dir_name, const char *entry, int flags, char *name, size_t size);

#endif
