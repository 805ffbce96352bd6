"""nogpu_fit_facts.py DIR OUT - from what nogpu_fit.sh brought back (DIR),
the closed loop's fixtures (OUT/fit-*.nogpu.jsonl.gz, the recordings made
with CUDA hidden) and the facts the tests assert against (OUT/fit.json: each
real run's memory_stats(), what it printed, its OutOfMemoryError)."""
import json
import os
import re
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
facts = {}
for name in sorted(os.listdir(src)):
    if not name.endswith(".real.json"):
        continue
    d = json.load(open(os.path.join(src, name)))
    ms = d["memory_stats"]
    job = {"peak_reserved": ms["reserved_bytes.all.peak"], "peak_allocated": ms["allocated_bytes.all.peak"],
           "num_ooms": ms["num_ooms"], "limit": d["limit"], "printed": d["printed"].splitlines()}
    if d["outcome"] != "done":
        job["oom"] = d["outcome"]
        m = re.search(r"Tried to allocate ([0-9]+)\.00 MiB", d["outcome"])
        if m:   # a whole number of MiB: the request's bytes exactly
            job["oom_request"] = int(m.group(1)) << 20
    log = os.path.join(src, name[:-len(".real.json")] + ".log")
    if os.path.exists(log):     # what the job printed while recorded without a GPU
        job["recorded_printed"] = [l.strip() for l in open(log) if "at batch" in l]
    facts[name[:-len(".real.json")]] = job
json.dump({"device": "NVIDIA H100 80GB HBM3", "torch": "2.11.0+cu130", "jobs": facts},
          open(os.path.join(out, "fit.json"), "w"), indent=1, sort_keys=True)
for rec, dest in (("find.jsonl.gz", "fit-find"), ("die.jsonl.gz", "fit-die"),
                  ("largest/nogpu_fit-8.nogpu.jsonl.gz", "fit-8")):
    shutil.copy(os.path.join(src, rec), os.path.join(out, dest + ".nogpu.jsonl.gz"))
