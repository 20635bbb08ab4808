/* config.c — see config.h. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "bulk.h"
#include "env.h"
#include "labels.h"
#include "units.h"
#include "warn.h"

struct st_config st_config;

static char labels_buf[ST_LABELS_BYTES] ST_BULK; /* SEEKTRACE_LABELS only */

/* A setting of two words: 1 when it is `other`; 0 when it is `usual`, unset
 * or empty, and, after a warning, when it is anything else. */
static int set_to(enum st_env_id id, const char *usual, const char *other)
{
    const char *v = st_env(id);
    if (!v || !*v || strcmp(v, usual) == 0)
        return 0;
    if (strcmp(v, other) == 0)
        return 1;
    st_warn("%s=%s is not '%s' or '%s'; using %s", st_env_name(id), v, usual, other, usual);
    return 0;
}

void st_config_load(void (*load_trace)(void), void (*load_output)(void))
{
    st_config.format =
        set_to(ST_ENV_ID_SEEKTRACE_FORMAT, "text", "json") ? ST_FORMAT_JSON : ST_FORMAT_TEXT;
    st_config.report = !set_to(ST_ENV_ID_SEEKTRACE_REPORT, "on", "off");
    st_config.symbolize_later = set_to(ST_ENV_ID_SEEKTRACE_SYMBOLIZE, "exit", "later");
    const char *v = ST_ENV(SEEKTRACE_STACK);
    st_config.stack = 1;
    if (v && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 0 || n > 16)
            st_warn("SEEKTRACE_STACK=%s is not a number of frames from 0 to 16; using 1", v);
        else
            st_config.stack = (int)n;
    }
    v = ST_ENV(SEEKTRACE_REPORT_FILES);
    st_config.report_files = ST_REPORT_FILES_DEFAULT;
    if (v && *v) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (strcmp(v, "all") == 0)
            st_config.report_files = 0;
        else if (*end || v[0] == '-' || n == 0 || n > 1000000)
            st_warn("SEEKTRACE_REPORT_FILES=%s is not 'all' or a number of files from 1 to "
                    "1000000; using %d", v, ST_REPORT_FILES_DEFAULT);
        else
            st_config.report_files = n;
    }
    v = ST_ENV(SEEKTRACE_LABELS);
    st_config.labels = labels_buf;
    st_config.labels_len = 0;
    if (v && *v) {
        size_t len = 0, at;
        const char *why = st_labels_add(v, labels_buf, sizeof labels_buf, &len, &at);
        if (why)
            st_warn("SEEKTRACE_LABELS=%s: %s (at byte %zu); no labels are recorded", v, why, at);
        else
            st_config.labels_len = (unsigned)len;
    }
    load_trace();
    v = ST_ENV(SEEKTRACE_BUFSIZE);
    uint64_t size;
    st_config.bufsize = 0;
    if (v && *v) {
        if (st_parse_size(v, &size) != 0 || size == 0 || size > (1ull << 30))
            st_warn("SEEKTRACE_BUFSIZE=%s is not a size from 1 to 1G (e.g. 4096, 128k); "
                    "buffers are left alone", v);
        else
            st_config.bufsize = size;
    }
    v = ST_ENV(SEEKTRACE_FADVISE);
    st_config.fadvise = -1;
    if (v && *v) {
        static const struct { const char *name; int advice; } advice[] = {
            {"normal", POSIX_FADV_NORMAL}, {"random", POSIX_FADV_RANDOM},
            {"sequential", POSIX_FADV_SEQUENTIAL}, {"noreuse", POSIX_FADV_NOREUSE},
        };
        for (size_t i = 0; i < sizeof advice / sizeof advice[0]; i++)
            if (strcmp(v, advice[i].name) == 0)
                st_config.fadvise = advice[i].advice;
        if (st_config.fadvise < 0)
            st_warn("SEEKTRACE_FADVISE=%s is not 'normal', 'random', 'sequential' or 'noreuse'; "
                    "files are left alone", v);
    }
    v = ST_ENV(SEEKTRACE_STORAGE);
    st_config.storage_per_file = 0;
    if (v && *v) {
        if (strcmp(v, "file") == 0)
            st_config.storage_per_file = 1;
        else if (strcmp(v, "process") != 0)
            st_warn("SEEKTRACE_STORAGE=%s is not 'process' or 'file'; using process", v);
    }
    load_output();
}
