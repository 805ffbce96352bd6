# What Python reads in a Kineto Chrome trace (python3 kineto_facts.py TRACE):
# "events peak_live orphan_frees live_before total_bytes" for the CUDA device
# with the most [memory] events: its events with Bytes != 0, the peak of the
# bytes allocated in the profile and not yet freed (frees of blocks from
# before the profile change nothing), those frees, Total Allocated less the
# first event's Bytes, and the device's totalGlobalMem.
import json, sys

t = json.load(open(sys.argv[1]))
mem = [e for e in t["traceEvents"] if e.get("name") == "[memory]"
       and e["args"].get("Device Type") == 1 and e["args"]["Bytes"] != 0]
count = {}
for e in mem:
    count[e["args"]["Device Id"]] = count.get(e["args"]["Device Id"], 0) + 1
dev = max(sorted(count), key=lambda d: count[d])
mem = [e for e in mem if e["args"]["Device Id"] == dev]
live, cur, peak, orphans = {}, 0, 0, 0
for e in mem:
    a, b = e["args"]["Addr"], e["args"]["Bytes"]
    if b > 0:
        live[a] = b
        cur += b
        peak = max(peak, cur)
    elif a in live:
        cur -= live.pop(a)
    else:
        orphans += 1
first = mem[0]["args"]
before = max(0, first.get("Total Allocated", 0) - first["Bytes"]) if first["Bytes"] > 0 else 0
total = next((p["totalGlobalMem"] for p in t.get("deviceProperties", []) if p.get("id") == dev), 0)
print(len(mem), peak, orphans, before, total)
