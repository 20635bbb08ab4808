/* debuginfo_local.c — see debuginfo_local.h. */
#define _GNU_SOURCE 1
#include "debuginfo_local.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libdwfl's DEFAULT_DEBUGINFO_PATH is ":.debug:/usr/lib/debug": the
 * module's directory, its .debug subdirectory, and this root. */
static const char debug_root[] = "/usr/lib/debug";

static int debuginfod_configured(void)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    return urls && urls[strspn(urls, " \t")] != '\0';
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* /usr/lib/debug/.build-id/xx/rest.debug, as dwfl_build_id_find_debuginfo
 * names it. */
static int build_id_file_exists(Dwfl_Module *mod)
{
    const unsigned char *id;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(mod, &id, &vaddr);
    if (len <= 0)
        return 0;
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/.build-id/%02x/", debug_root, id[0]);
    if (n < 0 || (size_t)n + 2 * (size_t)len + sizeof ".debug" > sizeof path)
        return 1; /* cannot tell: libdwfl decides */
    for (int i = 1; i < len; i++)
        n += snprintf(path + n, 3, "%02x", id[i]);
    memcpy(path + n, ".debug", sizeof ".debug");
    return exists(path);
}

/* name in dir (unless that would be the module itself), dir/.debug and
 * /usr/lib/debug/dir, or as it is if absolute: a superset of the places
 * find_debuginfo_in_path opens. */
static int linked_file_exists(const char *dir, const char *name, int is_module)
{
    if (name[0] == '/')
        return exists(name);
    static const char *const forms[] = {"%s/.debug/%s", "/usr/lib/debug%s/%s", "%s/%s"};
    size_t nforms = sizeof forms / sizeof *forms - (is_module ? 1 : 0);
    char path[PATH_MAX];
    for (size_t i = 0; i < nforms; i++) {
        int n = snprintf(path, sizeof path, forms[i], dir, name);
        if (n < 0 || (size_t)n >= sizeof path || exists(path))
            return 1;
    }
    int n = snprintf(path, sizeof path, "%s/%s", debug_root, name);
    return n < 0 || (size_t)n >= sizeof path || exists(path);
}

/* The debug link's name or, with none, the module's own name with and
 * without ".debug", in the places above. */
static int debug_link_exists(const char *file_name, const char *debuglink_file)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file_name);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 1; /* a relative name: cannot tell */
    *slash = '\0';
    const char *base = slash + 1;
    if (debuglink_file)
        return linked_file_exists(dir, debuglink_file, 0);
    char own[NAME_MAX + sizeof ".debug"];
    snprintf(own, sizeof own, "%s.debug", base);
    return linked_file_exists(dir, own, 0) || linked_file_exists(dir, base, 1);
}

static int local_candidate(Dwfl_Module *mod, const char *file_name, const char *debuglink_file)
{
    if (build_id_file_exists(mod))
        return 1;
    if (!file_name)
        return 0;
    if (debug_link_exists(file_name, debuglink_file))
        return 1;
    /* The standard search tries a symlink's target's name too. */
    char *canon = realpath(file_name, NULL);
    int found = canon && strcmp(canon, file_name) != 0 && debug_link_exists(canon, debuglink_file);
    free(canon);
    return found;
}

int debuginfo_find_local(Dwfl_Module *mod, void **userdata, const char *modname,
                         Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                         GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    if (!mod)
        return -1;
    if (debuginfod_configured() || local_candidate(mod, file_name, debuglink_file))
        return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
                                            debuglink_file, debuglink_crc, debuginfo_file_name);
    errno = 0; /* nothing found, which is no error */
    return -1;
}
