"""nogpu_caps.py OUT FACTS.json JOB... - issue 56's three capacities: each
job (MODEL-SIZE, as in facts.json) run for real on the GPU machine under
set_per_process_memory_fraction at 90, 97 and 103 % of its own peak reserved
(each rounded down to whole 2 MiB), six at a time (nogpu_oom.py), and what
its allocator did there kept in OUT/caps.json: the outcome, memory_stats()'s
peaks and retries, and for a run that ran out, the request, how many
allocations came before it and the job's frame that asked.  The snapshots
are read here and deleted (they are large); the recordings made without a
GPU are replayed against these facts where the tests run (t/cli-nogpu.sh).
A job without a peak in FACTS.json takes it from OUT/JOB.real.json
(nogpu_real.py run before).  Runs named in KEEP (e.g. KEEP=gpt2-256-cap90)
keep their allocator's events, compacted to OUT/NAME.events.json.gz as
nogpu_events.py does, to align with the recording."""
import gzip
import json
import os
import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from nogpu_events import compact, user_frame

out, facts_path, jobs = sys.argv[1], sys.argv[2], sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
facts = json.load(open(facts_path))["jobs"]
SEG = 2 << 20
SHARES = (0.90, 0.97, 1.03)


def peak(job):
    if job in facts:
        return facts[job]["peak_reserved"]
    return json.load(open(os.path.join(out, job + ".real.json")))["memory_stats"][
        "reserved_bytes.all.peak"]


def one(task):
    job, share, limit = task
    name = "%s-cap%d" % (job, round(share * 100))
    model, size = job.rsplit("-", 1)
    subprocess.run([sys.executable, os.path.join(here, "nogpu_oom.py"), out, name, str(limit),
                    os.path.join(here, "nogpu_jobs.py"), model, size],
                   stdout=open(os.path.join(out, name + ".log"), "w"), stderr=subprocess.STDOUT)
    rj = os.path.join(out, name + ".real.json")
    if not os.path.exists(rj):
        return job, share, {"limit": limit, "failed": open(os.path.join(out, name + ".log")).read()[-2000:]}
    d = json.load(open(rj))
    ms = d["memory_stats"]
    got = {"limit": limit, "outcome": d["outcome"], "num_ooms": ms["num_ooms"],
           "num_alloc_retries": ms["num_alloc_retries"],
           "peak_reserved": ms["reserved_bytes.all.peak"],
           "peak_allocated": ms["allocated_bytes.all.peak"]}
    pk = os.path.join(out, name + ".real.pickle.gz")
    snap = pickle.load(gzip.open(pk))
    allocs = 0
    for e in snap["device_traces"][0]:
        if e["action"] == "alloc":
            allocs += 1
        elif e["action"] == "oom":
            got["oom"] = {"request": e["size"], "allocs_before": allocs,
                          "at": user_frame(e.get("frames"))}
            break
    if name in os.environ.get("KEEP", "").split(","):
        with gzip.open(os.path.join(out, name + ".events.json.gz"), "wt") as f:
            json.dump(compact(snap), f)
    os.remove(pk)
    os.remove(rj)
    return job, share, got


tasks = []
for job in jobs:
    p = peak(job)
    for s in SHARES:
        tasks.append((job, s, int(p * s) // SEG * SEG))
caps = {}
with ThreadPoolExecutor(6) as ex:
    # written after each run: a call cut short keeps what finished
    for job, share, got in ex.map(one, tasks):
        caps.setdefault(job, {})["%d" % round(share * 100)] = got
        json.dump({"shares": SHARES, "jobs": caps}, open(os.path.join(out, "caps.json"), "w"),
                  indent=1, sort_keys=True)
