#!/usr/bin/env bash
# lint.sh — static analysis of src/ with the checked-in configurations:
# .clang-tidy (checks) and .cppcheck-suppressions (the few reviewed false
# positives, each with its reason). Any finding fails.
#   usage: lint.sh cppcheck|clang-tidy SOURCE_DIR BUILD_DIR
# Exit 77 (skipped) when the tool is not installed.
set -uo pipefail
tool=$1 src=$2 build=$3
cd "$src" || exit 1
mapfile -t files < <(ls src/core/*.c src/preload/*/*.c src/tools/*.c 2>/dev/null | sort)
# The preload library's folders each give their headers by name.
mapfile -t preload_dirs < <(printf -- '-I%s\n' src/preload/*/)
includes=(-Isrc/core "${preload_dirs[@]}" -Iinclude -I"$build")
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
  # Files before "--", compiler flags after it.
  out=$(printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 sh -c \
        'clang-tidy --quiet "$@" -- -std=gnu11 -D_GNU_SOURCE '"${includes[*]}" _ \
        2>&1; echo "exit:$?")
  status=0
  grep -q '^exit:0$' <<<"$out" || status=1
  out=$(grep -v '^exit:' <<<"$out" | grep -v 'warnings generated\.$')
  ;;
*) echo "usage: lint.sh cppcheck|clang-tidy SOURCE_DIR BUILD_DIR"; exit 2 ;;
esac
[ -n "$out" ] && echo "$out"
[ "$status" -eq 0 ] && echo "PASS: $tool clean on ${#files[@]} files" || echo "FAIL: $tool findings above"
exit "$status"
