#!/usr/bin/env bash
# demo.sh — build seektrace and run the 2006 fseek workload under it, once
# with glibc's default stream buffer and once with a 128 KiB user buffer.
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
