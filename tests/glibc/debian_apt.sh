# debian_apt.sh — sourced by fetch.sh and sysroot.sh: Debian packages of one
# suite, downloaded with a private apt configuration under APT_DIR, so the
# machine's sources, lists, cache and package database are never touched.
# SEEKTRACE_DEBIAN_MIRROR overrides the mirror.

# debian_update APT_DIR SUITE: a fresh APT_DIR whose package lists are
# SUITE's; the other functions use it.
debian_update() {
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local mirror=${SEEKTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  debian_apt_dir=$1
  rm -rf "$debian_apt_dir"
  mkdir -p "$debian_apt_dir/lists/partial" "$debian_apt_dir/cache/archives/partial" \
           "$debian_apt_dir/debs"
  echo "deb [signed-by=$keyring] $mirror $2 main" >"$debian_apt_dir/sources.list"
  # Only the package lists: a machine's apt.conf.d may ask for more (apt-file
  # adds the Contents indexes, tens of MB that a mirror in sync fails on).
  debian_apt_opts=(-q -o "Dir::Etc::SourceList=$debian_apt_dir/sources.list"
                   -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$debian_apt_dir/lists"
                   -o "Dir::Cache=$debian_apt_dir/cache" -o Dir::State::Status=/dev/null
                   -o "APT::Architecture=$(dpkg --print-architecture)" -o APT::Sandbox::User=root
                   -o Acquire::Languages=none
                   -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false)
  apt-get "${debian_apt_opts[@]}" update >"$debian_apt_dir/update.log" 2>&1 ||
    { echo "${0##*/}: apt-get update for $2 failed (see $debian_apt_dir/update.log)" >&2; return 1; }
}

# debian_download PACKAGE...: the packages' .deb files (not their
# dependencies) into APT_DIR/debs.
debian_download() {
  (cd "$debian_apt_dir/debs" && apt-get "${debian_apt_opts[@]}" download "$@") \
    >>"$debian_apt_dir/download.log" 2>&1 ||
    { echo "${0##*/}: downloading $* failed (see $debian_apt_dir/download.log)" >&2; return 1; }
}

# debian_depends PACKAGE: the first line of PACKAGE's dependencies.
debian_depends() {
  apt-cache "${debian_apt_opts[@]}" depends "$1" | sed -n 's/^ *Depends: //p'
}

# debian_version PACKAGE: the version of PACKAGE's downloaded .deb.
debian_version() {
  ls "$debian_apt_dir"/debs/"$1"_*.deb | sed "s/.*\/$1_\([^_]*\)_.*/\1/"
}

# debian_clean: removes the lists, cache and downloads (the logs stay).
debian_clean() {
  rm -rf "$debian_apt_dir/lists" "$debian_apt_dir/cache" "$debian_apt_dir/debs"
}
