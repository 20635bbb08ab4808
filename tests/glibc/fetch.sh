#!/usr/bin/env bash
# fetch.sh DEST SUITE... — Debian's libc6 of each suite (trixie, sid,
# bullseye, ...), extracted to DEST/SUITE, for running the tests under
# another glibc through its own loader:
#     DEST/SUITE/ld-linux-x86-64.so.2 --library-path DEST/SUITE PROGRAM ...
# Uses a private apt configuration under DEST/.apt: the machine's sources,
# lists and cache are never touched. A suite already extracted is kept.
# Prints one line per suite: SUITE VERSION DIR.
set -euo pipefail

mkdir -p "$1"
dest=$(cd "$1" && pwd)
shift
arch=$(dpkg --print-architecture)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=${SEEKTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

for suite in "$@"; do
  out=$dest/$suite
  if [ ! -e "$out/.complete" ]; then
    apt_dir=$dest/.apt/$suite
    rm -rf "$apt_dir" "$out"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$out"
    echo "deb [signed-by=$keyring] $mirror $suite main" >"$apt_dir/sources.list"
    apt_opts=(-q -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
              -o Dir::State::Status=/dev/null -o "APT::Architecture=$arch"
              -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 ||
      { echo "fetch.sh: apt-get update for $suite failed (see $apt_dir/update.log)" >&2; exit 1; }
    (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download libc6) >"$apt_dir/download.log" 2>&1 ||
      { echo "fetch.sh: downloading libc6 of $suite failed (see $apt_dir/download.log)" >&2; exit 1; }
    dpkg-deb -x "$apt_dir"/debs/libc6_*.deb "$apt_dir/root"
    # One flat directory: the loader, libc and its siblings.
    libdir=$(dirname "$(find "$apt_dir/root" -name 'libc.so.6' | head -1)")
    cp -a "$libdir"/. "$out"/
    ls "$apt_dir"/debs/libc6_*.deb | sed 's/.*libc6_\([^_]*\)_.*/\1/' >"$out/.version"
    rm -rf "$apt_dir/root" "$apt_dir/cache" "$apt_dir/lists" "$apt_dir/debs"
    touch "$out/.complete"
  fi
  echo "$suite $(cat "$out/.version") $out"
done
