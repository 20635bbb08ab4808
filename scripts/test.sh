#!/usr/bin/env bash
# test.sh — build seektrace and run every test: the whole suite on a normal
# build (its strace comparisons under Debian 13's and sid's glibc too), then
# the core's unit tests and the reliability suite again on an ASan+UBSan
# build of the library, the tools and the core.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# The glibc matrix (tests/CMakeLists.txt): Debian's newer glibc, which the
# integration and model tests also run under, beside the machine's own.
"$SEEKTRACE_ROOT/tests/glibc/fetch.sh" "$BUILD_DIR/glibc" trixie sid
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)")

ASAN_DIR=${ASAN_BUILD_DIR:-$SEEKTRACE_ROOT/build-asan}
cmake -S "$SEEKTRACE_ROOT" -B "$ASAN_DIR" -DCMAKE_BUILD_TYPE=Debug -DSEEKTRACE_SANITIZE=ON >/dev/null
cmake --build "$ASAN_DIR" -j"$(nproc)"
cd "$ASAN_DIR"
ctest --output-on-failure -j"$(nproc)" -R '^(unit|reliability)\.' -E '\.lint\.'
