#!/bin/sh
# bench/report.sh - the report page stays bounded whatever the trace's
# length: `gpumemsim report` on training-shaped traces (bench/gen-trace) of
# 100k, 1M and 10M events (or the sizes given), under the default policies
# (or POLICIES=a,b); prints each page's size, the seconds it took and the
# peak resident memory.
#   [POLICIES=caching,grow-only] bench/report.sh [EVENTS ...]
# The issue's target: a page bounded in size on 10M events.
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim bench/gen-trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-rbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- 100000 1000000 10000000
for events in "$@"; do
	./bench/gen-trace "$events" >"$tmp/t.jsonl"
	/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim report "$tmp/t.jsonl" \
	    ${POLICIES:+--policies="$POLICIES"} -o "$tmp/r.html" -q
	read -r secs kib <"$tmp/time"
	awk -v e="$events" -v s="$secs" -v b="$(stat -c %s "$tmp/r.html")" -v k="$kib" 'BEGIN {
		printf "report %9d events %8.2f MB page %7.2f s %8.1f MiB max RSS\n", e, b / 1e6, s, k / 1024 }'
done
