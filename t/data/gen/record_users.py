# Record real PyTorch jobs as users record them, under the conditions users
# have (issue 25): allocator settings, a memory limit, the OOM that made them
# look, CUDA graphs, a profiler trace, an empty_cache() server.  Run on a
# machine with a CUDA GPU:
#   python3 record_users.py all OUTDIR
# Every recording is made in a fresh process (the allocator's state, and the
# driver's addresses, carry over otherwise) by
#   python3 record_users.py child SCENARIO OUTDIR [FRACTION]
# and writes OUTDIR/SCENARIO.pickle (or .pt.trace.json) with
# OUTDIR/SCENARIO.facts.json: torch.cuda.memory_stats() at the dump, the
# limit the allocator enforced, the settings: the expected numbers.
import json, os, subprocess, sys, time

TORCH_CONF = {
    "set-expandable": "expandable_segments:True",
    "set-roundup": "roundup_power2_divisions:4",
    "set-gcsplit": "garbage_collection_threshold:0.6,max_split_size_mb:128",
    "lim-gcsplit": "garbage_collection_threshold:0.6,max_split_size_mb:128",
}



def gpt2_server(dev):
    """A small GPT-2 serving six requests of mixed lengths, emptying the cache
    after each (the emptycache scenarios, recorded and profiled)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=8000, n_positions=1024)
    m = GPT2LMHeadModel(cfg).to(dev).eval()
    with torch.no_grad():
        for n in [200, 37, 512, 90, 300, 700]:
            ids = torch.randint(0, 8000, (4, n), device=dev)
            logits = m(ids).logits
            logits[:, -1].argmax(-1).cpu()
            del logits, ids
            torch.cuda.empty_cache()

def stats_facts(torch, facts):
    s = torch.cuda.memory_stats()
    keep = ["reserved_bytes.all.peak", "allocated_bytes.all.peak", "requested_bytes.all.peak",
            "active_bytes.all.peak", "reserved_bytes.all.current", "allocated_bytes.all.current",
            "num_device_alloc", "num_device_free", "num_alloc_retries", "num_ooms",
            "num_sync_all_streams"]
    facts["memory_stats"] = {k: s.get(k) for k in keep}
    free, total = torch.cuda.mem_get_info()
    facts["device_total"] = total


def child(scen, out, fraction):
    import torch
    import torch.nn as nn
    dev = "cuda"
    facts = {"scenario": scen, "torch": torch.__version__,
             "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}
    total = torch.cuda.mem_get_info()[1]
    if fraction is not None:
        torch.cuda.set_per_process_memory_fraction(fraction)
        facts["fraction"] = fraction
        facts["limit"] = int(fraction * total)
    torch.manual_seed(0)

    def xfmr_job(lengths, batch=8, d=512, layers=4):
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True, dropout=0.0)
        m = nn.Sequential(nn.TransformerEncoder(layer, layers), nn.Linear(d, 1000)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for n in lengths:
            x = torch.randn(batch, n, d, device=dev)
            y = torch.randint(0, 1000, (batch, n), device=dev)
            loss = nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten())
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    def resnet_job(iters=2, batch=8):
        import torchvision
        m = torchvision.models.resnet18(num_classes=10).to(dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(iters):
            x = torch.randn(batch, 3, 96, 96, device=dev)
            y = torch.randint(0, 10, (batch,), device=dev)
            nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
            opt.zero_grad()
        torch.cuda.synchronize()

    def dump(name):
        path = f"{out}/{name}.pickle"
        torch.cuda.memory._dump_snapshot(path)
        return path

    lengths = [128, 320, 77, 256]
    if scen in ("set-expandable", "set-roundup", "set-gcsplit"):
        torch.cuda.memory._record_memory_history()
        if scen == "set-expandable":
            resnet_job()
        else:
            xfmr_job(lengths)
        dump(scen)
    elif scen in ("lim-default", "lim-gcsplit", "probe"):
        if scen != "probe":
            torch.cuda.memory._record_memory_history()
        xfmr_job(lengths, batch=16)
        if scen != "probe":
            dump(scen)
    elif scen in ("oom-observer", "oom-except"):
        if scen == "oom-observer":
            def observer(device, alloc, device_alloc, device_free):
                dump(scen)
                stats_facts(torch, facts)
                facts["observer"] = {"alloc": alloc, "device_alloc": device_alloc,
                                     "device_free": device_free}
            torch._C._cuda_attach_out_of_memory_observer(observer)
        torch.cuda.memory._record_memory_history()
        try:
            xfmr_job(lengths, batch=16)
            facts["ran_out"] = False
        except torch.OutOfMemoryError as e:
            facts["ran_out"] = True
            facts["message"] = str(e)[:400]
        if scen == "oom-except":
            dump(scen)
            stats_facts(torch, facts)
        with open(f"{out}/{scen}.facts.json", "w") as f:
            json.dump(facts, f, indent=1, sort_keys=True)
        return
    elif scen == "graphs":
        torch.cuda.memory._record_memory_history()
        m1 = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).to(dev)
        m2 = nn.Sequential(nn.Linear(1024, 2048), nn.GELU(), nn.Linear(2048, 512)).to(dev)
        x = torch.randn(64, 1024, device=dev)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                m2(m1(x))
        torch.cuda.current_stream().wait_stream(s)
        g1 = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g1):
            y1 = m1(x)
        g2 = torch.cuda.CUDAGraph()		# shares g1's pool
        with torch.cuda.graph(g2, pool=g1.pool()):
            y2 = m2(y1)
        g3 = torch.cuda.CUDAGraph()		# a pool of its own
        with torch.cuda.graph(g3):
            big = torch.empty(30_000_000, dtype=torch.uint8, device=dev)
            z = m1(x * 2.0)
            del big
        keep = []
        for i in range(3):
            x.copy_(torch.randn(64, 1024, device=dev))
            g1.replay(); g2.replay(); g3.replay()
            keep.append(y2.clone())
        del g3, z				# the graph, and its pool, go mid-run
        for i in range(3):
            keep.append(torch.empty(7_000_000 + i * 1_000_000, dtype=torch.uint8, device=dev))
            g1.replay(); g2.replay()
        del keep[0]
        torch.cuda.synchronize()
        dump(scen)
    elif scen == "compile-ro":
        torch.cuda.memory._record_memory_history()
        m = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).to(dev)
        f = torch.compile(m, mode="reduce-overhead")
        with torch.no_grad():
            outs = []
            for i in range(6):
                outs.append(f(torch.randn(128, 1024, device=dev)).clone())
        torch.cuda.synchronize()
        dump(scen)
    elif scen == "emptycache-server":
        torch.cuda.memory._record_memory_history()
        gpt2_server(dev)
        dump(scen)
    elif scen == "emptycache-profile":
        # the server above, profiled from its start (issue 58, item 10): each
        # empty_cache() shows only as Total Reserved falling at the next event
        from torch.profiler import profile, ProfilerActivity
        torch.cuda.memory._record_memory_history()
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                       profile_memory=True, record_shapes=True, with_stack=True)
        prof.start()
        gpt2_server(dev)
        torch.cuda.synchronize()
        prof.stop()
        path = f"{out}/{scen}.pt.trace.json"
        prof.export_chrome_trace(path)
        dump(scen)
        with open(path) as f:
            t = json.load(f)
        cuda = [e for e in t["traceEvents"] if e.get("name") == "[memory]" and
                e["args"].get("Device Type") == 1]
        facts["cuda_memory_events"] = len(cuda)
        facts["max_total_reserved"] = max(e["args"].get("Total Reserved", 0) for e in cuda)
    elif scen in ("kineto-whole", "kineto-window"):
        from torch.profiler import profile, ProfilerActivity
        torch.cuda.memory._record_memory_history()
        layer = nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, dropout=0.0)
        m = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Linear(256, 500))
        acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
        prof = profile(activities=acts, profile_memory=True, record_shapes=True, with_stack=True)
        if scen == "kineto-whole":
            prof.start()
        m = m.to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for i, n in enumerate([64, 200, 33]):
            if scen == "kineto-window" and i == 1:
                prof.start()
                facts["allocated_at_start"] = torch.cuda.memory_allocated()
                facts["reserved_at_start"] = torch.cuda.memory_reserved()
            x = torch.randn(4, n, 256, device=dev)
            y = torch.randint(0, 500, (4, n), device=dev)
            nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten()).backward()
            opt.step()
            opt.zero_grad()
        torch.cuda.synchronize()
        prof.stop()
        path = f"{out}/{scen}.pt.trace.json"
        prof.export_chrome_trace(path)
        dump(scen)
        with open(path) as f:
            t = json.load(f)
        mem = [e for e in t["traceEvents"] if e.get("name") == "[memory]"]
        cuda = [e for e in mem if e["args"].get("Device Type") == 1]
        facts["memory_events"] = len(mem)
        facts["cuda_memory_events"] = len(cuda)
        facts["max_total_allocated"] = max(e["args"].get("Total Allocated", 0) for e in cuda)
        facts["max_total_reserved"] = max(e["args"].get("Total Reserved", 0) for e in cuda)
        facts["max_memory_reserved"] = torch.cuda.max_memory_reserved()
        facts["max_memory_allocated"] = torch.cuda.max_memory_allocated()
    elif scen == "midrun-late":
        layer = nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, dropout=0.0)
        m = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Linear(256, 500)).to(dev)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        for i, n in enumerate([64, 200, 33, 150]):
            if i == 2:
                torch.cuda.memory._record_memory_history()
            x = torch.randn(4, n, 256, device=dev)
            y = torch.randint(0, 500, (4, n), device=dev)
            nn.functional.cross_entropy(m(x).flatten(0, 1), y.flatten()).backward()
            opt.step()
            opt.zero_grad()
        dump(scen)
    elif scen == "midrun-ring":
        torch.cuda.memory._record_memory_history(max_entries=400)
        xfmr_job([64, 200, 33, 150], batch=4, d=256, layers=2)
        dump(scen)
    stats_facts(torch, facts)
    if scen == "probe":
        print("PROBE", json.dumps(facts["memory_stats"]), total)
        return
    with open(f"{out}/{scen}.facts.json", "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


def run_child(scen, out, fraction=None, timeout=300):
    env = dict(os.environ)
    conf = TORCH_CONF.get(scen)
    if conf:
        env["PYTORCH_CUDA_ALLOC_CONF"] = conf
    else:
        env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    cmd = [sys.executable, __file__, "child", scen, out] + ([repr(fraction)] if fraction else [])
    t = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"{scen}: timed out", flush=True)
        return None
    print(f"{scen} {fraction}: rc {p.returncode} in {time.time() - t:.1f}s", flush=True)
    if p.returncode != 0:
        print(p.stderr[-3000:], flush=True)
    return p


def facts_of(out, scen):
    try:
        with open(f"{out}/{scen}.facts.json") as f:
            return json.load(f)
    except OSError:
        return None


def main_all(out):
    os.makedirs(out, exist_ok=True)
    for s in ["set-expandable", "set-roundup", "set-gcsplit", "graphs", "emptycache-server",
              "emptycache-profile", "kineto-whole", "kineto-window", "midrun-late", "midrun-ring"]:
        run_child(s, out)
    p = run_child("probe", out)
    line = [l for l in p.stdout.splitlines() if l.startswith("PROBE ")][0]
    js, total = line[len("PROBE "):].rsplit(" ", 1)
    st, total = json.loads(js), int(total)
    R, A = st["reserved_bytes.all.peak"], st["allocated_bytes.all.peak"]
    print("probe: reserved", R, "allocated", A, "total", total, flush=True)
    # Limits between what the job allocates and what it reserves uncapped:
    # every try is kept (SCENARIO-kK), the tests take those that retried.
    for scen in ["lim-default", "lim-gcsplit"]:
        for k in range(1, 8):
            frac = (A + (R - A) * k / 8) / total
            run_child(scen, out, frac)
            for ext in ("pickle", "facts.json"):
                if os.path.exists(f"{out}/{scen}.{ext}"):
                    os.rename(f"{out}/{scen}.{ext}", f"{out}/{scen}-k{k}.{ext}")
            f = facts_of(out, f"{scen}-k{k}")
            if f:
                print(scen, k, f["memory_stats"], flush=True)
    for scen in ["oom-observer", "oom-except"]:
        run_child(scen, out, 0.8 * A / total)
    run_child("compile-ro", out, timeout=150)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else None)
    else:
        main_all(sys.argv[2])
