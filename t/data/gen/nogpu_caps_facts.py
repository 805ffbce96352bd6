"""nogpu_caps_facts.py DIR OUT - from what one GPU-machine call brought back
(DIR/rec: nogpu_record.sh's recordings; DIR/caps: nogpu_real.py's generate
runs and nogpu_caps.py's caps.json), the fixtures in OUT (t/data/nogpu):
each recording copied over its earlier one, generate's new sizes added to
facts.json (their recording's cost and what each run printed kept beside),
and the three capacities' facts merged into caps.json (a job run again
replaces its earlier facts; DIR/gpu.txt, when there, names the card)."""
import glob
import json
import os
import re
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
facts = json.load(open(os.path.join(out, "facts.json")))
for rec in sorted(glob.glob(os.path.join(src, "rec", "*.nogpu.jsonl.gz"))):
    shutil.copy(rec, os.path.join(out, os.path.basename(rec)))
for name in sorted(os.listdir(os.path.join(src, "rec"))):
    if not name.endswith(".nogpu.log"):
        continue
    job = name[:-len(".nogpu.log")]
    log = open(os.path.join(src, "rec", name)).read()
    got = facts["jobs"].setdefault(job, {})
    got["recorded"] = os.path.exists(os.path.join(src, "rec", job + ".nogpu.jsonl.gz"))
    if got["recorded"]:
        got.pop("refusal", None)
    else:
        got["refusal"] = log.strip().splitlines()[0]
    m = re.search(r"^generated (\(.*\))$", log, re.M)
    if m:
        got["recorded_printed"] = "generated " + m.group(1)
    if "record_seconds" not in got:     # kept from the calls that timed them alone
        m = re.search(r"([\d.]+) s (\d+) KB", log)
        if m:
            got.update(record_seconds=float(m.group(1)), record_max_rss_kb=int(m.group(2)))
for rj in sorted(glob.glob(os.path.join(src, "caps", "generate-*.real.json"))):
    job = os.path.basename(rj)[:-len(".real.json")]
    d = json.load(open(rj))
    ms = d["memory_stats"]
    got = facts["jobs"].setdefault(job, {})
    got.update(peak_reserved=ms["reserved_bytes.all.peak"],
               peak_allocated=ms["allocated_bytes.all.peak"],
               num_alloc_retries=ms["num_alloc_retries"], num_ooms=ms["num_ooms"])
    log = os.path.join(src, "caps", job + ".real.log")
    m = re.search(r"^generated (\(.*\))$", open(log).read(), re.M) if os.path.exists(log) else None
    if m:
        got["printed"] = "generated " + m.group(1)
with open(os.path.join(out, "facts.json"), "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
caps_path = os.path.join(out, "caps.json")
caps = json.load(open(caps_path)) if os.path.exists(caps_path) else {"jobs": {}}
new = json.load(open(os.path.join(src, "caps", "caps.json")))
caps["shares"] = new["shares"]
caps["jobs"].update(new["jobs"])
if os.path.exists(os.path.join(src, "gpu.txt")):
    gpu = open(os.path.join(src, "gpu.txt")).read().splitlines()
    caps["device"] = gpu[1] if len(gpu) > 1 else None
    caps["versions"] = gpu[2] if len(gpu) > 2 else None
with open(os.path.join(out, "caps.json"), "w") as f:
    json.dump(caps, f, indent=1, sort_keys=True)
