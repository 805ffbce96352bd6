#!/usr/bin/env python3
"""va_probe.py - how the CUDA driver places reservations, measured (issue 17):

    python3 replay/va_probe.py PROBE t/data/pytorch.json OUT.json [TRACES_DIR]

1. Each shared address run (the segments PyTorch's allocator reserved and
   released, in order, with the driver's addresses) is replayed through raw
   cudaMalloc/cudaFree (PROBE, replay/va_probe.c) in a fresh process, twice:
   are the addresses, relative to the first, the recorded ones, and the same
   both times (the driver deterministic given the history)?
2. Single sizes: four reservations of each size in a fresh process (the
   alignment, the direction, the step).
3. With TRACES_DIR: each trace replayed by a fresh PyTorch process
   (replay/torch_replay.py --segments), uncapped and under its first limit:
   the same addresses as the shared recording?
Writes everything to OUT.json and a summary to standard output.
"""
import json
import os
import subprocess
import sys

MiB = 1 << 20


def probe(exe, script):
    out = subprocess.run([exe], input="".join(script), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return [None if w[2] == "fail" else int(w[2])
            for w in (line.split() for line in out) if w and w[0] == "a"]


def script_of(segments):
    live, script = {}, []
    for kind, addr, size in segments:
        if kind == "a":
            live[addr] = len([s for s in script if s[0] == "a"])
            script.append("a %d\n" % size)
        else:
            script.append("f %d\n" % live.pop(addr))
    return script


def offsets(addrs):
    base = next((a for a in addrs if a is not None), 0)
    return [None if a is None else a - base for a in addrs]


def compare(want, got):
    same = sum(1 for w, g in zip(want, got) if w == g)
    first = next((i for i, (w, g) in enumerate(zip(want, got)) if w != g), None)
    return same, first


def main():
    exe, gt_path, out_path = sys.argv[1:4]
    traces = sys.argv[4] if len(sys.argv) > 4 else None
    gt = json.load(open(gt_path))
    result = {"address_runs": [], "sizes": [], "torch": []}
    for trace, runs in gt["address_runs"].items():
        for r, run in enumerate(runs):
            rec = [a for k, a, s in run["segments"] if k == "a"]
            script = script_of(run["segments"])
            p1, p2 = probe(exe, script), probe(exe, script)
            same, first = compare(offsets(rec), offsets(p1))
            row = {"trace": trace, "run": r, "limit": run.get("limit"), "segments": len(rec),
                   "same_offsets": same, "first_difference": first,
                   "deterministic": p1 == p2, "same_offsets_twice": offsets(p1) == offsets(p2),
                   "recorded": offsets(rec), "probe": offsets(p1), "probe_first": p1[0]}
            result["address_runs"].append(row)
            print("raw  %-28s run %d: %3d of %3d segments at the recorded offsets (first "
                  "difference %s); deterministic %s, same offsets twice %s" % (
                      trace, r, same, len(rec), first, p1 == p2, row["same_offsets_twice"]))
    for size_mib in (2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 30, 32, 34, 36, 48, 64, 66,
                     96, 128, 130, 148, 160, 194, 256, 302, 512, 1024, 1228):
        got = probe(exe, ["i\n"] + ["a %d\n" % (size_mib * MiB)] * 4)
        steps = [(b - a) // MiB for a, b in zip(got, got[1:])]
        result["sizes"].append({"mib": size_mib, "addrs": got, "steps_mib": steps})
        print("size %5d MiB: first %#x, steps %s MiB" % (size_mib, got[0], steps))
    if traces:
        for trace, runs in gt["address_runs"].items():
            path = os.path.join(traces, trace + ".json")
            if not os.path.exists(path):
                path = os.path.join(traces, trace + ".jsonl.gz")
            for r in (0, 1):
                cmd = [sys.executable, "replay/torch_replay.py", path, "--segments"]
                if runs[r].get("limit"):
                    cmd += ["--capacity", str(runs[r]["limit"])]
                got = json.loads(subprocess.run(cmd, capture_output=True, text=True,
                                                check=True).stdout)
                rec_segs = runs[r]["segments"]
                got_segs = got["segments"]
                rec = offsets([a for k, a, s in rec_segs if k == "a"])
                new = offsets([a for k, a, s in got_segs if k == "a"])
                same, first = compare(rec, new)
                row = {"trace": trace, "run": r, "limit": runs[r].get("limit"),
                       "recorded_peak": runs[r]["peak_reserved"],
                       "fresh_peak": got["peak_reserved"],
                       "recorded_oom": runs[r].get("oom_event"),
                       "fresh_oom": got["oom"]["event"] if got["oom"] else None,
                       "segments_recorded": len(rec), "segments_fresh": len(new),
                       "same_offsets": same, "first_difference": first,
                       "same_sizes": [s for k, a, s in rec_segs] == [s for k, a, s in got_segs],
                       "fresh": got_segs, "context_bytes": got["context_bytes"]}
                result["torch"].append(row)
                print("torch %-28s run %d: peak %d vs recorded %d, oom %s vs %s; %d of %d "
                      "segments at the recorded offsets (first difference %s), same sizes %s" % (
                          trace, r, got["peak_reserved"], runs[r]["peak_reserved"],
                          row["fresh_oom"], row["recorded_oom"], same, len(rec), first,
                          row["same_sizes"]))
    json.dump(result, open(out_path, "w"))


if __name__ == "__main__":
    main()
