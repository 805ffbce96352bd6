"""gpu_oom.py - the torch-dependent parts on a real GPU (run by hand on the
GPU machine: python3 python/tests/gpu_oom.py OUTDIR, with the package on
PYTHONPATH; results in OUTDIR/gpu-oom.json, which the suite keeps as a
fixture in t/data/python/).

1. record(): a small job recorded by it replays to the peak reservation
   PyTorch's own memory_stats report.
2. on_oom(): a job under a per-process fraction runs out of memory; the hook
   dumps the snapshot and prints; the OOM it names is the replay's of that
   snapshot in the limit, the capacity it names is the limit in force, the
   smallest capacity it names is plan's, and the job's own exception still
   reaches the job."""

import io
import json
import os
import sys

import torch

import gpumemsim

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}

# 1. record()
rec = os.path.join(out_dir, "record.pickle")
torch.cuda.reset_peak_memory_stats()
with gpumemsim.record(rec):
    xs = [torch.empty(n << 20, dtype=torch.uint8, device="cuda") for n in (3, 30, 7, 64, 1)]
    del xs[1]
    ys = [torch.empty(n << 20, dtype=torch.uint8, device="cuda") for n in (12, 25)]
    del xs, ys
stats = torch.cuda.memory_stats()
r = gpumemsim.run(rec)
res["record"] = {"stats_peak_reserved": stats["reserved_bytes.all.peak"],
                 "stats_device_allocs": stats["num_device_alloc"],
                 "replay_peak_reserved": r.peak_reserved, "replay_device_allocs": r.device_allocs,
                 "settings": json.load(open(rec + ".settings.json"))}
torch.cuda.empty_cache()

# 2. on_oom() under a fraction
total = torch.cuda.get_device_properties(0).total_memory
frac = (700 << 20) / total
torch.cuda.set_per_process_memory_fraction(frac, 0)
torch.cuda.reset_peak_memory_stats()
torch.cuda.memory._record_memory_history(max_entries=100000)
text = io.StringIO()
snap = os.path.join(out_dir, "oom.pickle")
gpumemsim.on_oom(snap, out=text)
caught = None
held = []
try:
    for i in range(400):
        held.append(torch.empty((5 + i % 7) << 20, dtype=torch.uint8, device="cuda"))
except torch.OutOfMemoryError as e:
    caught = str(e)
torch.cuda.memory._record_memory_history(enabled=None)
printed = text.getvalue()
sys.stderr.write(printed)
limit = int(frac * total)
run = gpumemsim.run(snap, capacity=limit)
plan = gpumemsim.plan(snap)
res["oom"] = {"caught": caught, "printed": printed, "limit": limit, "fraction": frac,
              "num_ooms": torch.cuda.memory_stats()["num_ooms"],
              "replay_oom_event": run.oom.event if run.oom else None,
              "recorded_oom": run.observed.get("recorded_oom") if run.observed else None,
              "plan_min_capacity": plan.min_capacity("caching")}
ok = {
    "record replays PyTorch's peak": res["record"]["stats_peak_reserved"] ==
    res["record"]["replay_peak_reserved"],
    "the job's own exception reached it": caught is not None and "out of memory" in caught,
    "the hook names the limit": "ran out of memory in" in printed and "(%d B)" % limit in printed,
    "the hook names the replay's OOM": run.oom is not None and
    ("runs out at event %d:" % run.oom.event) in printed,
    "the replay's OOM is the recording's": run.oom is not None and
    res["oom"]["recorded_oom"] is not None and
    res["oom"]["recorded_oom"]["event"] == run.oom.event,
    "the hook names plan's capacity": ("(%d B)" % plan.min_capacity("caching")) in printed,
}
# replay's JSON against doc/JSON.md (the suite here has no GPU)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_schema  # noqa: E402
import subprocess  # noqa: E402
p = subprocess.run([gpumemsim._cli.binary(), "replay", rec, "--format=json"],
                   stdout=subprocess.PIPE)
obj = json.loads(p.stdout)
doc = test_schema.DOC["replay"]
always = [k for k, _, a in doc if a]
ok["replay's JSON is doc/JSON.md's"] = p.returncode == 0 and \
    [k for k in obj if k in always] == always and \
    all(k in [d[0] for d in doc] for k in obj) and \
    all(any(test_schema.TYPES[t](obj[k]) for t in ty) for k, ty, _ in doc if k in obj)
res["replay_keys"] = list(obj)
res["ok"] = ok
json.dump(res, open(os.path.join(out_dir, "gpu-oom.json"), "w"), indent=1)
for k, v in ok.items():
    print(("ok - " if v else "not ok - ") + k)
sys.exit(0 if all(ok.values()) else 1)
