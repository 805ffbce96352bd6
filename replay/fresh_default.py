#!/usr/bin/env python3
"""fresh_default.py - every default-setting run of the shared ground truth
again, each in a fresh PyTorch process (replay/torch_replay.py --segments,
four at a time), with the segments the driver handed out (issue 17):

    python3 replay/fresh_default.py OUT.json

On the H200 (2026-12-01) all 56 equal the shared runs' peak reserved and OOM
event: the shared runs are fresh-process runs, the target a prediction must
meet.  Output: replay/results-h200/fresh-default.json.gz.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def one(job):
    trace, i, limit, path = job
    cmd = [sys.executable, "replay/torch_replay.py", path, "--segments"]
    if limit:
        cmd += ["--capacity", str(limit)]
    o = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return {"trace": trace, "run": i, "limit": limit, "peak_reserved": o["peak_reserved"],
            "oom_event": o["oom"]["event"] if o["oom"] else None,
            "device_allocs": o["device_allocs"], "device_frees": o["device_frees"],
            "alloc_retries": o["alloc_retries"], "segments": o["segments"]}


def main():
    gt = json.load(open("t/data/pytorch.json"))
    jobs = []
    for trace, confs in gt["runs"].items():
        path = "traces/%s.json" % trace
        if not os.path.exists(path):
            path = "traces/%s.jsonl.gz" % trace
        for i, run in enumerate(confs["(default)"]):
            jobs.append((trace, i, run.get("limit"), path))
    with ThreadPoolExecutor(4) as ex:
        res = list(ex.map(one, jobs))
    json.dump(res, open(sys.argv[1], "w"))
    for x in res:
        rec = gt["runs"][x["trace"]]["(default)"][x["run"]]
        want = (rec["peak_reserved"], rec["oom"]["event"] if rec.get("oom") else None)
        print(x["trace"], x["run"], x["limit"], "fresh", x["peak_reserved"], x["oom_event"],
              "same" if (x["peak_reserved"], x["oom_event"]) == want else "DIFFERENT")


if __name__ == "__main__":
    main()
