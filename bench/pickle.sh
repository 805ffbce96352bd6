#!/bin/sh
# bench/pickle.sh - how fast a PyTorch memory snapshot reads: a snapshot of
# about MB megabytes (default 1000) made of copies of a real one recorded on
# the H200 with C++ and Python frames (t/data/users/kineto-whole.pickle.gz),
# each copy in its own address range and later in time (its entries new
# dicts with their own frames lists, the frame dicts shared as PyTorch's
# pickler shares them), read by `gpumemsim info` and `run`; prints MB/s and
# peak resident memory.
#   bench/pickle.sh [MB]
# The targets (issues 31 and 34): at least 200 MB/s, and memory bounded by
# what the trace keeps (a 10 GB snapshot in under 1 GiB), not by the file.
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim
mb=${1:-1000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-pbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$mb" "$tmp/s.pickle" <<'PY'
import gzip, pickle, sys
mb, out = int(sys.argv[1]), sys.argv[2]
snap = pickle.load(gzip.open("t/data/users/kineto-whole.pickle.gz"))
one = len(pickle.dumps(snap, protocol=4))
copies = max(1, mb * 1000000 // one)
lo = min(s["address"] for s in snap["segments"])
hi = max(s["address"] + s["total_size"] for s in snap["segments"])
for e in snap["device_traces"][0]:
    if e["action"] in ("segment_alloc", "segment_map"):
        lo, hi = min(lo, e["addr"]), max(hi, e["addr"] + e["size"])
span_a = (hi - lo + (1 << 30)) >> 30 << 30
ts = [e["time_us"] for e in snap["device_traces"][0]]
span_t = max(ts) - min(ts) + 1000
segs, trace = [], []
for k in range(copies):
    da, dt = k * span_a, k * span_t
    for s in snap["segments"]:
        t = dict(s, address=s["address"] + da)
        t["blocks"] = [dict(b, address=b["address"] + da) for b in s["blocks"]]
        segs.append(t)
    for e in snap["device_traces"][0]:
        trace.append(dict(e, addr=e["addr"] + da, time_us=e["time_us"] + dt,
                          frames=list(e["frames"])))
snap["segments"], snap["device_traces"] = segs, [trace]
with open(out, "wb") as f:
    pickle.dump(snap, f, protocol=4)
print("copies", copies, "events", len(trace))
PY
size=$(stat -c %s "$tmp/s.pickle")
for cmd in info run; do
	/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim $cmd "$tmp/s.pickle" >"$tmp/out" 2>&1 ||
	    { sed 's/^/# /' "$tmp/out" | head -n 5; }
	read -r secs kib <"$tmp/time"
	awk -v c="$cmd" -v s="$secs" -v b="$size" -v k="$kib" 'BEGIN {
		printf "pickle %-5s %8.0f MB %7.2f s %7.0f MB/s %8.1f MiB max RSS\n", c, b / 1e6, s, b / 1e6 / s, k / 1024 }'
done
