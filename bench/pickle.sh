#!/bin/sh
# bench/pickle.sh - how fast a PyTorch memory snapshot reads: a snapshot of
# about MB megabytes (default 1000) made of copies of a real one recorded on
# the H200 with C++ and Python frames (bench/pickle-gen.py: each copy in its
# own address range and later in time, its entries and frames lists new, the
# frame dicts and strings shared, as PyTorch's pickler shares them), read by
# `gpumemsim info` and `run`; prints MB/s and peak resident memory.
#   bench/pickle.sh [MB]
# The targets (issues 31 and 34): at least 200 MB/s, and memory bounded by
# what the trace keeps (a 10 GB snapshot in under 1 GiB), not by the file.
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim
mb=${1:-1000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-pbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 bench/pickle-gen.py "$mb" "$tmp/s.pickle"
size=$(stat -c %s "$tmp/s.pickle")
for cmd in info run; do
	/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim $cmd "$tmp/s.pickle" >"$tmp/out" 2>&1 ||
	    { sed 's/^/# /' "$tmp/out" | head -n 5; }
	read -r secs kib <"$tmp/time"
	awk -v c="$cmd" -v s="$secs" -v b="$size" -v k="$kib" 'BEGIN {
		printf "pickle %-5s %8.0f MB %7.2f s %7.0f MB/s %8.1f MiB max RSS\n", c, b / 1e6, s, b / 1e6 / s, k / 1024 }'
done
