# Record the ranks of a DDP job as profiler users record them (issue 35: the
# rank from a file's contents): torch.profiler with profile_memory=True on
# every rank, written by tensorboard_trace_handler under its own names
# (HOST_PID.TIME.pt.trace.json: nothing says the rank but the file's
# "distributedInfo"), and each rank's torch.cuda.memory_stats() beside it.
# Run on a machine with a CUDA GPU:
#   python3 record_ranks_profile.py OUTDIR
# Two processes, DDP over gloo at world size 2 on the one card (each its own
# allocator); rank r trains on sequences (r + 1) x 64 long, so rank 1 holds
# more.  OUTDIR/*.pt.trace.json, OUTDIR/facts-rankR.json.
import json, os, subprocess, sys


def child(rank, world, out):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.profiler import ProfilerActivity, profile, tensorboard_trace_handler
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29519")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.cuda.set_device(0)
    torch.manual_seed(0)
    dev = "cuda"
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 profile_memory=True, on_trace_ready=tensorboard_trace_handler(out)):
        layer = nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, dropout=0.0)
        m = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Linear(256, 4000)).to(dev)
        m = nn.parallel.DistributedDataParallel(m)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        seq = (rank + 1) * 64
        for step in range(2):
            x = torch.randn(8, seq, 256, device=dev)
            y = torch.randint(0, 4000, (8, seq), device=dev)
            loss = nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten())
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    s = torch.cuda.memory_stats()
    facts = {"rank": rank, "world_size": world, "torch": torch.__version__,
             "peak_reserved": s["reserved_bytes.all.peak"],
             "peak_allocated": s["allocated_bytes.all.peak"],
             "device_allocs": s["segment.all.allocated"],
             "reserved_now": s["reserved_bytes.all.current"]}
    with open(os.path.join(out, "facts-rank%d.json" % rank), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) > 3:
        child(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
    else:
        out = sys.argv[1]
        os.makedirs(out, exist_ok=True)
        procs = [subprocess.Popen([sys.executable, __file__, str(r), "2", out]) for r in range(2)]
        if any(p.wait() != 0 for p in procs):
            sys.exit(1)
