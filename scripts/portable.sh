#!/usr/bin/env bash
# portable.sh [CMAKE OPTION...] — libseektrace.so and the seektrace command
# built against Debian 11's glibc 2.31 (SEEKTRACE_PORTABLE_SUITE=bullseye),
# so that they run on it and on every newer glibc: RHEL 9, Ubuntu 20.04 and
# 22.04 as well as the current distributions (README "Which glibc"). Builds
# in build-portable (PORTABLE_BUILD_DIR), with a sysroot of that suite's
# packages that tests/glibc/sysroot.sh downloads under it (nothing is
# installed); the options go to cmake. Needs gcc, g++, cmake and pkg-config
# (scripts/setup.sh installs them).
set -euo pipefail

SEEKTRACE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORTABLE_DIR=${PORTABLE_BUILD_DIR:-$SEEKTRACE_ROOT/build-portable}
suite=${SEEKTRACE_PORTABLE_SUITE:-bullseye}

made=$("$SEEKTRACE_ROOT/tests/glibc/sysroot.sh" "$PORTABLE_DIR/sysroot" "$suite")
read -r _ glibc sysroot <<<"$made"
cmake -S "$SEEKTRACE_ROOT" -B "$PORTABLE_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSEEKTRACE_GLIBC_SYSROOT="$sysroot" "$@" >/dev/null
cmake --build "$PORTABLE_DIR" -j"$(nproc)"
echo "seektrace: $PORTABLE_DIR/libseektrace.so and $PORTABLE_DIR/seektrace run on glibc ${glibc%%-*} and newer"
