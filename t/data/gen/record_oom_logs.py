#!/usr/bin/env python3
# Record what users paste after an out-of-memory error (issue 54, item 8),
# each beside the recording of the same run, on a machine with a CUDA GPU:
#   python3 record_oom_logs.py all OUTDIR [torch|jax] [VARIANT...]
# JAX: each job in a fresh process with the allocator's logging on
# (TF_CPP_MIN_LOG_LEVEL=0), under jax.profiler.trace(): OUTDIR/JOB.log (the
# process's stderr: the BFC allocator's dump), JOB.xplane.pb.gz,
# JOB.facts.json (the exception, memory_stats() at the OOM and at the end).
# PyTorch: OUTDIR/JOB.log (str() of the OutOfMemoryError, then
# torch.cuda.memory_summary()), JOB.pickle.gz (the snapshot at the OOM),
# JOB.facts.json (memory_stats() at the OOM, the limit).
# Every job runs again under other settings (VARIANTS), so that whichever
# setting a reading of the log recommends can be checked against a real run.
#   python3 record_oom_logs.py child JOB VARIANT OUTDIR
import gzip, glob, json, os, shutil, subprocess, sys, tempfile, time

MB = 2 ** 20
# job: {variant: environment}; "as-run" is the setting that ran out
JAX_JOBS = {
    # a real shortage: arrays kept until the 1 % pool is full
    "jax-short": {"as-run": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01"},
                  "frac02": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".02"},
                  # what `gpumemsim oom jax-short.log` recommends
                  "rec": {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.011"}},
    # fragmentation: the pool filled with 30 MB arrays, every other freed,
    # then 60 MB asked for
    "jax-frag": {"as-run": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01"},
                 "growth": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
                 "platform": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01", "XLA_PYTHON_CLIENT_ALLOCATOR": "platform"},
                 "async": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01", "XLA_PYTHON_CLIENT_ALLOCATOR": "cuda_async"},
                 "frac015": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".015"},
                 # what `gpumemsim oom` recommends for the growth run's log
                 "growth-rec": {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.011",
                                "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}},
    # a jitted step too large for its growth pool's limit
    "jax-jit": {"as-run": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
                "frac03": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".03", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
                "rec": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01", "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                        "XLA_PYTHON_CLIENT_ALLOCATOR": "platform"}},
}
TORCH_JOBS = {
    "torch-short": {"as-run": {}, "limit2x": {}, "uncapped": {}, "rec": {"GMS_FRACTION": "0.014"}},
    "torch-frag": {"as-run": {}, "uncapped": {}, "expandable": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
                   "split100": {"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:100"}},
    "torch-gpt2": {"as-run": {}, "expandable": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
                   "limit2x": {}, "uncapped": {},
                   # what `gpumemsim oom` first read (allocated + the request:
                   # it ran out at the same request), and what it reads now
                   # (with the cache the allocator cannot give back)
                   "rec051": {"GMS_FRACTION": "0.051"}, "rec": {"GMS_FRACTION": "0.055"}},
}
KEEP_JAX = ["num_allocs", "bytes_in_use", "peak_bytes_in_use", "largest_alloc_size", "bytes_limit",
            "pool_bytes", "peak_pool_bytes", "largest_free_block_bytes", "bytes_reserved"]
KEEP_TORCH = ["reserved_bytes.all.peak", "allocated_bytes.all.peak", "reserved_bytes.all.current",
              "allocated_bytes.all.current", "active_bytes.all.current", "inactive_split_bytes.all.current",
              "num_device_alloc", "num_device_free", "num_alloc_retries", "num_ooms"]


def jax_child(job, variant, out):
    import jax
    import jax.numpy as jnp
    import numpy as np

    def st():
        s = jax.devices()[0].memory_stats() or {}
        return {k: s.get(k) for k in KEEP_JAX}

    facts = {"job": job, "variant": variant, "jax": jax.__version__, "env": JAX_JOBS[job][variant]}
    logdir = tempfile.mkdtemp()
    held = []
    with jax.profiler.trace(logdir):
        try:
            if job == "jax-short":
                for k in range(20):
                    a = jnp.zeros((50 * MB + k * 4096,), np.uint8)
                    a.block_until_ready()
                    held.append(a)
            elif job == "jax-frag":
                limit = st()["bytes_limit"] or 0
                # the pool filled so that what is left at its end is less than 60 MB
                for _ in range(-(-(limit - 59 * 10 ** 6) // (30 * 10 ** 6))):
                    a = jnp.zeros((30 * 10 ** 6,), np.uint8)
                    a.block_until_ready()
                    held.append(a)
                for a in held[::2]:
                    a.delete()
                held = held[1::2]
                time.sleep(0.5)
                a = jnp.zeros((60 * 10 ** 6,), np.uint8)
                a.block_until_ready()
                held.append(a)
            elif job == "jax-jit":
                @jax.jit
                def f(x, w):
                    h = jnp.tanh(x @ w)
                    return (h @ w.T).sum() + (h * h).sum()
                for b in (1024, 8192, 32768):
                    x = jnp.ones((b, 4096), jnp.float32)
                    w = jnp.ones((4096, 4096), jnp.float32)
                    f(x, w).block_until_ready()
                    held.append(x)
            facts["outcome"] = "done"
        except Exception as e:
            facts["outcome"] = "oom"
            facts["message"] = str(e)[:2000]
            facts["held"] = len(held)
        facts["stats_at_end_of_job"] = st()
        for a in held:
            a.delete()
        time.sleep(0.5)
    facts["memory_stats"] = st()
    files = glob.glob(os.path.join(logdir, "plugins/profile/*/*.xplane.pb"))
    name = job if variant == "as-run" else job + "." + variant
    with open(files[0], "rb") as f, gzip.open(os.path.join(out, name + ".xplane.pb.gz"), "wb", 9) as g:
        shutil.copyfileobj(f, g)
    with open(os.path.join(out, name + ".facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    shutil.rmtree(logdir)


def torch_child(job, variant, out):
    import torch
    total = torch.cuda.mem_get_info()[1]
    limit = {"torch-short": 1024 * MB, "torch-frag": 1024 * MB, "torch-gpt2": 4 * 1024 * MB}[job]
    if variant == "limit2x":
        limit *= 2
    if variant == "uncapped":
        limit = total
    if "GMS_FRACTION" in os.environ:    # a recommended fraction, as the user would set it
        limit = float(os.environ["GMS_FRACTION"]) * total
    torch.cuda.set_per_process_memory_fraction(limit / total)
    facts = {"job": job, "variant": variant, "torch": torch.__version__, "device_total": total,
             "fraction": limit / total, "limit": int(limit / total * total),
             "env": TORCH_JOBS[job][variant], "device": torch.cuda.get_device_name()}
    torch.cuda.memory._record_memory_history()
    held = []
    text = ""
    try:
        if job == "torch-short":
            for k in range(15):
                held.append(torch.empty(90 * MB + k * 512, dtype=torch.uint8, device="cuda"))
        elif job == "torch-frag":
            torch.empty(400 * MB, dtype=torch.uint8, device="cuda")  # cached once freed
            for _ in range(20):
                held.append(torch.empty(20 * MB, dtype=torch.uint8, device="cuda"))
            held = held[1::2]
            held.append(torch.empty(700 * MB, dtype=torch.uint8, device="cuda"))
        elif job == "torch-gpt2":
            from transformers import GPT2Config, GPT2LMHeadModel
            m = GPT2LMHeadModel(GPT2Config()).cuda()
            opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
            for _ in range(2):
                ids = torch.randint(0, 50257, (2, 1024), device="cuda")
                m(input_ids=ids, labels=ids).loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        facts["outcome"] = "done"
    except torch.OutOfMemoryError as e:
        facts["outcome"] = "oom"
        text = str(e) + "\n\n" + torch.cuda.memory_summary()
    s = torch.cuda.memory_stats()
    facts["memory_stats"] = {k: s.get(k) for k in KEEP_TORCH}
    name = job if variant == "as-run" else job + "." + variant
    if variant == "as-run" or variant.startswith("rec"):
        with open(os.path.join(out, name + ".log"), "w") as f:
            f.write(text)
        p = os.path.join(out, name + ".pickle")
        torch.cuda.memory._dump_snapshot(p)
        with open(p, "rb") as f, gzip.open(p + ".gz", "wb", 9) as g:
            shutil.copyfileobj(f, g)
        os.remove(p)
    with open(os.path.join(out, name + ".facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


def main_all(out, which=("torch", "jax"), only=()):
    os.makedirs(out, exist_ok=True)
    me = os.path.abspath(__file__)
    for jobs, extra in ((TORCH_JOBS, {}), (JAX_JOBS, {"TF_CPP_MIN_LOG_LEVEL": "0"})):
        if (jobs is TORCH_JOBS and "torch" not in which) or (jobs is JAX_JOBS and "jax" not in which):
            continue
        for job, variants in jobs.items():
            for variant, env in variants.items():
                if only and variant not in only:
                    continue
                t = time.time()
                name = job if variant == "as-run" else job + "." + variant
                # on another card, the same limits in bytes: GMS_SCALE_FRACTIONS is
                # the recording card's total over this one's
                env = {k: (repr(float(v) * float(os.environ["GMS_SCALE_FRACTIONS"]))
                           if k in ("XLA_PYTHON_CLIENT_MEM_FRACTION", "GMS_FRACTION") and
                           "GMS_SCALE_FRACTIONS" in os.environ else v) for k, v in env.items()}
                with open(os.path.join(out, name + ".stderr"), "w") as err:
                    r = subprocess.run([sys.executable, me, "child", job, variant, out],
                                       env=dict(os.environ, **extra, **env), stderr=err)
                print("%s %s: rc %d, %.1f s" % (job, variant, r.returncode, time.time() - t), flush=True)
                if jobs is JAX_JOBS and variant == "as-run":
                    os.replace(os.path.join(out, name + ".stderr"), os.path.join(out, name + ".log"))


if __name__ == "__main__":
    if sys.argv[1] == "child":
        (jax_child if sys.argv[2] in JAX_JOBS else torch_child)(*sys.argv[2:5])
    else:
        which = [w for w in sys.argv[3:] if w in ("torch", "jax")] or ("torch", "jax")
        main_all(sys.argv[2], which, [w for w in sys.argv[3:] if w not in ("torch", "jax")])
