#!/bin/sh
# bench/xplane.sh - how fast a TensorFlow or JAX profile (.xplane.pb) reads:
# one made by t/data/gen/xplane_synth.py --bench with PAIRS alloc/free pairs
# (default 200000) among OTHER other host events (default 2000000: a real
# profile's host plane is mostly Python and runtime events) on 8 threads,
# read by `gpumemsim info` and `run`; prints MB/s, memory events/s and peak
# resident memory.  The file is read twice (its names come after its lines)
# and only the memory events are kept.
#   bench/xplane.sh [PAIRS] [OTHER]
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim
pairs=${1:-200000}
other=${2:-2000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-xbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd t/data/gen && python3 xplane_synth.py --bench "$tmp/p.xplane.pb" "$pairs" "$other")
size=$(stat -c %s "$tmp/p.xplane.pb")
for cmd in info run; do
	/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim $cmd "$tmp/p.xplane.pb" >"$tmp/out" 2>&1
	read -r secs kib <"$tmp/time"
	events=$(./gpumemsim info "$tmp/p.xplane.pb" | sed -n 's/^  events *\([0-9]*\):.*/\1/p')
	awk -v c="$cmd" -v s="$secs" -v b="$size" -v k="$kib" -v e="$events" 'BEGIN {
		printf "xplane %-5s %6.0f MB %6.2f s %5.0f MB/s %6.2f M memory events/s %7.1f MiB max RSS\n",
		    c, b / 1e6, s, b / 1e6 / s, e / s / 1e6, k / 1024 }'
done
