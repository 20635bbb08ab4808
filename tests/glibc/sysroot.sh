#!/usr/bin/env bash
# sysroot.sh DEST SUITE — a sysroot made of Debian SUITE's C library, kernel
# headers, GCC runtime (libgcc, libstdc++) and the libraries seektrace builds
# against (elfutils, cmocka), extracted to DEST/SUITE, to build seektrace for
# that glibc and every newer one:
#     cmake -S . -B build-portable -DSEEKTRACE_GLIBC_SYSROOT=DEST/SUITE
# (README "Which glibc"). Uses a private apt configuration (debian_apt.sh):
# nothing is installed on the machine. A sysroot already extracted is kept.
# Prints SUITE GLIBC-VERSION DIR.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/debian_apt.sh"

if [ $# -ne 2 ]; then
  echo "usage: sysroot.sh DEST SUITE" >&2
  exit 2
fi
mkdir -p "$1"
dest=$(cd "$1" && pwd)
suite=$2
out=$dest/$suite

if [ ! -e "$out/.complete" ]; then
  rm -rf "$out"
  debian_update "$dest/.apt/$suite" "$suite"
  # The suite's own GCC major version: its libgcc_eh (an unwinder that needs
  # nothing newer than that glibc) and its libstdc++.
  gcc=$(debian_depends gcc | sed -n 's/^gcc-\([0-9][0-9]*\).*/\1/p' | head -1)
  [ -n "$gcc" ] || { echo "sysroot.sh: no GCC version found in $suite's gcc package" >&2; exit 1; }
  # -dev packages link to their runtime's .so files, which link to theirs:
  # the libraries libdw needs come too, for a program's link to resolve.
  debian_download libc6 libc6-dev linux-libc-dev \
                  "libgcc-$gcc-dev" libgcc-s1 "libstdc++-$gcc-dev" \
                  libdw-dev libdw1 libelf-dev libelf1 zlib1g-dev zlib1g liblzma-dev liblzma5 libbz2-1.0 \
                  libcmocka-dev libcmocka0
  for deb in "$debian_apt_dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$out"
  done
  # Links to absolute paths (libdl.so -> /lib/x86_64-linux-gnu/libdl.so.2)
  # would name the machine's files: made relative, inside the sysroot.
  find "$out" -type l -lname '/*' | while read -r link; do
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$out$(readlink "$link")")" "$link"
  done
  debian_version libc6 >"$out/.version"
  echo "$gcc" >"$out/.gcc"
  basename "$(dirname "$(find "$out/usr/lib" -name libc_nonshared.a | head -1)")" >"$out/.multiarch"
  debian_clean
  touch "$out/.complete"
fi
echo "$suite $(cat "$out/.version") $out"
