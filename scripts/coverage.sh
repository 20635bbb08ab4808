#!/usr/bin/env bash
# coverage.sh — build seektrace with gcov instrumentation (SEEKTRACE_COVERAGE:
# the library, the core, the trace library and the command; never the programs
# the tests trace), run the normal suite, and print line coverage per folder.
# docs/coverage.md has the last figures and what this leaves out.
#
#   ./scripts/coverage.sh              # into build-coverage/ (COVERAGE_BUILD_DIR)
set -euo pipefail
# gcovr for the figures; chromium for html.browser, as scripts/test.sh.
SEEKTRACE_EXTRA_PACKAGES="gcovr chromium ${SEEKTRACE_EXTRA_PACKAGES:-}"
SEEKTRACE_CMAKE_ARGS=(-DSEEKTRACE_COVERAGE=ON)
BUILD_DIR=${COVERAGE_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-coverage}
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
"$SEEKTRACE_ROOT/tests/glibc/fetch.sh" "$BUILD_DIR/glibc" trixie sid

# Tests a coverage build cannot pass, because libgcov's own writes at the
# traced program's exit meet the very limits the test imposes on the program
# (RLIMIT_FSIZE, RLIMIT_NOFILE, closed or unwritable descriptors, another user
# who cannot write the .gcda files), or are slow enough under gcov to hit the
# hang guard (fork_thread_handler); and the cases that check a run's exact
# totals (the what-if sweeps, cli.small_fixes' singular counts), which then
# include libgcov's own .gcda updates.
# They run in the normal build.
excluded=(
  reliability.hostile.trace_rlimit_fsize
  reliability.hostile.rlimit_fsize
  reliability.hostile.rlimit_nofile
  reliability.config.unwritable_output_closed_stderr
  reliability.limits.trace_file_size_limit
  reliability.procs.fork_thread_handler
  cli.run_switch_user
  cli.small_fixes
  'whatif.sweep_(demo_2006|text_table)'
  whatif.demo_2006
  'whatif.workload_.*'
)
pattern="^($(IFS='|'; echo "${excluded[*]}"))\$"

find "$BUILD_DIR" -name '*.gcda' -delete
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" -E "$pattern")

echo
echo "Line coverage by folder (gcovr; tests, demo and bench excluded):"
gcovr --gcov-ignore-parse-errors --root "$SEEKTRACE_ROOT" --object-directory "$BUILD_DIR" \
      --filter "$SEEKTRACE_ROOT/src/" --filter "$SEEKTRACE_ROOT/tools/" \
      --json "$BUILD_DIR/coverage-detail.json" --json-summary "$BUILD_DIR/coverage.json" >/dev/null
python3 - "$SEEKTRACE_ROOT" "$BUILD_DIR" <<'PY'
import collections, json, os, sys
root, build = sys.argv[1:]
by = collections.defaultdict(lambda: [0, 0])
for f in json.load(open(os.path.join(build, "coverage.json")))["files"]:
    folder = os.path.dirname(f["filename"])
    by[folder][0] += f["line_covered"]
    by[folder][1] += f["line_total"]
total = [sum(v[0] for v in by.values()), sum(v[1] for v in by.values())]
for folder, (hit, n) in sorted(by.items()) + [("all", total)]:
    print(f"  {folder:24s} {100.0 * hit / max(n, 1):5.1f} %  ({hit}/{n} lines)")

def extent(lines, first):
    """Source lines of the function starting at line `first` (1-based), to its closing brace."""
    depth, opened = 0, False
    for n in range(first - 1, len(lines)):
        depth += lines[n].count("{") - lines[n].count("}")
        opened = opened or "{" in lines[n]
        if opened and depth <= 0:
            return n - first + 2
    return 0

print("\nFunctions of more than 40 lines that no test runs:")
for f in json.load(open(os.path.join(build, "coverage-detail.json")))["files"]:
    with open(os.path.join(root, f["file"]), encoding="utf-8", errors="replace") as src:
        lines = src.readlines()
    for fn in f["functions"]:
        size = extent(lines, fn["lineno"])
        if fn["execution_count"] == 0 and size > 40:
            print(f"  {f['file']}:{fn['lineno']} {fn['name']} ({size} lines)")
PY
echo "Per-function detail: $BUILD_DIR/coverage-detail.json"
