# Record the fixtures only a GPU can make (python3 record_gpu.py SCENARIO OUTDIR,
# each scenario in a fresh process; t/data/gen/record_gpu.sh runs them all):
#   default   a snapshot with _record_memory_history()'s defaults (C++ and
#             Python frames), of a small MLP's training steps
#   kineto    the same steps under torch.profiler with profile_memory=True,
#             exported as a Chrome trace
#   emptycache  allocations, frees, torch.cuda.empty_cache(), allocations
# and OUTDIR/SCENARIO.facts.json: what Python reads in them, for the tests.
import json, os, pickle, sys
import torch

scenario, out = sys.argv[1], sys.argv[2]
dev = "cuda"

def model_and_steps(n):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                            torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    def run():
        for _ in range(n):
            x = torch.randn(256, 1024, device=dev)
            m(x).sum().backward()
            opt.step()
            opt.zero_grad()
        torch.cuda.synchronize()
    return run

facts = {"torch": torch.__version__, "scenario": scenario}
if scenario == "default":
    torch.cuda.memory._record_memory_history()
    model_and_steps(3)()
    path = f"{out}/default-stacks.pickle"
    torch.cuda.memory._dump_snapshot(path)
    with open(path, "rb") as f:
        s = pickle.load(f)
    tr = max(s["device_traces"], key=len)
    allocs = [e for e in tr if e["action"] == "alloc"]
    facts["allocs"] = len(allocs)
    facts["allocs_with_python_frames"] = sum(
        any(fr["filename"].endswith(".py") for fr in e.get("frames", [])) for e in allocs)
    facts["allocs_with_cpp_frames"] = sum(
        any(not fr["filename"].endswith(".py") for fr in e.get("frames", [])) for e in allocs)
    facts["max_line"] = max((fr["line"] for e in allocs for fr in e.get("frames", [])), default=0)
    facts["actions"] = {}
    for e in tr:
        facts["actions"][e["action"]] = facts["actions"].get(e["action"], 0) + 1
    facts["protocol"] = open(path, "rb").read(2)[1]
elif scenario == "kineto":
    run = model_and_steps(3)
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 profile_memory=True) as prof:
        run()
    path = f"{out}/profile.pt.trace.json"
    prof.export_chrome_trace(path)
    with open(path) as f:
        t = json.load(f)
    mem = [e for e in t["traceEvents"] if e.get("name") == "[memory]"]
    cuda = [e for e in mem if e["args"].get("Device Type") == 1 and e["args"]["Bytes"] != 0]
    facts["memory_events"] = len(mem)
    facts["cuda_memory_events"] = len(cuda)
    facts["devices"] = sorted({e["args"]["Device Id"] for e in cuda})
    live = peak = 0
    for e in sorted(cuda, key=lambda e: e["ts"]):
        live += e["args"]["Bytes"]
        peak = max(peak, live)
    facts["peak_running_bytes"] = peak
    facts["first_total_allocated"] = cuda[0]["args"].get("Total Allocated") if cuda else None
    facts["first_bytes"] = cuda[0]["args"]["Bytes"] if cuda else None
    facts["max_total_reserved"] = max(e["args"].get("Total Reserved", 0) for e in cuda)
    facts["max_reserved_api"] = torch.cuda.max_memory_reserved()
elif scenario == "emptycache":
    torch.cuda.memory._record_memory_history()
    u8 = torch.uint8
    a = [torch.empty(3_000_000 * (i + 1), dtype=u8, device=dev) for i in range(4)]
    small = torch.empty(1000, dtype=u8, device=dev)
    del a[1], a[2]
    before = torch.cuda.memory_reserved()
    torch.cuda.empty_cache()
    after = torch.cuda.memory_reserved()
    b = torch.empty(5_000_000, dtype=u8, device=dev)
    path = f"{out}/emptycache.pickle"
    torch.cuda.memory._dump_snapshot(path)
    with open(path, "rb") as f:
        s = pickle.load(f)
    tr = max(s["device_traces"], key=len)
    facts["actions_in_order"] = [e["action"] for e in tr]
    facts["reserved_before_empty_cache"] = before
    facts["reserved_after_empty_cache"] = after
    facts["max_reserved"] = torch.cuda.max_memory_reserved()
    facts["reserved_at_end"] = torch.cuda.memory_reserved()
with open(f"{out}/{scenario}.facts.json", "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
print(scenario, json.dumps(facts)[:400])
