#!/usr/bin/env bash
# fetch.sh DEST SUITE... — Debian's libc6 of each suite (trixie, sid,
# bullseye, ...), extracted to DEST/SUITE, for running the tests under
# another glibc through its own loader:
#     DEST/SUITE/ld-linux-x86-64.so.2 --library-path DEST/SUITE PROGRAM ...
# Uses a private apt configuration under DEST/.apt (debian_apt.sh): the
# machine's sources, lists and cache are never touched. A suite already
# extracted is kept. Prints one line per suite: SUITE VERSION DIR.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/debian_apt.sh"

mkdir -p "$1"
dest=$(cd "$1" && pwd)
shift

for suite in "$@"; do
  out=$dest/$suite
  if [ ! -e "$out/.complete" ]; then
    apt_dir=$dest/.apt/$suite
    rm -rf "$out"
    mkdir -p "$out"
    debian_update "$apt_dir" "$suite"
    debian_download libc6
    dpkg-deb -x "$apt_dir"/debs/libc6_*.deb "$apt_dir/root"
    # One flat directory: the loader, libc and its siblings.
    libdir=$(dirname "$(find "$apt_dir/root" -name 'libc.so.6' | head -1)")
    cp -a "$libdir"/. "$out"/
    debian_version libc6 >"$out/.version"
    rm -rf "$apt_dir/root"
    debian_clean
    touch "$out/.complete"
  fi
  echo "$suite $(cat "$out/.version") $out"
done
