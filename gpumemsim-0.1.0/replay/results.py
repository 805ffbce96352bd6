#!/usr/bin/env python3
"""results.py - the tables of replay/RESULTS.md from what replay/run-gpu.sh
wrote: `python3 replay/results.py DIR > tables.md`.

Table 1: each policy replayed over the real GPU beside the simulation's
prediction, and whether the re-simulation with the GPU's own addresses
agrees.  Table 2: PyTorch's own allocator (replay/torch_replay.py) beside
the caching policy replayed on the same GPU.  Table 3 (replay/settings-
gpu.sh): the settings runs the placement model missed, PyTorch's recorded
result (t/data/pytorch.json) beside PyTorch and the replay in this session.
"""
import glob
import json
import os
import sys

POLICIES = ["caching", "expandable", "grow-only", "preallocate", "no-cache"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def err_of(path):
    try:
        with open(path[:-5] + ".err") as f:
            return f.read().strip().replace("gpumemsim: error: ", "")
    except OSError:
        return "no output"


def oom(v):
    return "-" if v is None else str(v)


def mark(ok):
    return "yes" if ok else "**no**"


def traces(d):
    names = set()
    for p in glob.glob(os.path.join(d, "replay.*.json")):
        names.add(os.path.basename(p).split(".")[1])
    return sorted(names)


def table_replay(d):
    print("| trace | policy | capacity | peak reserved: simulated | replayed | "
          "device allocs / frees: simulated | replayed | OOM event: simulated | replayed | "
          "agree | re-simulation agrees | cudaMalloc median / p99 (us) |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|---|---|--:|")
    n = agree = resim = 0
    for t in traces(d):
        for p in POLICIES:
            for capped in (False, True):
                if p == "expandable" and capped:
                    continue
                path = os.path.join(d, "replay.%s.%s%s.json" % (t, p, ".capped" if capped else ""))
                doc = load(path)
                if doc is None:
                    print("| %s | %s | %s | %s |" % (t, p, "capped" if capped else "-", err_of(path)))
                    continue
                r = doc["result"]
                s, g, a = r["simulated"], r["replayed"], r["agree"]
                all_agree = a["peak_reserved"] and a["device_allocs"] and a["device_frees"] and a["oom"]
                n += 1
                agree += all_agree
                resim += a["resimulated"]
                m = r["cudaMalloc"]
                print("| %s | %s | %s | %d | %d | %d / %d | %d / %d | %s | %s | %s | %s | %.0f / %.0f |" % (
                    t, p, doc["capacity"] or "-", s["peak_reserved"], g["peak_reserved"],
                    s["device_allocs"], s["device_frees"], g["device_allocs"], g["device_frees"],
                    oom(s["oom_event"]), oom(g["oom_event"]), mark(all_agree), mark(a["resimulated"]),
                    m["median_s"] * 1e6, m["p99_s"] * 1e6))
    print()
    print("%d replays: the prediction agrees in %d, the re-simulation in %d." % (n, agree, resim))


def table_torch(d):
    print("| trace | setting | capacity | PyTorch: peak reserved | device allocs / frees | OOM event | "
          "replayed caching: peak reserved | device allocs / frees | OOM event | equal |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|---|")
    n = same = 0
    contexts = []
    for t in traces(d):
        for kind, ours in (("", "caching"), (".capped", "caching.capped"),
                           (".expandable", "expandable")):
            tp = os.path.join(d, "torch.%s%s.json" % (t, kind))
            rp = os.path.join(d, "replay.%s.%s.json" % (t, ours))
            tdoc, rdoc = load(tp), load(rp)
            if tdoc is None or rdoc is None:
                print("| %s | %s | | %s |" % (t, kind or "default", "missing"))
                continue
            contexts.append(tdoc["context_bytes"])
            g = rdoc["result"]["replayed"]
            toom = tdoc["oom"]["event"] if tdoc["oom"] else None
            eq = (tdoc["peak_reserved"] == g["peak_reserved"] and
                  tdoc["device_allocs"] == g["device_allocs"] and
                  tdoc["device_frees"] == g["device_frees"] and toom == g["oom_event"])
            n += 1
            same += eq
            print("| %s | %s | %s | %d | %d / %d | %s | %d | %d / %d | %s | %s |" % (
                t, "expandable_segments" if kind == ".expandable" else "default",
                tdoc["capacity"] or "-", tdoc["peak_reserved"], tdoc["device_allocs"],
                tdoc["device_frees"], oom(toom), g["peak_reserved"], g["device_allocs"],
                g["device_frees"], oom(g["oom_event"]), mark(eq)))
    print()
    print("%d runs: equal in %d." % (n, same))
    if contexts:
        print("PyTorch's CUDA context (cudaMemGetInfo in use before the first allocation): "
              "%d to %d bytes." % (min(contexts), max(contexts)))


def table_settings(d):
    here = os.path.dirname(os.path.abspath(__file__))
    lines = [l.split() for l in open(os.path.join(here, "settings-mismatches.txt"))]
    with open(os.path.join(here, "..", "t", "data", "pytorch.json")) as f:
        fixture = json.load(f)
    print("| trace | setting | limit | recorded: peak reserved / OOM | simulated (model) | "
          "PyTorch now | device allocs / frees | replayed | device allocs / frees | equal |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|---|")
    n = same = 0
    for i, (trace, conf, limit) in enumerate(lines):
        limit = int(limit)
        rec = [r for r in fixture["runs"][trace][conf] if (r["limit"] or 0) == limit][0]
        rp = load(os.path.join(d, "settings.%d.replay.json" % i))
        tp = load(os.path.join(d, "settings.%d.torch.json" % i))
        if rp is None or tp is None:
            print("| %s | %s | %s | missing |" % (trace, conf, limit or "-"))
            continue
        s, g = rp["result"]["simulated"], rp["result"]["replayed"]
        room = rec["oom"]["event"] if rec["oom"] else None
        toom = tp["oom"]["event"] if tp["oom"] else None
        eq = (rec["peak_reserved"] == tp["peak_reserved"] == g["peak_reserved"] and
              room == toom == g["oom_event"] and tp["device_allocs"] == g["device_allocs"] and
              tp["device_frees"] == g["device_frees"])
        n += 1
        same += eq
        print("| %s | %s | %s | %d / %s | %d / %s | %d / %s | %d / %d | %d / %s | %d / %d | %s |" % (
            trace, conf, limit or "-", rec["peak_reserved"], oom(room), s["peak_reserved"],
            oom(s["oom_event"]), tp["peak_reserved"], oom(toom), tp["device_allocs"],
            tp["device_frees"], g["peak_reserved"], oom(g["oom_event"]), g["device_allocs"],
            g["device_frees"], mark(eq)))
    print()
    print("%d runs: recorded, PyTorch now and the replay equal in %d." % (n, same))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    print("### The policies on the GPU, beside the simulation\n")
    table_replay(d)
    print("\n### PyTorch's allocator beside the caching policy on the GPU\n")
    table_torch(d)
    if glob.glob(os.path.join(d, "settings.*.replay.json")):
        print("\n### The settings runs the placement model missed, on the GPU\n")
        table_settings(d)


if __name__ == "__main__":
    main()
