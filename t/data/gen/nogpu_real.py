"""nogpu_real.py OUT NAME JOB.py ARGS... - the real run of a job for issue 56:
the allocator's snapshot (Python and C++ frames), memory_stats() at the end,
and the dispatcher's op log of the same run (gpumemsim.opmem.OpLog), so that
opmem.measure() can find what the dispatcher did not see."""
import gzip
import json
import os
import pickle
import runpy
import sys
import time

import torch

from gpumemsim.opmem import OpLog, measure

out, name, job = sys.argv[1], sys.argv[2], sys.argv[3]
sys.argv = sys.argv[3:]
torch.cuda.init()
torch.cuda.memory._record_memory_history(max_entries=2000000, stacks="all")
log = OpLog()
t0 = time.time()
try:
    with log.mode():
        runpy.run_path(job, run_name="__main__")
except SystemExit:
    pass
torch.cuda.synchronize()
seconds = time.time() - t0
snap = torch.cuda.memory._snapshot()
torch.cuda.memory._record_memory_history(enabled=None)
with gzip.open(os.path.join(out, name + ".real.pickle.gz"), "wb") as f:
    pickle.dump(snap, f)
table, unseen = measure(snap, log.ops)
json.dump(table, open(os.path.join(out, name + ".opmem.json"), "w"))
with gzip.open(os.path.join(out, name + ".ops.json.gz"), "wt") as f:
    json.dump(log.ops, f)
stats = torch.cuda.memory_stats()
json.dump({"memory_stats": {k: stats[k] for k in stats if k.endswith(".all.peak") or
                            k.endswith(".all.current") or k in ("num_alloc_retries", "num_ooms")},
           "seconds": seconds, "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(),
           "total": torch.cuda.get_device_properties(0).total_memory,
           "ops": len(log.ops), "unseen": unseen, "table": table},
          open(os.path.join(out, name + ".real.json"), "w"))
