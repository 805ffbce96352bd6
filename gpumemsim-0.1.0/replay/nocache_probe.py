# Measure what the CUDA driver really uses for PyTorch without caching
# (PYTORCH_NO_CUDA_MEMORY_CACHING=1): per-allocation granularity, and the
# peak device memory used while replaying sample traces.
import gzip, json, os, sys
assert os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING") == "1"
import torch
torch.empty(1, device="cuda"); torch.cuda.synchronize()
def used():
    f, t = torch.cuda.mem_get_info()
    return t - f
out = {"granularity": {}, "replay": {}}
for size in [1, 512, 513, 4096, 65536, 262144, 1048576, 1048577, 2097152, 2097153, 3145728, 10485760, 20971521]:
    torch.cuda.synchronize(); base = used()
    xs = [torch.empty(size, dtype=torch.uint8, device="cuda") for _ in range(200)]
    torch.cuda.synchronize(); after = used()
    out["granularity"][size] = (after - base) / 200
    del xs; torch.cuda.synchronize()
for path in sys.argv[1:]:
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        if ".jsonl" in path:
            lines = f.read().splitlines(); events = [json.loads(l) for l in lines[1:] if l.strip()]
        else:
            events = json.load(f)["events"]
    torch.cuda.synchronize(); base = used(); peak = 0; live = {}; calls = 0
    for e in events:
        if e["op"] == "alloc" and e["size"] > 0:
            live[e["id"]] = torch.empty(e["size"], dtype=torch.uint8, device="cuda"); calls += 1
            u = used() - base
            if u > peak: peak = u
        elif e["op"] == "free":
            live.pop(e["id"], None)
    del live; torch.cuda.synchronize()
    out["replay"][os.path.basename(path)] = {"peak_used": peak, "allocs": calls}
print(json.dumps(out, indent=1))
