# What Python's own pickle module reads as the state at dump of each snapshot
# fixture (python3 dump_facts.py PICKLE... > t/data/snapshots/dump-facts.txt):
# one line per file, "name segments reserved active requested" for the device
# with the most trace entries: segments, the sum of their total_size, of the
# size of their active blocks, and of those blocks' requested_size.
# t/cli-snapshots.sh compares the reader's "source.dump" with these.
import os, pickle, sys

for path in sys.argv[1:]:
    with open(path, "rb") as f:
        s = pickle.load(f)
    if isinstance(s, list):
        s = {"segments": s, "device_traces": []}
    traces = s.get("device_traces") or [[]]
    dev = max(range(len(traces)), key=lambda i: len(traces[i]))
    segs = [g for g in s["segments"] if g.get("device", dev) == dev]
    active = [b for g in segs for b in g["blocks"] if b["state"].startswith("active")]
    name = os.path.basename(path).split(".pickle")[0]
    print(name, len(segs), sum(g["total_size"] for g in segs),
          sum(b["size"] for b in active), sum(b.get("requested_size", b["size"]) for b in active))
