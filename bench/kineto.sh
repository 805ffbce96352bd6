#!/bin/sh
# bench/kineto.sh - how fast a PyTorch profiler trace reads: a profile of
# MB megabytes (default 1000) made of copies of a real one recorded on the
# H200 (t/data/users/kineto-whole, each copy later in time), read by
# `gpumemsim info` and `run`; prints MB/s and peak resident memory.
#   bench/kineto.sh [MB]
# The issue's target: at least 200 MB/s, in memory that follows the
# [memory] events, not the file.
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim
mb=${1:-1000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-kbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$mb" "$tmp/p.pt.trace.json" <<'PY'
import gzip, json, re, sys
mb, out = int(sys.argv[1]), sys.argv[2]
t = json.load(gzip.open("t/data/users/kineto-whole.pt.trace.json.gz", "rt"))
evs = t.pop("traceEvents")
span = max(e.get("ts", 0) for e in evs) - min(e.get("ts", 0) for e in evs) + 1000
body = ",\n".join(json.dumps(e) for e in evs)
ts = re.compile(r'"ts": ([0-9.]+)')
with open(out, "w") as f:
    head = json.dumps(t)
    f.write(head[:-1] + ', "traceEvents": [\n')
    n = 0
    while f.tell() < mb * 1000000:
        shift = span * n
        f.write((",\n" if n else "") + ts.sub(lambda m: '"ts": %.3f' % (float(m.group(1)) + shift), body))
        n += 1
    f.write("\n]}\n")
print("copies", n)
PY
size=$(stat -c %s "$tmp/p.pt.trace.json")
for cmd in info run; do
	/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim $cmd "$tmp/p.pt.trace.json" >"$tmp/out" 2>&1
	read -r secs kib <"$tmp/time"
	awk -v c="$cmd" -v s="$secs" -v b="$size" -v k="$kib" 'BEGIN {
		printf "kineto %-5s %8.0f MB %7.2f s %7.0f MB/s %8.1f MiB max RSS\n", c, b / 1e6, s, b / 1e6 / s, k / 1024 }'
done
grep -m1 events "$tmp/out" || true
