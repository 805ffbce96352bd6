#!/usr/bin/env python3
"""fresh_default.py - every default-setting run of the shared ground truth
again, each in a fresh PyTorch process (replay/torch_replay.py --segments,
four at a time), with the segments the driver handed out (issue 17):

    python3 replay/fresh_default.py OUT.jsonl [SETTING ...]

With settings (PYTORCH_CUDA_ALLOC_CONF values, the keys of the ground
truth's runs, or "all" for the four), those settings' runs instead.

On the H200 (2026-12-01) all 56 equal the shared runs' peak reserved and OOM
event: the shared runs are fresh-process runs, the target a prediction must
meet.  Output: replay/results-h200/fresh-default.json.gz (written by the
first version of this script, as one JSON array), and with "all",
replay/results-h200/fresh-settings.jsonl.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def one(job):
    trace, conf, i, limit, path = job
    cmd = [sys.executable, "replay/torch_replay.py", path, "--segments"]
    if limit:
        cmd += ["--capacity", str(limit)]
    if conf != "(default)":
        cmd += ["--alloc-conf", conf]
    o = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return {"trace": trace, "setting": conf, "run": i, "limit": limit, "peak_reserved": o["peak_reserved"],
            "oom_event": o["oom"]["event"] if o["oom"] else None,
            "device_allocs": o["device_allocs"], "device_frees": o["device_frees"],
            "alloc_retries": o["alloc_retries"], "segments": o["segments"]}


def trace_path(trace):
    """A shared trace's copy in traces/."""
    path = "traces/%s.json" % trace
    return path if os.path.exists(path) else "traces/%s.jsonl.gz" % trace


def run_jobs(one, jobs, path):
    """one(job) for every job, FRESH_JOBS (4) at a time, each result written to
    path as it comes, one JSON object a line (a run cut short keeps them)."""
    res = []
    with ThreadPoolExecutor(int(os.environ.get("FRESH_JOBS", "4"))) as ex, \
            open(path, "w") as out:
        for x in ex.map(one, jobs):
            res.append(x)
            out.write(json.dumps(x) + "\n")
            out.flush()
    return res


def main():
    gt = json.load(open("t/data/pytorch.json"))
    settings = sys.argv[2:] or ["(default)"]
    if settings == ["all"]:
        settings = ["garbage_collection_threshold:0.8", "max_split_size_mb:64",
                    "roundup_power2_divisions:4", "expandable_segments:True"]
    jobs = []
    for trace, confs in gt["runs"].items():
        path = trace_path(trace)
        for conf in settings:
            for i, run in enumerate(confs[conf]):
                jobs.append((trace, conf, i, run.get("limit"), path))
    for x in run_jobs(one, jobs, sys.argv[1]):
        rec = gt["runs"][x["trace"]][x["setting"]][x["run"]]
        want = (rec["peak_reserved"], rec["oom"]["event"] if rec.get("oom") else None)
        print(x["trace"], x["setting"], x["run"], x["limit"], "fresh", x["peak_reserved"], x["oom_event"],
              "same" if (x["peak_reserved"], x["oom_event"]) == want else "DIFFERENT")


if __name__ == "__main__":
    main()
