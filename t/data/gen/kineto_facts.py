# What Python reads in a Kineto Chrome trace (python3 kineto_facts.py TRACE):
# "events seeds peak_total_allocated live_before total_bytes" for the CUDA
# device with the most [memory] events, taken in the profiler's order (ts,
# then Ev Idx): its events with Bytes != 0; the blocks live before the
# profile (each one it frees without having allocated, and one more for the
# rest of the first event's Total Allocated less its own Bytes); the largest
# Total Allocated; that live-before figure; the device's totalGlobalMem.
import gzip, json, sys

f = gzip.open(sys.argv[1], "rt") if sys.argv[1].endswith(".gz") else open(sys.argv[1])
t = json.load(f)
mem = [e for e in t["traceEvents"] if e.get("name") == "[memory]"
       and e["args"].get("Device Type") == 1 and e["args"]["Bytes"] != 0]
count = {}
for e in mem:
    count[e["args"]["Device Id"]] = count.get(e["args"]["Device Id"], 0) + 1
dev = max(sorted(count), key=lambda d: count[d])
mem = [e for e in mem if e["args"]["Device Id"] == dev]
mem.sort(key=lambda e: (e["ts"], e["args"].get("Ev Idx", -1)))
live, orphans, orphan_bytes = set(), 0, 0
for e in mem:
    a, b = e["args"]["Addr"], e["args"]["Bytes"]
    if b > 0:
        live.add(a)
    elif a in live:
        live.remove(a)
    else:
        orphans += 1
        orphan_bytes -= b
first = mem[0]["args"]
before = max(0, first.get("Total Allocated", 0) - first["Bytes"])
seeds = orphans + (1 if before > orphan_bytes else 0)
peak = max(e["args"].get("Total Allocated", 0) for e in mem)
total = next((p["totalGlobalMem"] for p in t.get("deviceProperties", []) if p.get("id") == dev), 0)
print(len(mem), seeds, peak, before, total)
