#!/usr/bin/env bash
# demo.sh — build seektrace and run the 2006 fseek workload under it, once
# with glibc's default stream buffer and once with a 128 KiB user buffer,
# then asks seektrace whatif what every buffer size would have cost.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

data=${TMPDIR:-/tmp}/seektrace-demo.dat
lib=$BUILD_DIR/libseektrace.so
demo=$BUILD_DIR/demo/fseek2006

echo
echo "== 200,000 random fseek + 16-byte fread on a 4 MiB file, glibc's default buffer =="
LD_PRELOAD=$lib "$demo" "$data" >/dev/null
echo
echo "== the same with a 128 KiB buffer (st_blksize on the 2006 ReiserFS) =="
LD_PRELOAD=$lib "$demo" "$data" --buffer 131072 >/dev/null
echo
echo "== what every buffer size would cost, predicted from one traced run (seektrace whatif) =="
trace_dir=$(mktemp -d "${TMPDIR:-/tmp}/seektrace-demo-trace.XXXXXX")
trap 'rm -rf "$trace_dir"' EXIT
SEEKTRACE_TRACE=$trace_dir SEEKTRACE_OUTPUT=/dev/null LD_PRELOAD=$lib \
    "$demo" "$data" --buffer 131072 --seeks 20000 >/dev/null
"$BUILD_DIR/seektrace" whatif --file "$data" "$trace_dir"
