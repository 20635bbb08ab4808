#!/usr/bin/env bash
# test.sh — build seektrace and run every test: the whole suite on a normal
# build, then the core's unit tests and the reliability suite again on an
# ASan+UBSan build of the library, the tools and the core.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)")

ASAN_DIR=${ASAN_BUILD_DIR:-$SEEKTRACE_ROOT/build-asan}
cmake -S "$SEEKTRACE_ROOT" -B "$ASAN_DIR" -DCMAKE_BUILD_TYPE=Debug -DSEEKTRACE_SANITIZE=ON >/dev/null
cmake --build "$ASAN_DIR" -j"$(nproc)"
cd "$ASAN_DIR"
ctest --output-on-failure -j"$(nproc)" -R '^(unit|reliability)\.' -E '\.lint\.'
