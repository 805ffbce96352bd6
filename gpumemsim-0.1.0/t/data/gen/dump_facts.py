# What Python's own pickle module reads as the state at dump of each snapshot
# fixture (python3 dump_facts.py PICKLE... > t/data/snapshots/dump-facts.txt):
# one line per file, "name segments reserved active requested largest_free" for the device
# with the most trace entries: segments, the sum of their total_size, of the
# size of their active blocks, and of what was asked for them: requested_size,
# or (PyTorch 2.0) the first history entry's real_size, as PyTorch's own
# torch/cuda/_memory_viz.py reads them; and the largest inactive block.
# t/cli-snapshots.sh compares the reader's "source.dump" with these.
import os, pickle, sys

def asked(b):
    if "requested_size" in b:
        return b["requested_size"]
    if b.get("history"):
        return b["history"][0]["real_size"]
    return b["size"]

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
          sum(b["size"] for b in active), sum(asked(b) for b in active),
          max([b["size"] for g in segs for b in g["blocks"] if b["state"] == "inactive"], default=0))
