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


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(int(sys.argv[2]), sys.argv[3])
    else:
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        for r in range(WORLD):
            subprocess.run([sys.executable, __file__, "child", str(r), out], check=True)
