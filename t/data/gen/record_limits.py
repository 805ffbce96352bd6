# Record what PyTorch's allocator does under tight limits on the jobs whose
# segments the placement model puts elsewhere (issue 25: a run on a recording
# under a capacity it did not have; which addresses should it follow?).
# Each job of record_scale.py at one value, in a fresh process, under each
# limit given (set_per_process_memory_fraction: fraction = limit / total),
# with its memory_stats() and whether it ran out.  Run on a CUDA machine:
#   python3 record_limits.py OUT.json JOB:VALUE:LIMIT[,LIMIT...] ...
#   python3 record_limits.py child FAMILY VALUE LIMIT
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_scale


def child(family, value, limit):
    import torch
    total = torch.cuda.mem_get_info()[1]
    torch.cuda.set_per_process_memory_fraction(limit / total)
    facts = {"family": family, "value": value, "limit": limit,
             "fraction": limit / total, "device_total": total}
    try:
        record_scale.job(torch, family, value)
        facts["ran_out"] = False
    except torch.OutOfMemoryError as e:
        facts["ran_out"] = True
        facts["message"] = str(e).splitlines()[0]
    s = torch.cuda.memory_stats()
    facts["memory_stats"] = {k: s.get(k) for k in record_scale.KEEP}
    print(json.dumps(facts))


def one(args):
    env = dict(os.environ)
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    p = subprocess.run([sys.executable, __file__, "child"] + args, env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return {"args": args, "error": p.stderr[-1500:]}
    return json.loads(p.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        sys.exit(0)
    work = []
    for spec in sys.argv[2:]:
        job, value, limits = spec.rsplit(":", 2)
        for lim in limits.split(","):
            work.append([job, value, lim])
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "4"))) as ex:
        runs = list(ex.map(one, work))
    with open(sys.argv[1], "w") as f:
        json.dump(runs, f, indent=1, sort_keys=True)
