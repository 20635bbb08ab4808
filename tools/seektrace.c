/* seektrace.c — the seektrace command: run, report, check, export, load, whatif,
 * sweep, calibrate, baseline.
 *
 * One file per subcommand (cmd_*.c); what they share is in tool.h. */
#include <stdio.h>
#include <string.h>

#include "tool.h"

#ifndef SEEKTRACE_VERSION
#define SEEKTRACE_VERSION "0"
#endif

static const char usage[] =
    "usage: seektrace COMMAND [ARGS...]\n"
    "\n"
    "Measures what a program's reads cost the kernel against what it asked for.\n"
    "\n"
    "  run [OPTIONS] -- CMD [ARGS]   run CMD and every process it starts under the\n"
    "                                library; print one report over them all\n"
    "  report TRACE|DIR|JSON ...     the report of recorded traces (or JSON reports)\n"
    "  check LIMITS TRACE|DIR|JSON   exit 1 when a file's reads exceed a limit, or\n"
    "                                grew against --baseline (CI)\n"
    "  baseline save TRACE|DIR ...   a run's figures, to commit and check against\n"
    "  export --format F TRACE ...   events as Chrome trace JSON, CSV or JSON lines;\n"
    "                                runs as rows for ClickHouse\n"
    "  load --clickhouse URL DIR     runs' traces into ClickHouse, for SQL over\n"
    "                                jobs and machines (docs/fleet.md)\n"
    "  html TRACE|DIR|JSON -o FILE   the report as one self-contained HTML page\n"
    "  whatif [--sizes L] TRACE ...  predict each buffer size's syscalls, bytes, time\n"
    "  sweep [--sizes L] -- CMD      run CMD at each buffer size and measure\n"
    "  calibrate                     measure this machine's syscall and copy costs\n"
    "\n"
    "\n"
    "  --help, -h                    this text\n"
    "  --version                     seektrace's version and its trace format\n"
    "\n"
    "'seektrace COMMAND --help' describes each; 'man seektrace' all of them.\n"
    "Exit status: 0 success, 1 a check failed, 2 bad usage or unreadable input,\n"
    "3 --keep-going skipped unreadable inputs;\n"
    "run exits with the command's status; sweep with 1 when the command failed.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_BAD_INPUT;
    }
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(c, "--version")) {
        printf("seektrace %s (trace format %d.%d)\n", SEEKTRACE_VERSION, ST_TRACE_VERSION_MAJOR,
               ST_TRACE_VERSION_MINOR);
        return 0;
    }
    if (!strcmp(c, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(c, "report"))
        return cmd_report(argc - 1, argv + 1);
    if (!strcmp(c, "check"))
        return cmd_check(argc - 1, argv + 1);
    if (!strcmp(c, "baseline"))
        return cmd_baseline(argc - 1, argv + 1);
    if (!strcmp(c, "export"))
        return cmd_export(argc - 1, argv + 1);
    if (!strcmp(c, "load"))
        return cmd_load(argc - 1, argv + 1);
    if (!strcmp(c, "sweep"))
        return cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(c, "html"))
        return cmd_html(argc - 1, argv + 1);
    if (!strcmp(c, "whatif"))
        return cmd_whatif(argc - 1, argv + 1);
    if (!strcmp(c, "calibrate"))
        return cmd_calibrate(argc - 1, argv + 1);
    fprintf(stderr, "seektrace: unknown command '%s'; try 'seektrace --help'\n", c);
    return EXIT_BAD_INPUT;
}
