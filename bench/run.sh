#!/bin/sh
# bench/run.sh - the benchmark: how fast every command runs, and in how much
# memory, on large generated traces in every native format.
#
#   bench/run.sh [EVENTS ...]        (default: 1000000 10000000)
#   PEER=path/to/allocation_simulator.py bench/run.sh
#
# For each size: a training-shaped trace (bench/gen-trace) as JSON Lines, as
# one JSON document (made by `gpumemsim convert`, timed too) and both
# gzip'd; run, check, compare (every policy) and info on each, plan and tune
# on the JSON Lines of up to 2M events (their searches replay the trace
# dozens of times); the simulation alone per policy (bench/sim-only).  Then
# a churn trace of 1M events with 100k and with 1k allocations live, through
# the per-request policies.  With PEER and python3's sortedcontainers:
# DynaPipe's simulator (simulation only, bench/peer.py) on the same 1M-event
# trace, beside gpumemsim's caching policy alone.  run --by-site and report
# on the JSON Lines, with the page's size and (with chromium) how long the
# page takes to be ready in headless Chromium; run --placements=16 against
# one run (wall, CPU, cores busy).  Each row: seconds, events
# per second, nanoseconds per event, peak resident memory.  Build without
# sanitizers (./configure && make) for real numbers.
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim bench/gen-trace bench/sim-only
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
G=./gpumemsim

# measure LABEL FORMAT EVENTS COMMAND...: one row
measure() {
	label=$1 fmt=$2 n=$3
	shift 3
	/usr/bin/env time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || true
	read -r secs kib <"$tmp/time"
	awk -v l="$label" -v f="$fmt" -v n="$n" -v s="$secs" -v k="$kib" 'BEGIN {
		s = s > 0 ? s : 0.005
		printf "%-9s %-9s %9d %8.2f s %7.2f M ev/s %7.0f ns/ev %8.1f MiB\n",
		    l, f, n, s, n / s / 1e6, s * 1e9 / n, k / 1024 }'
}

echo "gpumemsim bench: $(uname -m), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
echo "command   format       events  seconds   rate         per event     max RSS"
for events in ${*:-1000000 10000000}; do
	./bench/gen-trace "$events" >"$tmp/t.jsonl"
	measure convert jsonl "$events" $G convert "$tmp/t.jsonl" "$tmp/t.json"
	gzip -1 -c "$tmp/t.jsonl" >"$tmp/t.jsonl.gz"
	gzip -1 -c "$tmp/t.json" >"$tmp/t.json.gz"
	for f in jsonl jsonl.gz json json.gz; do
		measure run "$f" "$events" $G run "$tmp/t.$f"
		measure check "$f" "$events" $G check "$tmp/t.$f" --max-fragmentation=99%
		measure compare "$f" "$events" $G compare "$tmp/t.$f"
		measure info "$f" "$events" $G info "$tmp/t.$f"
	done
	measure timeline jsonl "$events" $G run "$tmp/t.jsonl" --timeline="$tmp/tl.csv"
	measure by-site jsonl "$events" $G run "$tmp/t.jsonl" --by-site
	measure report jsonl "$events" $G report "$tmp/t.jsonl" -o "$tmp/r.html"
	chromium=$(command -v chromium || true)
	ready=
	if [ -n "$chromium" ]; then
		ready=$(timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		    --user-data-dir="$tmp/chromium" --dump-dom "file://$tmp/r.html#selftest" \
		    2>/dev/null | sed -n 's/^# ready \([0-9]*\) ms.*/\1/p')
	fi
	echo "report    page: $(wc -c <"$tmp/r.html") bytes${ready:+, ready in headless Chromium $ready ms after the request}"
	# --placements=16 against one run: wall and CPU seconds (issue 17: at
	# most 16 times one replay, on every core)
	/usr/bin/env time -f "%e %U %S" -o "$tmp/one" $G run "$tmp/t.jsonl" >/dev/null 2>&1 || true
	measure places16 jsonl "$events" /usr/bin/env time -f "%e %U %S" -o "$tmp/p16" \
	    $G run "$tmp/t.jsonl" --placements=16
	awk -v c="$(nproc)" 'NR == 1 { w1 = $1; c1 = $2 + $3 } NR == 2 { w = $1; cpu = $2 + $3 }
	    END { w1 = w1 > 0 ? w1 : 0.005; w = w > 0 ? w : 0.005
		printf "places16  16 placements: %.2f s wall (%.1fx one run of %.2f s; at most 16x), %.2f s of CPU (%.1fx one run\x27s), %.1f of %d cores busy\n",
		    w, w / w1, w1, cpu, cpu / (c1 > 0 ? c1 : 0.005), cpu / w, c }' "$tmp/one" "$tmp/p16"
	if [ "$events" -le 2000000 ]; then
		measure plan jsonl "$events" $G plan "$tmp/t.jsonl"
		measure tune jsonl "$events" $G tune "$tmp/t.jsonl"
		for p in caching grow-only no-cache ideal; do
			printf 'sim-only  %-9s ' "$p"
			./bench/sim-only "$tmp/t.jsonl" "$p" 3 | sed 's/^[^ ]* //'
		done
		if [ -n "${PEER:-}" ] && python3 -c 'import sortedcontainers' 2>/dev/null; then
			peer=$(python3 bench/peer.py "$PEER" "$tmp/t.jsonl")
			ours=$(./bench/sim-only "$tmp/t.jsonl" caching 3 | sed 's/.*: \([0-9.]*\) ns.*/\1/')
			echo "$peer" | awk -v o="$ours" '{ printf "peer      %s events: %.1f ns/event (DynaPipe allocation_simulator.py, simulation only); gpumemsim caching %.1f ns/event: %.0fx\n", $2, $4, o, $4 / o }'
		elif [ -n "${PEER:-}" ]; then
			echo "peer      skipped: python3 with sortedcontainers is needed"
		fi
	fi
	rm -f "$tmp"/t.*
done
for live in 100000 1000; do
	./bench/gen-trace --churn=$live 1000000 >"$tmp/c.jsonl"
	for p in no-cache ideal caching; do
		measure "$p" "churn$live" 1000000 $G run "$tmp/c.jsonl" --policy=$p
	done
done
