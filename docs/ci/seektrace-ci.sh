#!/bin/sh
# seektrace-ci.sh — the commands of docs/ci.md's recipes: run a test suite
# under seektrace and save its baseline, or check it against one.
#
#   seektrace-ci.sh save  BASELINE -- TEST-COMMAND...   # on the default branch
#   seektrace-ci.sh check BASELINE -- TEST-COMMAND...   # on a change
#
# The test command's own exit status comes first: a failing suite fails the
# job whatever its I/O. check then exits 1 on a regression against BASELINE
# (seektrace check --baseline), printing a line for each, and writes the
# results for code review beside it: seektrace.sarif (SARIF 2.1.0) and
# gl-code-quality.json (GitLab). Environment:
#   SEEKTRACE          the seektrace command (default: seektrace on PATH)
#   SEEKTRACE_CI_ROOT  the checkout, whose paths are keyed {src} and whose
#                      sources the annotations name (default: the current
#                      directory)
#   SEEKTRACE_CI_OUT   where seektrace.sarif and gl-code-quality.json go
#                      (default: the current directory)
#   SEEKTRACE_CI_ARGS  more options for check (e.g. --max-growth 20)
set -eu
usage() { echo "usage: seektrace-ci.sh save|check BASELINE -- TEST-COMMAND..." >&2; exit 2; }
[ $# -ge 4 ] && [ "$3" = "--" ] || usage
action=$1 baseline=$2
shift 3
st=${SEEKTRACE:-seektrace}
root=$(cd "${SEEKTRACE_CI_ROOT:-.}" && pwd -P)
out=${SEEKTRACE_CI_OUT:-.}
traces=$(mktemp -d "${TMPDIR:-/tmp}/seektrace-ci.XXXXXX")
trap 'rm -rf "$traces"' EXIT

"$st" run -q --trace "$traces/run" -- "$@" || { echo "seektrace-ci: the tests failed" >&2; exit 1; }
keys="--path-prefix src=$root"
case $action in
save)
  # shellcheck disable=SC2086
  "$st" baseline save $keys -o "$baseline" "$traces/run"
  echo "seektrace-ci: baseline written to $baseline"
  ;;
check)
  # shellcheck disable=SC2086
  for format in sarif gitlab; do
    file=$out/seektrace.sarif
    [ "$format" = gitlab ] && file=$out/gl-code-quality.json
    rc=0
    "$st" check --baseline "$baseline" $keys ${SEEKTRACE_CI_ARGS:-} --source-root "$root" \
      --format "$format" "$traces/run" > "$file" || rc=$?
    [ "$rc" -le 1 ] || exit "$rc"
  done
  # shellcheck disable=SC2086
  "$st" check --baseline "$baseline" $keys ${SEEKTRACE_CI_ARGS:-} "$traces/run"
  ;;
*) usage ;;
esac
