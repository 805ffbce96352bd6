#!/usr/bin/env python3
"""share_frameworks.py - a `gpumemsim share` scenario run by the real
frameworks: one process per job (PyTorch for caching jobs, JAX for BFC jobs
of flavor jax), stepped in the scenario's merged order, the card brought
down to the scenario's memory by a ballast this process holds:

    gpumemsim share --scenario S.json --schedule=S.csv
    python3 replay/share_frameworks.py S.json S.csv --capacity=BYTES \
        --gpumemsim=./gpumemsim

prints, as JSON, each job's outcome (fits, or out of memory at which event
and pass) and peak reservation, as the framework reports it.  A job whose
framework is not here (TensorFlow) makes the scenario say so and not run.
Each alloc is an array of exactly the traced size (torch.empty of uint8;
jax.device_put of a uint8 numpy array), each free a del / delete; a pass
after the first starts with what the last one left freed.  A job with
after=hold stays alive once done, holding what its framework reserved (the
caching allocator's cache, the BFC pool), until the others are done.
"""
import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile


def events_of(gpumemsim, path, tmpdir, k):
    """The trace's alloc/free events, through gpumemsim convert (any format)."""
    out = os.path.join(tmpdir, "job%d.jsonl" % k)
    subprocess.run([gpumemsim, "convert", path, out], check=True)
    evs = []
    with open(out) as f:
        f.readline()
        for line in f:
            e = json.loads(line)
            evs.append((e["op"], e.get("id"), e.get("size", 0)))
    return evs


def framework_of(job):
    pol = job.get("policy", "caching")
    if pol == "caching":
        return "torch"
    if pol in ("grow-only", "preallocate") and job.get("flavor") == "jax":
        return "jax"
    return None


def advance(t, steps, owner, dead, finite):
    """From step t on, past the steps of jobs that ended; to the end when only
    jobs repeating until the others end are left."""
    while t < len(steps) and dead[owner[t]]:
        t += 1
    if not any(finite[owner[u]] and not dead[owner[u]] for u in range(t, len(steps))):
        return len(steps)
    return t


def run_job(k, job, events, mine, steps, owner, finite, turn, dead, cond, out, scale):
    """Job k's process: its steps (indices into steps), in turn.  Fractions are
    of the scenario's card; the frameworks take them of the real one, so they
    are scaled by the scenario's memory over the real card's."""
    fw = framework_of(job)
    if fw == "torch":
        conf = job.get("alloc_conf", "")
        if conf:
            os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf
    else:
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = (
            "true" if job.get("policy") == "preallocate" else "false")
        os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "%.6f" % (
            float(job.get("fraction", 0.75)) * scale)
        os.environ["XLA_PYTHON_CLIENT_ALLOCATOR"] = "bfc"
    live = {}
    res = {"outcome": "fits", "event": None, "pass": None, "peak_reserved": 0,
           "started": False}
    torch = jax = np = dev = None
    for idx in mine:
        with cond:
            while turn.value != idx and turn.value < len(steps):
                cond.wait()
            if turn.value >= len(steps):
                break
        what, event, npass = steps[idx]
        try:
            if what == "start":
                if fw == "torch":
                    import torch
                    dev = torch.device("cuda", 0)
                    torch.cuda.init()
                    torch.empty(0, device=dev)
                    if "fraction" in job:
                        torch.cuda.set_per_process_memory_fraction(
                            float(job["fraction"]) * scale, dev)
                else:
                    import jax
                    import numpy as np
                    dev = jax.devices()[0]
                    jax.device_put(np.zeros(1, np.uint8), dev).block_until_ready()
                res["started"] = True
            else:
                if npass > 0 and event == 0:
                    if fw == "jax":
                        for ident in list(live):
                            live.pop(ident).delete()
                    live.clear()
                op, ident, size = events[event]
                if op == "alloc" and size > 0:
                    if fw == "torch":
                        live[ident] = torch.empty(size, dtype=torch.uint8, device=dev)
                    else:
                        live[ident] = jax.device_put(np.empty(size, np.uint8), dev)
                        live[ident].block_until_ready()
                elif op == "free" and ident in live:
                    # no name may hold it: a tensor is freed when its last reference goes
                    if fw == "jax":
                        live.pop(ident).delete()
                    else:
                        del live[ident]
        except Exception as e:  # the frameworks' OOMs differ in type; their text says
            text = str(e)
            if ("out of memory" in text.lower() or "RESOURCE_EXHAUSTED" in text or
                    "OutOfMemory" in type(e).__name__):
                res.update(outcome="oom" if what != "start" else "could not start",
                           event=event if what != "start" else None)
                res["pass"] = npass
            else:
                res.update(outcome="error", error=text[:300])
            break
        if fw == "torch" and dev is not None:
            res["peak_reserved"] = torch.cuda.max_memory_reserved(dev)
        elif fw == "jax" and dev is not None:
            st = dev.memory_stats() or {}
            res["peak_reserved"] = max(res["peak_reserved"], st.get("peak_pool_bytes",
                                       st.get("pool_bytes", st.get("bytes_reserved", 0))))
        if idx == mine[-1]:
            if job.get("after") == "hold":
                # done, but alive: what it reserved stays until the others are done
                with cond:
                    turn.value = advance(idx + 1, steps, owner, dead, finite)
                    cond.notify_all()
                    while turn.value < len(steps):
                        cond.wait()
            break
        with cond:
            turn.value = advance(idx + 1, steps, owner, dead, finite)
            cond.notify_all()
    out.put((k, res))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("schedule")
    ap.add_argument("--capacity", type=int, required=True,
                    help="the scenario's card in bytes (share --format=json: capacity)")
    ap.add_argument("--gpumemsim", default="./gpumemsim")
    args = ap.parse_args()
    with open(args.scenario) as f:
        sc = json.load(f)
    base = os.path.dirname(os.path.abspath(args.scenario))
    jobs = sc["jobs"]
    for j in jobs:
        if framework_of(j) is None:
            print(json.dumps({"scenario": args.scenario,
                              "skipped": "no framework here for %s %s" % (
                                  j.get("policy"), j.get("flavor", "tensorflow"))}))
            return
    names = [j.get("name") for j in jobs]
    steps, owner = [], []
    with open(args.schedule) as f:
        f.readline()
        for line in f:
            _, name, what, event, npass, _ = line.strip().split(",")
            steps.append((what, int(event), int(npass)))
            owner.append(names.index(name))
    finite = [j.get("repeat", 1) != "until-end" for j in jobs]
    tmp = tempfile.mkdtemp()
    ctx = mp.get_context("spawn")
    turn, dead = ctx.Value("q", -1), ctx.Array("b", len(jobs))
    cond, out = ctx.Condition(), ctx.Queue()
    import torch  # spawned children start afresh: this process may hold CUDA first
    free, real_total = torch.cuda.mem_get_info(0)
    scale = args.capacity / real_total
    procs = []
    for k, j in enumerate(jobs):
        evs = events_of(args.gpumemsim, os.path.join(base, j["trace"]), tmp, k)
        mine = [i for i, o in enumerate(owner) if o == k]
        p = ctx.Process(target=run_job, args=(k, j, evs, mine, steps, owner, finite, turn,
                                              dead, cond, out, scale))
        p.start()
        procs.append(p)
    # the ballast: all of the card but the scenario's memory, held here; topped
    # up while the driver shows more free than that (card_free in the output
    # says where it ended)
    ballast = []
    for _ in range(8):
        free, _ = torch.cuda.mem_get_info(0)
        if free <= args.capacity + (2 << 20):
            break
        ballast.append(torch.empty(free - args.capacity, dtype=torch.uint8, device="cuda"))
    card_free = torch.cuda.mem_get_info(0)[0]
    with cond:
        turn.value = 0
        cond.notify_all()
    results = {}
    alive = set(range(len(procs)))
    while alive:
        while not out.empty():
            k, r = out.get()
            results[k] = r
        for k in list(alive):
            procs[k].join(timeout=0.01)
            if procs[k].exitcode is None:
                continue
            alive.discard(k)
            with cond:
                dead[k] = 1
                t = turn.value
                if 0 <= t < len(steps) and owner[t] == k:
                    t += 1
                turn.value = advance(t, steps, owner, dead, finite)
                cond.notify_all()
    while not out.empty():
        k, r = out.get()
        results[k] = r
    del ballast
    print(json.dumps({"scenario": os.path.basename(args.scenario), "card_free": card_free,
                      "jobs": [dict(name=names[k], **results.get(k, {"outcome": "no result"}))
                               for k in range(len(jobs))]}, indent=1))


if __name__ == "__main__":
    main()
