/* cmd_load_unavailable.c — `seektrace load` in a command built without
 * libcurl: the portable build, whose sysroot (Debian 11's C library and
 * elfutils, tests/glibc/sysroot.sh) has no libcurl to link (README, "Which
 * glibc"). The rows themselves can still be had and posted another way. */
#include <stdio.h>
#include <string.h>

#include "tool.h"

static const char why[] = "this seektrace was built without libcurl (the portable build); "
                          "write the rows with 'seektrace export --format clickhouse' and "
                          "post them with clickhouse-client, or use a normal build";

int cmd_load(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: seektrace load --clickhouse URL TRACE|DIR ...\n\nNot in this build: %s.\n",
               why);
        return 0;
    }
    return tool_cmd_error("load", "%s", why);
}
