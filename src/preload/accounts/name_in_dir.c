/* name_in_dir.c — see name_in_dir.h. */
#include "name_in_dir.h"

#include <fcntl.h>
#include <string.h>

/* The entry cannot be a symlink to somewhere else, and the open makes no
 * file of its own choosing (O_TMPFILE's is unnamed) nor a handle on the
 * link itself (O_PATH with O_NOFOLLOW). */
static int follows_no_link(int flags)
{
    if ((flags & __O_TMPFILE) == __O_TMPFILE || (flags & O_PATH))
        return 0;
    return (flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
}

/* One name: not empty, no '/', not "." or ".." (which name the directory or
 * its parent, not a child). */
static int is_one_entry(const char *entry)
{
    if (entry[0] == '\0' || strchr(entry, '/'))
        return 0;
    return strcmp(entry, ".") != 0 && strcmp(entry, "..") != 0;
}

/* An absolute name of a directory that still exists, outside /proc. */
static int is_plain_dir_name(const char *dir, size_t len)
{
    static const char deleted[] = " (deleted)";
    if (dir[0] != '/')
        return 0;
    if (strncmp(dir, "/proc", 5) == 0 && (dir[5] == '/' || dir[5] == '\0'))
        return 0;
    return len < sizeof deleted - 1 || strcmp(dir + len - (sizeof deleted - 1), deleted) != 0;
}

int st_name_in_dir(const char *dir_name, const char *entry, int flags, char *name, size_t size)
{
    if (!dir_name || !entry || !follows_no_link(flags) || !is_one_entry(entry))
        return 0;
    size_t dir_len = strlen(dir_name);
    if (!is_plain_dir_name(dir_name, dir_len))
        return 0;
    size_t sep = dir_len > 1, entry_len = strlen(entry);
    if (dir_len + sep + entry_len >= size)
        return 0;
    char *end = stpcpy(name, dir_name);
    if (sep)
        *end++ = '/';
    memcpy(end, entry, entry_len + 1);
    return 1;
}
