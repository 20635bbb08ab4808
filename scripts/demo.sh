#!/usr/bin/env bash
# demo.sh — build seektrace and run the 2006 fseek workload under it, once
# with glibc's default stream buffer and once with a 128 KiB user buffer
# (traced: its page is written with seektrace html), then asks seektrace
# whatif what every buffer size would have cost.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

data=${TMPDIR:-/tmp}/seektrace-demo.dat
page=${TMPDIR:-/tmp}/seektrace-demo.html
lib=$BUILD_DIR/libseektrace.so
demo=$BUILD_DIR/demo/fseek2006
trace_dir=$(mktemp -d "${TMPDIR:-/tmp}/seektrace-demo-trace.XXXXXX")
page_dir=$(mktemp -d "${TMPDIR:-/tmp}/seektrace-demo-page.XXXXXX")
trap 'rm -rf "$trace_dir" "$page_dir"' EXIT

echo
echo "== 200,000 random fseek + 16-byte fread on a 4 MiB file, glibc's default buffer =="
LD_PRELOAD=$lib "$demo" "$data" >/dev/null
echo
echo "== the same with a 128 KiB buffer (st_blksize on the 2006 ReiserFS) =="
SEEKTRACE_TRACE=$page_dir LD_PRELOAD=$lib "$demo" "$data" --buffer 131072 >/dev/null
echo
echo "== what every buffer size would cost, predicted from one traced run (seektrace whatif) =="
SEEKTRACE_TRACE=$trace_dir SEEKTRACE_OUTPUT=/dev/null LD_PRELOAD=$lib \
    "$demo" "$data" --buffer 131072 --seeks 20000 >/dev/null
"$BUILD_DIR/seektrace" whatif --file "$data" "$trace_dir"
echo
echo "== the 128 KiB run as one page: every read, the waste by line, every buffer size =="
"$BUILD_DIR/seektrace" html "$page_dir" -o "$page"
echo "seektrace html wrote $page: open it in any browser (it needs no network)"
