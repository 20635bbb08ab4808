#!/usr/bin/env bash
# setup.sh — install what seektrace needs from Debian (only what is missing)
# and build it. Sourced by demo.sh and test.sh; BUILD_DIR and BUILD_TYPE may
# be set by the caller.
set -euo pipefail

SEEKTRACE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SEEKTRACE_ROOT/build}
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}

# Build tools and libraries, the programs the tests run under and beside
# the preload, valgrind for the tools' memcheck, clang for the fuzz
# harness, and for the package tests (tests/package) zsh, whose completion
# they load, and dpkg-dev, whose dpkg-shlibdeps gives the .deb its
# dependencies. libcurl4-openssl-dev: seektrace load's HTTP client.
PACKAGES=(
  gcc g++ make cmake pkg-config
  libdw-dev libelf-dev libcmocka-dev libcurl4-openssl-dev
  strace valgrind python3 binutils file perl gawk sed grep tar gzip coreutils git sqlite3
  jq xz-utils bzip2 cppcheck clang-tidy
  clang libclang-rt-14-dev
  zsh dpkg-dev
)
# Callers that need more (scripts/coverage.sh: gcovr) name it here.
read -r -a extra_packages <<< "${SEEKTRACE_EXTRA_PACKAGES:-}"
PACKAGES+=("${extra_packages[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "seektrace: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  echo "seektrace: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Other installs may hold dpkg's lock for a while: wait for it.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# SEEKTRACE_CMAKE_ARGS: an array of extra configure options from the caller.
cmake -S "$SEEKTRACE_ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  ${SEEKTRACE_CMAKE_ARGS[@]+"${SEEKTRACE_CMAKE_ARGS[@]}"} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
