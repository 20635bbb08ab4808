/* config.c — see config.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "warn.h"

struct st_config st_config;

void st_config_load(void)
{
    const char *v = getenv("SEEKTRACE_FORMAT");
    st_config.format = ST_FORMAT_TEXT;
    if (v && *v) {
        if (strcmp(v, "json") == 0)
            st_config.format = ST_FORMAT_JSON;
        else if (strcmp(v, "text") != 0)
            st_warn("SEEKTRACE_FORMAT=%s is not 'text' or 'json'; using text", v);
    }
    v = getenv("SEEKTRACE_STACK");
    st_config.stack = 1;
    if (v && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 0 || n > 16)
            st_warn("SEEKTRACE_STACK=%s is not a number of frames from 0 to 16; using 1", v);
        else
            st_config.stack = (int)n;
    }
    v = getenv("SEEKTRACE_OUTPUT");
    /* Copied: the program may change its environment before we report. */
    st_config.output = v && *v ? st_strdup(v) : NULL;
}
