#!/usr/bin/env bash
# lint.sh — static analysis of the project's own code with the checked-in
# configurations: .clang-tidy (checks) and .cppcheck-suppressions (the few
# reviewed false positives, each with its reason). Any finding fails.
#   usage: lint.sh cppcheck|clang-tidy SOURCE_DIR BUILD_DIR
# Exit 77 (skipped) when the tool is not installed.
#
# The file list is the build's: every source under src/ and tools/ that
# BUILD_DIR/compile_commands.json compiles (CMAKE_EXPORT_COMPILE_COMMANDS is
# on in CMakeLists.txt), linted with that entry's own flags (clang-tidy) or
# include paths (cppcheck). A .c file there that the build does not compile
# fails the check: no file escapes it by not being listed.
set -uo pipefail
tool=$1 src=$2 build=$3
cd "$src" || exit 1
db=$build/compile_commands.json
[ -f "$db" ] || { echo "FAIL: no $db: configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON"; exit 1; }
# One line per file ("F path"), then one per include directory ("I dir").
listing=$(python3 - "$db" "$PWD" <<'PY'
import json, os, shlex, sys
db, root = sys.argv[1], os.path.realpath(sys.argv[2])
files, incs = set(), set()
for e in json.load(open(db)):
    path = os.path.relpath(os.path.realpath(os.path.join(e["directory"], e["file"])), root)
    if not (path.startswith("src/") or path.startswith("tools/")) or not path.endswith(".c"):
        continue
    files.add(path)
    args = e.get("arguments") or shlex.split(e["command"])
    for i, a in enumerate(args):
        d = args[i + 1] if a == "-I" and i + 1 < len(args) else a[2:] if a.startswith("-I") else None
        if d:
            incs.add(os.path.relpath(os.path.realpath(os.path.join(e["directory"], d)), root))
for f in sorted(files):
    print("F", f)
for d in sorted(incs):
    print("I", d)
PY
) || { echo "FAIL: cannot read $db"; exit 1; }
mapfile -t files < <(sed -n 's/^F //p' <<<"$listing")
mapfile -t includes < <(sed -n 's/^I /-I/p' <<<"$listing")
unbuilt=$(comm -23 <(find src tools -name '*.c' | sort) <(printf '%s\n' "${files[@]}"))
if [ -n "$unbuilt" ]; then
  echo "FAIL: not compiled by the build, so not linted:"
  echo "$unbuilt"
  exit 1
fi
case $tool in
cppcheck)
  command -v cppcheck >/dev/null || { echo "SKIP: cppcheck not installed"; exit 77; }
  # --library=gnu: glibc's extensions; the .def tables are included by the
  # sources. Only warnings and above: style is clang-format's business.
  out=$(cppcheck --quiet --std=c11 --platform=unix64 --library=gnu \
        --enable=warning,portability --inline-suppr --error-exitcode=1 \
        --suppressions-list=.cppcheck-suppressions -D__GNUC__ -D__x86_64__ -D_GNU_SOURCE \
        "${includes[@]}" "${files[@]}" 2>&1)
  status=$?
  ;;
clang-tidy)
  command -v clang-tidy >/dev/null || { echo "SKIP: clang-tidy not installed"; exit 77; }
  # Each file with the flags the build compiles it with (-p). The analyzer
  # runs in its shallow mode (less inlining, a smaller path budget): a sixth
  # of deep mode's time (65 against 400 CPU-seconds for the tree), and it
  # still finds what deep mode found here before (lifecycle_fds.c's NULL
  # close_range pointer, d8d36e4) plus one deep mode missed (baseline_diff.c's
  # describe). SEEKTRACE_LINT_ANALYZER=deep runs the deep analysis.
  mode=${SEEKTRACE_LINT_ANALYZER:-shallow}
  case $mode in shallow|deep) ;; *) echo "FAIL: SEEKTRACE_LINT_ANALYZER=$mode (shallow or deep)"; exit 2 ;; esac
  out=$(printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 \
        clang-tidy --quiet -p "$build" --extra-arg=-Xclang --extra-arg=-analyzer-config \
        --extra-arg=-Xclang --extra-arg="mode=$mode" 2>&1; echo "exit:$?")
  status=0
  grep -q '^exit:0$' <<<"$out" || status=1
  out=$(grep -v '^exit:' <<<"$out" | grep -v 'warnings generated\.$')
  ;;
*) echo "usage: lint.sh cppcheck|clang-tidy SOURCE_DIR BUILD_DIR"; exit 2 ;;
esac
[ -n "$out" ] && echo "$out"
[ "$status" -eq 0 ] && echo "PASS: $tool clean on ${#files[@]} files" || echo "FAIL: $tool findings above"
exit "$status"
