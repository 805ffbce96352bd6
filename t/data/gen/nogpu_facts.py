"""nogpu_facts.py DIR OUT - from what nogpu_all.sh brought back (DIR), the
facts the tests assert against (OUT/facts.json: each job's real peak reserved
and allocated from memory_stats(), the versions, and what the recording
without a GPU cost: seconds and peak RSS from /usr/bin/time), and the
recordings themselves copied beside it."""
import glob
import json
import os
import re
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
facts = {"jobs": {}}
for rj in sorted(glob.glob(os.path.join(src, "*.real.json"))):
    name = os.path.basename(rj)[:-len(".real.json")]
    d = json.load(open(rj))
    ms = d["memory_stats"]
    facts.update(torch=d["torch"], cuda=d["cuda"], cudnn=d["cudnn"], device=d["device"],
                 device_total=d["total"])
    job = {"peak_reserved": ms["reserved_bytes.all.peak"],
           "peak_allocated": ms["allocated_bytes.all.peak"],
           "num_alloc_retries": ms["num_alloc_retries"], "num_ooms": ms["num_ooms"]}
    log = os.path.join(src, name + ".nogpu.log")
    m = re.search(r"([\d.]+) s (\d+) KB", open(log).read()) if os.path.exists(log) else None
    if m:
        job.update(record_seconds=float(m.group(1)), record_max_rss_kb=int(m.group(2)))
    trace = os.path.join(src, name + ".nogpu.jsonl.gz")
    if os.path.exists(trace):
        shutil.copy(trace, os.path.join(out, name + ".nogpu.jsonl.gz"))
        job["recorded"] = True
    else:
        job["recorded"] = False
        job["refusal"] = open(log).read().strip().splitlines()[0] if os.path.exists(log) else None
    facts["jobs"][name] = job
with open(os.path.join(out, "facts.json"), "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
