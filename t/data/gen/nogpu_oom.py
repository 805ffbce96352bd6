"""nogpu_oom.py OUT NAME LIMIT JOB.py ARGS... - the real run of a job near
the card's limit for issue 56: under set_per_process_memory_fraction(LIMIT
bytes of the card; 0 for none), the allocator's snapshot and memory_stats()
at the end (or where an uncaught OutOfMemoryError stopped it), and what it
printed, to set beside the recording of the same job without a GPU."""
import contextlib
import gzip
import io
import json
import os
import pickle
import runpy
import sys

import torch

out, name, limit, job = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.argv = sys.argv[4:]
torch.cuda.init()
total = torch.cuda.get_device_properties(0).total_memory
if limit:
    torch.cuda.set_per_process_memory_fraction(limit / total)
torch.cuda.memory._record_memory_history(max_entries=2000000)
printed, outcome = io.StringIO(), "done"
try:
    with contextlib.redirect_stdout(printed):
        runpy.run_path(job, run_name="__main__")
except torch.OutOfMemoryError as e:
    outcome = str(e).splitlines()[0]
except SystemExit:      # a job that ends with sys.exit() (nogpu_jobs.py's generate)
    pass
snap = torch.cuda.memory._snapshot()
with gzip.open(os.path.join(out, name + ".real.pickle.gz"), "wb") as f:
    pickle.dump(snap, f)
s = torch.cuda.memory_stats()
json.dump({"memory_stats": {k: s[k] for k in s if k.endswith(".all.peak") or k.endswith(".all.current")
                            or k in ("num_alloc_retries", "num_ooms", "num_device_alloc")},
           "limit": limit, "total": total, "outcome": outcome, "printed": printed.getvalue(),
           "free_plus_reserved": torch.cuda.mem_get_info()[0] + s["reserved_bytes.all.current"]},
          open(os.path.join(out, name + ".real.json"), "w"), indent=1)
