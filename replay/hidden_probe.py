#!/usr/bin/env python3
"""hidden_probe.py - real PyTorch runs beside reservations the allocator
does not see (issue 17): each run of the shared ground truth's default
setting again in a fresh PyTorch process that also reserves through the
driver API (replay/torch_replay.py --hidden), as cuBLAS workspaces, NCCL
buffers or an earlier phase of a job would:

    python3 replay/hidden_probe.py OUT.jsonl [SEEDS]

Per seed (default 3), drawn here with Python's random, independently of
gpumemsim's own perturbations: with probability 0.7 a workspace of 8, 32 or
64 MiB first; an earlier phase of 0-3 reservations of 20 MiB - 1.2 GiB
(log-uniform), each given back with probability 0.6; then 0-3 reservations
of 2-256 MiB at random events, half given back at a later random event.
Output: per run the hidden program and what PyTorch did (peak reserved, OOM
event); `gpumemsim run --placements=N` is then checked against them
offline (doc/placement.md).
"""
import json
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fresh_default import run_jobs, trace_path  # noqa: E402
from torch_replay import read_trace  # noqa: E402


def program(rng, nevents):
    steps, k = [], 0
    if rng.random() < 0.7:
        steps.append("a%d" % rng.choice([8, 32, 64]))
        k += 1
    earlier = []
    for _ in range(rng.randint(0, 3)):
        steps.append("a%d" % (2 * round(math.exp(rng.uniform(math.log(20), math.log(1200))) / 2)))
        earlier.append(k)
        k += 1
    for j in earlier:
        if rng.random() < 0.6:
            steps.append("f%d" % j)
    timed = []
    for _ in range(rng.randint(0, 3)):
        at = rng.randrange(nevents)
        timed.append((at, "a%d" % (2 * round(math.exp(rng.uniform(math.log(2), math.log(256))) / 2)), k))
        if rng.random() < 0.5:
            timed.append((rng.randrange(at, nevents), "f%d" % k, None))
        k += 1
    # hidden indices follow the order the reservations are made in
    timed.sort(key=lambda t: (t[0], t[1][0] == "f"))
    order, n = {}, len([s for s in steps if s[0] == "a"])
    for at, step, idx in timed:
        if step[0] == "a":
            order[idx] = n
            n += 1
    for at, step, idx in timed:
        if step[0] == "f":
            step = "f%d" % order[int(step[1:])]
        steps.append("@%d/%s" % (at, step))
    return ",".join(steps)


def one(job):
    trace, i, limit, path, seed, hidden = job
    cmd = [sys.executable, "replay/torch_replay.py", path, "--hidden", hidden]
    if limit:
        cmd += ["--capacity", str(limit)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"trace": trace, "run": i, "limit": limit, "seed": seed, "hidden": hidden,
                "error": p.stderr[-400:]}
    o = json.loads(p.stdout)
    return {"trace": trace, "run": i, "limit": limit, "seed": seed, "hidden": hidden,
            "peak_reserved": o["peak_reserved"],
            "oom_event": o["oom"]["event"] if o["oom"] else None}


def main():
    gt = json.load(open("t/data/pytorch.json"))
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    jobs = []
    for trace, confs in gt["runs"].items():
        path = trace_path(trace)
        n = len(read_trace(path)[1])
        for i, run in enumerate(confs["(default)"]):
            for seed in range(1, seeds + 1):
                rng = random.Random("%s/%d/%d" % (trace, i, seed))
                jobs.append((trace, i, run.get("limit"), path, seed, program(rng, n)))
    for x in run_jobs(one, jobs, sys.argv[1]):
        print(x["trace"], x["run"], x["limit"], x["seed"], x.get("peak_reserved"),
              x.get("oom_event"), x.get("error", "")[:80])


if __name__ == "__main__":
    main()
