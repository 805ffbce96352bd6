#!/bin/sh
# bench/run.sh - how fast `gpumemsim run` replays a large trace.
#
#   bench/run.sh [EVENTS]     (default 5000000)
#
# Builds bench/gen-trace, writes a training-shaped JSON Lines trace of EVENTS
# events to a temporary directory (plain and gzip'd), and times `gpumemsim run`
# on each, printing events per second and the peak resident memory, then
# `gpumemsim tune` and `gpumemsim plan` on it.  Run it
# from a build without sanitizers (./configure && make) for real numbers.
set -eu
cd "$(dirname "$0")/.."
events=${1:-5000000}
make -s gpumemsim bench/gen-trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
./bench/gen-trace "$events" >"$tmp/t.jsonl"
gzip -1 -c "$tmp/t.jsonl" >"$tmp/t.jsonl.gz"
echo "trace: $events events, $(du -h "$tmp/t.jsonl" | cut -f1) as JSON Lines, $(du -h "$tmp/t.jsonl.gz" | cut -f1) gzip'd"
for f in t.jsonl t.jsonl.gz; do
	for cap in "" "--capacity=4.5GiB"; do
		/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim run "$tmp/$f" $cap --format=json >"$tmp/out"
		read -r secs kib <"$tmp/time"
		if grep -q '"oom":.null' "$tmp/out"; then oom=fits; else oom="OOM: policy stops there"; fi
		awk -v e="$events" -v s="$secs" -v k="$kib" -v f="$f" -v c="${cap:-uncapped}" -v o="$oom" \
		    'BEGIN { printf "%-12s %-16s %6.2f s  %5.2f M events/s  %5.1f MiB max RSS  %s\n", f, c, s, e / (s > 0 ? s : 0.01) / 1e6, k / 1024, o }'
	done
done
# tune: the trace read once, then dozens of settings replayed on every core
/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim tune "$tmp/t.jsonl.gz" --capacity=4.5GiB --format=json >"$tmp/out"
read -r secs kib <"$tmp/time"
tried=$(sed -n 's/^\t"tried":\t\([0-9]*\),/\1/p' "$tmp/out")
echo "tune: $tried settings and the BFC limit searches in $secs s, $(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB max RSS"
# plan: a bisection per policy, then every catalogued GPU, on every core
/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim plan "$tmp/t.jsonl.gz" --format=json >"$tmp/out"
read -r secs kib <"$tmp/time"
echo "plan: every policy and $(grep -c '"gpu":' "$tmp/out") GPUs in $secs s, $(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB max RSS"
