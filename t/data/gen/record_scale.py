# Record the ground truth of issue 30 (the job you have not run): three job
# families, each at seven values of one size, recorded as users record them
# (torch.cuda.memory._record_memory_history()'s defaults), every run in a
# fresh process.  Run on a machine with a CUDA GPU:
#   python3 record_scale.py all OUTDIR [-jN] [FAMILY...]   (N processes at a time)
# For each family and value, OUTDIR/FAMILY-VALUE.pickle (uncapped) and
# OUTDIR/FAMILY-VALUE.facts.json: torch.cuda.memory_stats() at the end, the
# device's total.  Then every value again in a fresh process under one
# capacity per family (set_per_process_memory_fraction), chosen between the
# uncapped peaks reserved of the family's 4th and 5th values, so that some
# values fit and some do not: OUTDIR/FAMILY-VALUE.capped.json says whether
# it ran out of memory (and PyTorch's message) and what it reserved.
# OUTDIR/scale.json lists the families, their values and capacities.
#   python3 record_scale.py child FAMILY VALUE OUTDIR [FRACTION]
import json, os, subprocess, sys, time

FAMILIES = {
    # a CNN's batch: ResNet-18 training on 96x96 images, 2 steps
    "cnn-batch": [4, 8, 12, 16, 24, 32, 48],
    # a transformer's sequence length: a small GPT-2 (4 layers, d 256, 4 heads)
    # with eager attention, so that each layer holds batch x heads x length^2
    # scores, fine-tuned at batch 4 for 2 steps
    "xfmr-seq": [64, 128, 192, 256, 384, 512, 768],
    # a transformer's batch: a 4-layer encoder (d 512; PyTorch's fused
    # attention, so memory follows the tokens) at sequence length 256
    "xfmr-batch": [2, 4, 6, 8, 12, 16, 24],
    # issue 57: the models users have.  HF GPT-2 (12 layers, 768 wide,
    # n_positions 2048, the library's default attention, fp32) at batch 4 by
    # sequence length, three AdamW steps
    "gpt2-seq": [128, 256, 384, 512, 768, 1024, 1536, 2048],
    # HF BertForSequenceClassification (base, 3 labels) at length 256 by
    # batch, three AdamW steps
    "bert-batch": [8, 16, 32, 48, 64, 96, 128],
}
KEEP = ["reserved_bytes.all.peak", "allocated_bytes.all.peak", "requested_bytes.all.peak",
        "active_bytes.all.peak", "reserved_bytes.all.current", "allocated_bytes.all.current",
        "num_device_alloc", "num_device_free", "num_alloc_retries", "num_ooms"]


def job(torch, family, value):
    import torch.nn as nn
    dev = "cuda"
    torch.manual_seed(0)
    if family == "cnn-batch":
        import torchvision
        m = torchvision.models.resnet18(num_classes=10).to(dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(2):
            x = torch.randn(value, 3, 96, 96, device=dev)
            y = torch.randint(0, 10, (value,), device=dev)
            nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
            opt.zero_grad()
    elif family == "xfmr-seq":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, n_positions=1024, vocab_size=8192,
                         attn_implementation="eager")
        m = GPT2LMHeadModel(cfg).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for _ in range(2):
            ids = torch.randint(0, 8192, (4, value), device=dev)
            m(input_ids=ids, labels=ids).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    elif family == "gpt2-seq":
        from transformers import GPT2Config, GPT2LMHeadModel
        m = GPT2LMHeadModel(GPT2Config(n_positions=2048)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for _ in range(3):
            ids = torch.randint(0, 50257, (4, value), device=dev)
            m(input_ids=ids, labels=ids).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        return m.config._attn_implementation
    elif family == "bert-batch":
        from transformers import BertConfig, BertForSequenceClassification
        m = BertForSequenceClassification(BertConfig(num_labels=3)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for _ in range(3):
            ids = torch.randint(0, 30522, (value, 256), device=dev)
            y = torch.randint(0, 3, (value,), device=dev)
            m(input_ids=ids, labels=y).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        return m.config._attn_implementation
    else:
        batch, n = value, 256
        layer = nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True, dropout=0.0)
        m = nn.Sequential(nn.TransformerEncoder(layer, 4), nn.Linear(512, 1000)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for _ in range(2):
            x = torch.randn(batch, n, 512, device=dev)
            y = torch.randint(0, 1000, (batch, n), device=dev)
            nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten()).backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    return None


def child(family, value, out, fraction):
    import torch
    name = f"{family}-{value}"
    total = torch.cuda.mem_get_info()[1]
    facts = {"family": family, "value": value, "torch": torch.__version__, "device_total": total}
    if fraction is None:
        torch.cuda.memory._record_memory_history()
        facts["attention"] = job(torch, family, value)
        torch.cuda.synchronize()
        torch.cuda.memory._dump_snapshot(f"{out}/{name}.pickle")
        s = torch.cuda.memory_stats()
        facts["memory_stats"] = {k: s.get(k) for k in KEEP}
        with open(f"{out}/{name}.facts.json", "w") as f:
            json.dump(facts, f, indent=1, sort_keys=True)
        return
    torch.cuda.set_per_process_memory_fraction(fraction)
    facts["fraction"] = fraction
    facts["limit"] = int(fraction * total)
    try:
        job(torch, family, value)
        torch.cuda.synchronize()
        facts["ran_out"] = False
    except torch.OutOfMemoryError as e:
        facts["ran_out"] = True
        facts["message"] = str(e).splitlines()[0]
        torch.cuda.synchronize()
    s = torch.cuda.memory_stats()
    facts["memory_stats"] = {k: s.get(k) for k in KEEP}
    with open(f"{out}/{name}.capped.json", "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


def run_child(args, timeout=300):
    env = dict(os.environ)
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    t = time.time()
    p = subprocess.run([sys.executable, __file__, "child"] + args, env=env,
                       capture_output=True, text=True, timeout=timeout)
    print(" ".join(args[:2] + args[3:]), f"rc {p.returncode} in {time.time() - t:.1f}s", flush=True)
    if p.returncode != 0:
        print(p.stderr[-2000:], flush=True)


def main_all(out, families, jobs=1):
    """Every value of each family uncapped, then under the family's capacity;
    JOBS processes at a time (each process has its own allocator, so runs
    side by side on one card record what they record alone, while the card
    has room for them all)."""
    from concurrent.futures import ThreadPoolExecutor
    os.makedirs(out, exist_ok=True)
    try:
        with open(f"{out}/scale.json") as f:
            summary = json.load(f)
    except OSError:
        summary = {}
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(run_child, [[fam, str(v), out] for fam in families for v in FAMILIES[fam]]))
    capped = []
    for fam in families:
        values = FAMILIES[fam]
        peaks = []
        for v in values:
            with open(f"{out}/{fam}-{v}.facts.json") as f:
                fx = json.load(f)
            peaks.append(fx["memory_stats"]["reserved_bytes.all.peak"])
        total = fx["device_total"]
        capacity = (peaks[3] + peaks[4]) // 2
        fraction = capacity / total
        capped += [[fam, str(v), out, repr(fraction)] for v in values]
        summary[fam] = {"values": values, "peak_reserved": peaks, "capacity_between": capacity,
                        "fraction": fraction, "limit": int(fraction * total),
                        "device_total": total}
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(run_child, capped))
    with open(f"{out}/scale.json", "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if sys.argv[1] == "all":
        # all OUTDIR [-jN] [FAMILY...]
        args = sys.argv[3:]
        jobs = int(args.pop(0)[2:]) if args and args[0].startswith("-j") else 1
        main_all(sys.argv[2], args or list(FAMILIES), jobs)
    else:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4],
              float(sys.argv[5]) if len(sys.argv) > 5 else None)
