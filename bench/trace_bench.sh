#!/bin/sh
# trace_bench.sh — what recording traces costs, and how fast they are read.
#
#   bench/trace_bench.sh BUILD_DIR [WORK_DIR]
#
# Prints the figures docs/trace-files.md quotes:
#   1. the writer: the demo (200,000 fseek + fread(16)) and a call-heavy
#      loop (fread of 16 bytes, nearly all inside the buffer: no syscall, only
#      events) without the library, with it, and with SEEKTRACE_TRACE; bytes
#      per event and events per second;
#   2. the reader: report and export over a 10-million-event trace (time,
#      peak memory);
#   3. merging: report over a directory of 1,000 process traces.
# Each timing is the median of 3 runs. Needs the build's demo, workloads and
# the seektrace command; takes about two minutes on 2 cores.
set -eu
build=$(cd "$1" && pwd)
work=${2:-${TMPDIR:-/tmp}/seektrace-trace-bench}
lib=$build/libseektrace.so
st=$build/seektrace
demo=$build/demo/fseek2006
fread_seq=$build/tests/wl_fread_seq
rm -rf "$work"
mkdir -p "$work"
cd "$work"
head -c 4194304 /dev/urandom > data.bin

# median of three wall-clock timings of "$@" (seconds)
median() {
  for i in 1 2 3; do
    /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1
  done | sort -n | sed -n 2p
}
peak() { /usr/bin/time -f "%e s, %M KiB peak" "$@" 2>&1 >/dev/null | tail -1; }

echo "## writer"
for w in "demo:$demo $work/d.dat" "fread16:$fread_seq $work/data.bin 16 0"; do
  name=${w%%:*} cmd=${w#*:}
  $cmd >/dev/null 2>&1 || true # create the demo's file
  t0=$(median env $cmd)
  t1=$(median env SEEKTRACE_OUTPUT=$work/rep.%p LD_PRELOAD=$lib $cmd)
  rm -rf t; t2=$(median sh -c "rm -rf $work/t; SEEKTRACE_OUTPUT=$work/rep.%p SEEKTRACE_TRACE=$work/t LD_PRELOAD=$lib $cmd")
  stats=$($st report --stats t/*.sktrace | head -1)
  events=$(echo "$stats" | sed 's/.*complete, \([0-9]*\) events.*/\1/')
  bpe=$(echo "$stats" | sed 's/.*(\([0-9.]*\) bytes\/event.*/\1/')
  echo "$name: plain ${t0}s, library ${t1}s, library+trace ${t2}s; $events events, $bpe bytes/event;" \
       "$(echo "$events $t2 $t1" | awk '{ d = $2 - $3; if (d > 0) printf "%.0f ns per event recorded, %.1f M events/s", d * 1e9 / $1, $1 / $2 / 1e6; else printf "%.1f M events/s", $1 / $2 / 1e6 }')"
done

echo "## reader: 10 million events"
rm -rf big
SEEKTRACE_OUTPUT=$work/rep.%p SEEKTRACE_TRACE=$work/big LD_PRELOAD=$lib $demo $work/d.dat --seeks 1000000 >/dev/null 2>&1
$st report --stats big/*.sktrace | head -1
echo "report (footer + verifying every event): $(peak $st report big/*.sktrace)"
echo "report --from-events (rebuilt from events): $(peak $st report --from-events big/*.sktrace)"
echo "report --by site: $(peak $st report --by site --from-events big/*.sktrace)"
echo "export --format csv: $(peak $st export --format csv big/*.sktrace)"

echo "## merge: 1,000 traces"
rm -rf many
$st run -q --trace $work/many -- sh -c "for i in \$(seq 1000); do head -c 4096 $work/data.bin > /dev/null; done"
echo "$(ls many/*.sktrace | wc -l) traces, $(du -sh many | cut -f1)"
echo "report DIR: $(peak $st report many)"
echo "report --json DIR: $(peak $st report --json many)"
echo "check DIR: $(peak $st check --max-amplification 2 many)"
rm -rf "$work"
