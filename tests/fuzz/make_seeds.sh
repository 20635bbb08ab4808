#!/bin/sh
# Seed corpus for the reader's fuzzer: small real traces of a few kinds
# (stdio and POSIX reads, threads, a partial one, a truncated one, forks, files
# folded).
#   make_seeds.sh OUT_DIR LIB DEMO CRASHER FORKER
set -eu
out=$1 lib=$2 demo=$3 crasher=$4 forker=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" "$out.work"
mkdir -p "$out" "$out.work"
cd "$out.work"
head -c 262144 /dev/urandom > data
# A sanitized build's library needs the ASan runtime preloaded first.
preload=$lib
[ -n "${SEEKTRACE_TEST_PRELOAD_PREFIX:-}" ] && preload="$SEEKTRACE_TEST_PRELOAD_PREFIX:$lib"
run() { SEEKTRACE_TRACE="$out.work/t" SEEKTRACE_OUTPUT="$out.work/r.%p" LD_PRELOAD="$preload" "$@" || true; }
run "$demo" "$out.work/d.dat" --seeks 40 >/dev/null
run "$demo" "$out.work/d.dat" --seeks 30 --buffer 65536 >/dev/null
run "$crasher" data 20 ok 2
run "$crasher" data 10 kill
SEEKTRACE_TRACE_MAX=64k run "$demo" "$out.work/d.dat" --seeks 3000 >/dev/null
run "$forker" data 2
# A process that folds files away while traced (a file a row, the 70 more
# than the 64 closed files fold.c lets wait): rows chunks and the footer's
# ROWS record (format 5.0).
i=0
while [ $i -lt 70 ]; do echo $i > "f$i"; i=$((i + 1)); done
SEEKTRACE_REPORT_FILES=1 run cat f* >/dev/null
n=0
for f in t/*.sktrace; do
  n=$((n + 1))
  cp "$f" "$out/seed$n.sktrace"
done
cd "$out"
rm -rf "$out.work"
test "$n" -ge 6
# The same events in 4 KiB chunks where they fit: the fuzzer runs faster on them.
if command -v python3 >/dev/null; then
  python3 "$here/compact_seeds.py" "$out"/seed*.sktrace
fi
