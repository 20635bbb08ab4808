/* options.c — see tool.h: the option syntax every subcommand shares
 * ("--opt=value" or "--opt value") and buffer size lists. */
#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "units.h"

int opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        tool_usage_error(cmd, "%s needs a value", name);
    *value = argv[++*i];
    return 1;
}

void opt_positional(const char *cmd, int argc, char **argv, int *i, char **pos, int *npos)
{
    const char *a = argv[*i];
    if (strcmp(a, "--") == 0) {
        while (++*i < argc)
            pos[(*npos)++] = argv[*i];
    } else if (a[0] == '-' && a[1]) {
        tool_usage_error(cmd, "unknown option '%s'", a);
    } else {
        pos[(*npos)++] = argv[*i];
    }
}

size_t size_list_parse(const char *cmd, const char *list, uint64_t *sizes)
{
    char *copy = strdup(list), *save = NULL;
    size_t n = 0;
    if (!copy)
        tool_bad_input("out of memory");
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (st_parse_size(t, &v) != 0 || v == 0 || v > (1ull << 30))
            tool_usage_error(cmd, "--sizes: '%s' is not a size from 1 B to 1 GiB", t);
        if (n == TOOL_MAX_SIZES)
            tool_usage_error(cmd, "--sizes: at most %d sizes", TOOL_MAX_SIZES);
        sizes[n++] = v;
    }
    free(copy);
    if (!n)
        tool_usage_error(cmd, "--sizes needs at least one size");
    return n;
}
