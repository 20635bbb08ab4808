#!/usr/bin/env bash
# test.sh — build seektrace and run every test: the whole suite on a normal
# build (its strace comparisons under Debian 13's and sid's glibc too), the
# strace comparisons again on the portable build (built against Debian 11's
# glibc 2.31) under 2.31, the machine's 2.36 and 2.43, then the core's
# unit tests, the reliability suite and the html pages again on an
# ASan+UBSan build of the library, the tools and the core, and the
# reliability cases ASan cannot run beside on an UBSan-only build.
set -euo pipefail
# html.browser (tests/html) renders pages in Debian's chromium: the suite's
# alone (the build does not need it), installed by setup.sh when missing.
export SEEKTRACE_EXTRA_PACKAGES="${SEEKTRACE_EXTRA_PACKAGES:-} chromium"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# Where the time goes, one line a phase (bash's SECONDS counts from the start).
phase_done() { echo "seektrace test: $1 done at ${SECONDS} s" >&2; }
phase_done "set-up and build"
# The fleet tests (tests/fleet) run a real ClickHouse server: Debian's,
# installed only when missing (a large package, not needed to build).
if ! dpkg-query -W -f='${Status}' clickhouse-server 2>/dev/null | grep -q "install ok installed" ||
   ! dpkg-query -W -f='${Status}' clickhouse-client 2>/dev/null | grep -q "install ok installed"; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "seektrace test: installing clickhouse-server clickhouse-client (tests/fleet)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
      clickhouse-server clickhouse-client >/dev/null
    cmake "$BUILD_DIR" >/dev/null # tests/fleet registers its tests once the server is there
  else
    echo "seektrace test: clickhouse-server is missing (run as root, or install it):" \
         "fleet.clickhouse will fail" >&2
  fi
fi
# The glibc matrix (tests/CMakeLists.txt): Debian's newer glibc, which the
# integration and model tests also run under, beside the machine's own, and
# Debian 11's older one for the portable build.
"$SEEKTRACE_ROOT/tests/glibc/fetch.sh" "$BUILD_DIR/glibc" trixie sid bullseye
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)")
phase_done "normal suite"

# The portable build (scripts/portable.sh, README "Which glibc"): its library
# and test programs under 2.31, the machine's 2.36 and sid's 2.43 (trixie's
# 2.41 lies between the last two and the normal build ran under it); the
# model's validation under 2.31 (the normal build ran it under the others,
# and its programs do not differ).
PORTABLE_DIR=${PORTABLE_BUILD_DIR:-$SEEKTRACE_ROOT/build-portable}
PORTABLE_BUILD_DIR=$PORTABLE_DIR "$SEEKTRACE_ROOT/scripts/portable.sh" \
  -DSEEKTRACE_GLIBC_SUITES="bullseye;sid" -DSEEKTRACE_GLIBC_DIR="$BUILD_DIR/glibc"
(cd "$PORTABLE_DIR" && ctest --output-on-failure -j"$(nproc)" \
   -E '^(model\.validate|glibc\.(trixie|sid)\.model\.validate)$')
phase_done "portable build and suite"

# Only what the unit, reliability and html tests run is built: the library,
# the command, the demo program, the trace file's unit tests and the forker
# (tests/cli), and the programs of tests/unit and tests/reliability (the
# whole tree took a third of this phase).
ASAN_DIR=${ASAN_BUILD_DIR:-$SEEKTRACE_ROOT/build-asan}
cmake -S "$SEEKTRACE_ROOT" -B "$ASAN_DIR" -DCMAKE_BUILD_TYPE=Debug -DSEEKTRACE_SANITIZE=ON >/dev/null
cmake --build "$ASAN_DIR" -j"$(nproc)" --target seektrace seektrace_cli fseek2006 \
  test_trace_codec test_trace_reader test_trace_model cli_forker
make -C "$ASAN_DIR/tests/unit" -j"$(nproc)" --no-print-directory
make -C "$ASAN_DIR/tests/reliability" -j"$(nproc)" --no-print-directory
cd "$ASAN_DIR"
ctest --output-on-failure -j"$(nproc)" -R '^(unit|reliability|html)\.' -E '\.lint\.'
phase_done "ASan build and suite"

# The reliability cases ASan cannot run beside (label asan-skip) under UBSan
# alone: only the library, the command and the reliability programs are built.
UBSAN_DIR=${UBSAN_BUILD_DIR:-$SEEKTRACE_ROOT/build-ubsan}
cmake -S "$SEEKTRACE_ROOT" -B "$UBSAN_DIR" -DCMAKE_BUILD_TYPE=Debug -DSEEKTRACE_SANITIZE=ON \
  -DSEEKTRACE_SANITIZERS=undefined >/dev/null
cmake --build "$UBSAN_DIR" -j"$(nproc)" --target seektrace seektrace_cli fseek2006
make -C "$UBSAN_DIR/tests/reliability" -j"$(nproc)" --no-print-directory
cd "$UBSAN_DIR"
ctest --output-on-failure -j"$(nproc)" -L asan-skip
phase_done "UBSan build and suite"
