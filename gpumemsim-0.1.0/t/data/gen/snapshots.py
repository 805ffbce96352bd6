# Make the PyTorch snapshot fixtures of t/data (run on a machine with a CUDA GPU):
#   python3 snapshots.py SCENARIO OUTDIR
# Each scenario runs in a fresh process (the allocator's state carries over
# otherwise) and writes OUTDIR/<scenario>.pickle plus OUTDIR/<scenario>.facts.json:
# what Python's own pickle module reads in it, for the C reader's tests.
import json, os, pickle, sys
import torch

scenario, outdir = sys.argv[1], sys.argv[2]
dev = "cuda"
u8 = torch.uint8

def record(**kw):
    torch.cuda.memory._record_memory_history(context="alloc", stacks="python", **kw)

def step(n, scale):
    xs = [torch.empty((i + 1) * scale, dtype=u8, device=dev) for i in range(n)]
    y = torch.empty(scale * 40, dtype=u8, device=dev)
    del xs[::2]
    return xs, y

protocol = None
if scenario == "ring":
    # A ring buffer of 200 entries over a longer run: it starts mid-run.
    record(max_entries=200)
    weights = [torch.empty(1048576 * (i + 1), dtype=u8, device=dev) for i in range(6)]
    for it in range(12):
        xs, y = step(24, 70001)
        del xs, y
elif scenario == "late":
    # Weights allocated before recording began: live all along, never seen.
    weights = [torch.empty(3000000 + 4096 * i, dtype=u8, device=dev) for i in range(5)]
    small = [torch.empty(1000 + i, dtype=u8, device=dev) for i in range(7)]
    record()
    for it in range(3):
        xs, y = step(10, 50003)
        del xs, y
    del small[2]
elif scenario == "proto5":
    record()
    a = torch.empty(12345, dtype=u8, device=dev)
    xs, y = step(8, 300007)
    del a, xs
    protocol = 5
elif scenario == "expandable":
    # Needs PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True in the environment.
    record()
    for it in range(3):
        xs, y = step(12, 900001)
        del xs, y
    torch.cuda.empty_cache()
elif scenario == "streams":
    record()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        b = torch.empty(5000000, dtype=u8, device=dev)
    a = torch.empty(7000000, dtype=u8, device=dev)
    b.record_stream(torch.cuda.current_stream())
    del a, b
else:
    sys.exit("unknown scenario " + scenario)

snap = torch.cuda.memory._snapshot()
path = os.path.join(outdir, scenario + ".pickle")
with open(path, "wb") as f:
    if protocol:
        pickle.dump(snap, f, protocol=protocol)
    else:
        pickle.dump(snap, f)

# Facts, read back through Python's pickle module.
with open(path, "rb") as f:
    s = pickle.load(f)
tr = max(s["device_traces"], key=len)
actions = {}
for e in tr:
    actions[e["action"]] = actions.get(e["action"], 0) + 1
live, orphan_frees = set(), 0
for e in tr:
    if e["action"] == "alloc":
        live.add(e["addr"])
    elif e["action"] == "free_completed":
        if e["addr"] in live:
            live.discard(e["addr"])
        else:
            orphan_frees += 1
active_unseen = 0
for seg in s["segments"]:
    for b in seg["blocks"]:
        if b["state"] == "active_allocated" and b["address"] not in live:
            active_unseen += 1
facts = {
    "actions": actions,
    "orphan_frees": orphan_frees,
    "active_at_end_unseen": active_unseen,
    "segments_at_end": len(s["segments"]),
    "first": {k: v for k, v in tr[0].items() if k != "frames"} if tr else None,
    "last": {k: v for k, v in tr[-1].items() if k != "frames"} if tr else None,
    "protocol": open(path, "rb").read(2)[1],
    "allocator_settings": s["allocator_settings"],
    "torch": torch.__version__,
}
with open(os.path.join(outdir, scenario + ".facts.json"), "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
print(scenario, json.dumps(actions), "orphans", orphan_frees, "unseen", active_unseen)
