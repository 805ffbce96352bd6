# Record the ranks of a pipeline-parallel training job as its users record
# them (issue 35): one snapshot per rank, each with
# torch.cuda.memory._record_memory_history()'s defaults, and its
# torch.cuda.memory_stats() beside it as the expected numbers.  Run on a
# machine with a CUDA GPU:
#   python3 record_ranks.py all OUTDIR
# Each rank is a fresh process of its own (world size 1: a one-GPU machine
# records the ranks' shapes, not their communication) running its stage of
# a 12-layer decoder split over 4 ranks: rank 0 the embedding and 3 layers,
# ranks 1 and 2 three layers each, rank 3 three layers, the LM head and the
# loss (32000-word vocabulary), so rank 3 holds the most, as pipeline users
# see.  Micro-batches go forward then backward (GPipe), inputs and the
# gradients coming back from the next stage made up with the right shapes.
#   python3 record_ranks.py child RANK OUTDIR
# writes OUTDIR/pp-rankRANK.pickle and OUTDIR/pp-rankRANK.facts.json.
#   python3 record_ranks.py ddp OUTDIR    (or fsdp)
# records a job with a real process group on the one GPU: DDP over gloo at
# world size 2 (uneven sequence lengths), FSDP over NCCL at world size 1,
# writing OUTDIR/ddp-rankR.pickle (fsdp-rank0) and their facts.
import json, os, subprocess, sys

WORLD, LAYERS_PER, D, HEADS, VOCAB = 4, 3, 768, 12, 32000
MICRO, BATCH, SEQ = 4, 4, 256


def child(rank, out):
    import torch
    import torch.nn as nn
    torch.manual_seed(rank)
    dev = "cuda"
    torch.cuda.memory._record_memory_history()

    class Stage(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, D) if rank == 0 else None
            layer = nn.TransformerEncoderLayer(D, HEADS, 4 * D, batch_first=True,
                                               dropout=0.0, norm_first=True)
            self.body = nn.TransformerEncoder(layer, LAYERS_PER)
            self.head = nn.Linear(D, VOCAB) if rank == WORLD - 1 else None

        def forward(self, x):
            if self.embed is not None:
                x = self.embed(x)
            x = self.body(x, is_causal=True,
                          mask=nn.Transformer.generate_square_subsequent_mask(SEQ, device=dev))
            return self.head(x) if self.head is not None else x

    m = Stage().to(dev)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    for step in range(2):
        outs, ins = [], []
        for mb in range(MICRO):
            if rank == 0:
                x = torch.randint(0, VOCAB, (BATCH, SEQ), device=dev)
            else:
                x = torch.randn(BATCH, SEQ, D, device=dev, requires_grad=True)
            ins.append(x)
            outs.append(m(x))
        for mb in reversed(range(MICRO)):
            y = outs[mb]
            if rank == WORLD - 1:
                t = torch.randint(0, VOCAB, (BATCH, SEQ), device=dev)
                nn.functional.cross_entropy(y.flatten(0, 1), t.flatten()).backward()
            else:
                y.backward(torch.randn_like(y))
            outs[mb] = None
        ins.clear()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    s = torch.cuda.memory_stats()
    keep = ["reserved_bytes.all.peak", "allocated_bytes.all.peak", "requested_bytes.all.peak",
            "reserved_bytes.all.current", "allocated_bytes.all.current",
            "num_device_alloc", "num_device_free", "num_alloc_retries", "num_ooms"]
    facts = {"rank": rank, "world": WORLD, "torch": torch.__version__,
             "memory_stats": {k: s.get(k) for k in keep},
             "device_total": torch.cuda.mem_get_info()[1]}
    torch.cuda.memory._dump_snapshot(os.path.join(out, "pp-rank%d.pickle" % rank))
    with open(os.path.join(out, "pp-rank%d.facts.json" % rank), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


def stats(torch, rank, world, kind):
    s = torch.cuda.memory_stats()
    keep = ["reserved_bytes.all.peak", "allocated_bytes.all.peak", "requested_bytes.all.peak",
            "reserved_bytes.all.current", "allocated_bytes.all.current",
            "num_device_alloc", "num_device_free", "num_alloc_retries", "num_ooms"]
    return {"rank": rank, "world": world, "job": kind, "torch": torch.__version__,
            "memory_stats": {k: s.get(k) for k in keep},
            "device_total": torch.cuda.mem_get_info()[1]}


def ddp_child(kind, rank, world, out):
    """A real process group on the one GPU: DDP over gloo (world 2: both ranks
    share the card, each its own process and allocator; rank r trains on
    sequences (r + 1) x 128 long, as uneven data makes ranks differ), or
    FSDP over NCCL at world size 1."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("gloo" if kind == "ddp" else "nccl", rank=rank, world_size=world)
    torch.cuda.set_device(0)
    torch.manual_seed(0)
    dev = "cuda"
    torch.cuda.memory._record_memory_history()
    layer = nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True, dropout=0.0)
    m = nn.Sequential(nn.TransformerEncoder(layer, 4), nn.Linear(512, 8000)).to(dev)
    if kind == "ddp":
        m = nn.parallel.DistributedDataParallel(m)
    else:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        m = FSDP(m)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    seq = (rank + 1) * 128
    for step in range(3):
        x = torch.randn(8, seq, 512, device=dev)
        y = torch.randint(0, 8000, (8, seq), device=dev)
        loss = nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    facts = stats(torch, rank, world, kind)
    name = "%s-rank%d" % (kind, rank)
    torch.cuda.memory._dump_snapshot(os.path.join(out, name + ".pickle"))
    with open(os.path.join(out, name + ".facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] in ("ddp", "fsdp") and len(sys.argv) > 4:
        ddp_child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] in ("ddp", "fsdp"):
        # python3 record_ranks.py ddp|fsdp OUTDIR: every rank at once
        out, world = sys.argv[2], 2 if sys.argv[1] == "ddp" else 1
        os.makedirs(out, exist_ok=True)
        procs = [subprocess.Popen([sys.executable, __file__, sys.argv[1], str(r), str(world),
                                   out]) for r in range(world)]
        if any(p.wait() != 0 for p in procs):
            sys.exit(1)
    else:
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        for r in range(WORLD):
            subprocess.run([sys.executable, __file__, "child", str(r), out], check=True)
