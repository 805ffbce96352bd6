#!/usr/bin/env python3
"""lazy_probe.py - why real jobs' segments are not where the placement model
puts them (issue 25).  On every recording in t/data/users and t/data/scale
the addresses PyTorch's segments got part from the model's rules (measured
with raw cudaMalloc in an otherwise empty process, doc/placement.md) by the
2nd to 4th segment.  A real job also loads kernels (lazily, at their first
launch, by default since CUDA 11.7) and its libraries create handles and
workspaces: each takes device memory the trace does not show.

Run on the GPU machine:
    python3 replay/lazy_probe.py all OUT.json [JOBS]
    HOOKS=1 SEGS=1 python3 replay/lazy_probe.py all OUT.json xfmr,resnet
(HOOKS: also what the process holds beside PyTorch around every module
call, with the segments made so far, which moves the addresses measured.)

Each job (the transformer encoder of t/data/users/set-roundup, ResNet-18 of
t/data/scale/cnn-batch-4, and a replay of set-roundup's own allocations
with no kernels but the allocator's) runs in a fresh process under
CUDA_MODULE_LOADING=LAZY (the default) and EAGER, recording its segments
(address and size, in order) and what the process holds beside PyTorch's
segments (total - free - reserved) before the first segment and at the
end.  OUT.json: one entry per run; replay/va_model.py's place() scores them.
"""
import json
import os
import subprocess
import sys

JOBS = ["xfmr", "resnet", "allocs"]
if len(__import__("sys").argv) > 3:
    JOBS = __import__("sys").argv[3].split(",")
MODES = ["LAZY", "EAGER"]


def child(job, out):
    import torch
    import torch.nn as nn
    dev = "cuda"
    torch.cuda.init()
    free0, total = torch.cuda.mem_get_info()
    torch.manual_seed(0)
    torch.cuda.memory._record_memory_history()
    # what the process holds beside PyTorch's segments, around every module call
    hidden = []

    def probe(tag):
        def hook(mod, *args):
            torch.cuda.synchronize()
            f, t = torch.cuda.mem_get_info()
            r = torch.cuda.memory_reserved()
            seg = sum(1 for e in torch.cuda.memory._snapshot()["device_traces"][0]
                      if e["action"] == "segment_alloc") if os.environ.get("SEGS") else -1
            if not hidden or hidden[-1][2] != t - f - r:
                hidden.append([tag + " " + type(mod).__name__, r, t - f - r, seg])
        return hook

    def hooked(m):
        for mod in m.modules():
            mod.register_forward_pre_hook(probe("pre"))
            mod.register_forward_hook(probe("post"))
            mod.register_full_backward_hook(probe("bwd"))
        return m
    if job == "xfmr":
        layer = nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True, dropout=0.0)
        m = nn.Sequential(nn.TransformerEncoder(layer, 4), nn.Linear(512, 1000)).to(dev)
        if os.environ.get("HOOKS"):
            hooked(m)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for n in [128, 320, 77, 256]:
            x = torch.randn(8, n, 512, device=dev)
            y = torch.randint(0, 1000, (8, n), device=dev)
            loss = nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten())
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    elif job == "resnet":
        import torchvision
        m = torchvision.models.resnet18(num_classes=10).to(dev)
        if os.environ.get("HOOKS"):
            hooked(m)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(2):
            x = torch.randn(4, 3, 96, 96, device=dev)
            y = torch.randint(0, 10, (4,), device=dev)
            nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
            opt.zero_grad()
    else:
        # set-roundup's allocations and frees, by the allocator alone
        trace = json.load(open(os.environ["ALLOCS"]))
        live = {}
        for op, key, size in trace:
            if op == "a":
                live[key] = torch.cuda.caching_allocator_alloc(size)
            else:
                torch.cuda.caching_allocator_delete(live.pop(key))
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    segs = []
    for e in snap["device_traces"][0]:
        if e["action"] in ("segment_alloc", "segment_free"):
            segs.append([e["action"][8], e["addr"], e["size"]])
    free1, _ = torch.cuda.mem_get_info()
    st = torch.cuda.memory_stats()
    res = {"job": job, "mode": os.environ.get("CUDA_MODULE_LOADING", ""), "segments": segs,
           "total": total, "held_before": total - free0,
           "held_after_beside_pytorch": total - free1 - st["reserved_bytes.all.current"],
           "reserved_peak": st["reserved_bytes.all.peak"], "device_allocs": st["num_device_alloc"],
           "hidden": hidden}
    with open(out, "w") as f:
        json.dump(res, f)


def allocs_of(pickle_gz, out):
    """set-roundup's alloc/free sequence (sizes as requested) for the 'allocs' job."""
    import gzip
    import pickle
    snap = pickle.load(gzip.open(pickle_gz))
    seq, ids, n = [], {}, 0
    for e in snap["device_traces"][0]:
        if e["action"] == "alloc":
            ids[e["addr"]] = n		# a fresh key each time: addresses are reused
            n += 1
            seq.append(["a", ids[e["addr"]], e["size"]])
        elif e["action"] == "free_completed" and e["addr"] in ids:
            seq.append(["f", ids.pop(e["addr"]), 0])
    json.dump(seq, open(out, "w"))


def main(out):
    runs = []
    allocs = out + ".allocs.json"
    allocs_of("t/data/users/set-roundup.pickle.gz", allocs)
    for job in JOBS:
        for mode in MODES:
            env = dict(os.environ, CUDA_MODULE_LOADING=mode, ALLOCS=allocs,
                       HOOKS=os.environ.get("HOOKS", ""), SEGS=os.environ.get("SEGS", ""),
                       PYTORCH_CUDA_ALLOC_CONF="roundup_power2_divisions:4"
                       if job != "resnet" else "")
            tmp = f"{out}.{job}.{mode}.json"
            p = subprocess.run([sys.executable, __file__, "child", job, tmp], env=env,
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                print(job, mode, "failed:", p.stderr[-2000:], flush=True)
                continue
            r = json.load(open(tmp))
            runs.append(r)
            print(job, mode, "segments", sum(s[0] == "a" for s in r["segments"]),
                  "held before", r["held_before"], "beside pytorch after",
                  r["held_after_beside_pytorch"], flush=True)
    json.dump(runs, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[2])
