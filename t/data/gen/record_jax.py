#!/usr/bin/env python3
# Record real JAX jobs under jax.profiler.trace() as JAX users record them
# (issue 26), on a machine with a CUDA GPU and JAX:
#   python3 record_jax.py all OUTDIR
# Each job runs in a fresh process (the allocator is per process) by
#   python3 record_jax.py child JOB OUTDIR
# with its allocator settings in the environment before `import jax`, and
# writes OUTDIR/JOB.xplane.pb.gz (the profiler's file, gzip'd) and
# OUTDIR/JOB.facts.json: device.memory_stats() when the job ends (the
# expected numbers: peak_bytes_in_use, pool_bytes, bytes_limit), the
# settings, and the OOM if it ran out.  Then two jobs run side by side on the
# card, under three settings, each in its own process (share-*.facts.json):
#   python3 record_jax.py pair SETTING OUTDIR
# (`python3 record_jax.py some OUTDIR JOB...` records only those jobs.)
import glob, gzip, json, os, shutil, subprocess, sys, tempfile, time

GB = 10 ** 9

JOBS = {
    # job: environment
    "op-growth": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "jit-growth": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "jit-prealloc": {},
    "frac05": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".05"},
    "oom-growth": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_PYTHON_CLIENT_MEM_FRACTION": ".01"},
    "oom-prealloc": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".01"},
    "midrun": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "share-a": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "share-b": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    # issue 54: arrays of mixed sizes in a sliding window, op by op, in each
    # mode, and a jitted MLP trained at four batch sizes in one process
    "window-growth": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "window-prealloc": {},
    "window-frac": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".02"},
    "window-oom": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_PYTHON_CLIENT_MEM_FRACTION": ".004"},
    "mlp4-growth": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "mlp4-prealloc": {},
}

PAIR_ENV = {
    "default": {},
    "growth": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    "fraction45": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".45"},
}

KEEP = ["num_allocs", "bytes_in_use", "peak_bytes_in_use", "largest_alloc_size", "bytes_limit",
        "pool_bytes", "peak_pool_bytes", "largest_free_block_bytes", "bytes_reserved"]


def stats(jax):
    s = jax.devices()[0].memory_stats() or {}
    return {k: s.get(k) for k in KEEP}


def transformer(jax, jnp, shapes, d=256, layers=4, vocab=1000):
    key = jax.random.PRNGKey(0)
    ks = jax.random.split(key, 6 * layers + 1)
    params = {"emb": jax.random.normal(ks[0], (vocab, d)) * 0.02, "layers": []}
    for i in range(layers):
        k = ks[1 + 6 * i:7 + 6 * i]
        params["layers"].append([jax.random.normal(k[j], s) * 0.02 for j, s in
                                 enumerate([(d, d), (d, d), (d, d), (d, d), (d, 4 * d), (4 * d, d)])])

    def forward(p, tok):
        x = p["emb"][tok]
        for wq, wk, wv, wo, w1, w2 in p["layers"]:
            q, k_, v = x @ wq, x @ wk, x @ wv
            a = jax.nn.softmax(q @ jnp.swapaxes(k_, -1, -2) / jnp.sqrt(d), axis=-1)
            x = x + (a @ v) @ wo
            x = x + jax.nn.gelu(x @ w1) @ w2
        return x @ p["emb"].T

    def loss(p, tok):
        logits = forward(p, tok[:, :-1])
        lp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(lp, tok[:, 1:, None], axis=-1))

    @jax.jit
    def step(p, tok):
        g = jax.grad(loss)(p, tok)
        return jax.tree_util.tree_map(lambda a, b: a - 1e-3 * b, p, g)

    for i, (b, n) in enumerate(shapes):
        tok = jax.random.randint(jax.random.PRNGKey(i), (b, n), 0, vocab)
        params = step(params, tok)
    jax.block_until_ready(params)


def mlp(jax, jnp, steps, jit, b=256, d=512, h=2048):
    key = jax.random.PRNGKey(1)
    k1, k2 = jax.random.split(key)
    params = [jax.random.normal(k1, (d, h)) * 0.02, jax.random.normal(k2, (h, 10)) * 0.02]

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p[0]) @ p[1] - y) ** 2)

    def update(p, x, y):
        g = jax.grad(loss)(p, x, y)
        return [a - 0.01 * b_ for a, b_ in zip(p, g)]

    if jit:
        update = jax.jit(update)
    for i in range(steps):
        x = jax.random.normal(jax.random.PRNGKey(10 + i), (b, d))
        y = jax.random.normal(jax.random.PRNGKey(20 + i), (b, 10))
        params = update(params, x, y)
    jax.block_until_ready(params)


def window(jax, jnp, steps, keep=8):
    """Op by op: arrays of mixed sizes made from each other, the oldest
    deleted as each new one comes (sizes from a fixed seed)."""
    import random
    rng = random.Random(54)
    # 16 sizes, from 4 KB to 24 MB: each new shape is a compilation (and
    # the profile's events), so the job reuses them
    sizes = [rng.choice([rng.randrange(1000, 60000), rng.randrange(60000, 2 ** 20),
                         rng.randrange(2 ** 20, 6 * 2 ** 20)]) for _ in range(16)]
    held = []
    for i in range(steps):
        n = rng.choice(sizes)
        a = jnp.ones((n,), jnp.float32) * (i + 1)
        if held and i % 3 == 0:
            b = held[-1]
            a = jnp.concatenate([a, b[: min(b.shape[0], n // 2)] + 1.0])
        held.append(a)
        if len(held) > keep:
            held.pop(0).delete()
    jax.block_until_ready(held)
    for a in held:
        a.delete()


def zeros(jnp, n):
    import numpy as np
    a = jnp.zeros((n,), dtype=np.uint8)
    a.block_until_ready()
    return a


def share_a(jax, jnp, hold, done_file=None):
    arrs = [zeros(jnp, 10 * GB) for _ in range(3)]
    if done_file is None:
        time.sleep(hold)
    else:
        while not os.path.exists(done_file):
            time.sleep(0.05)
    for a in arrs:
        a.delete()


def share_b(jax, jnp):
    arrs = []
    for n in (10, 10, 10, 20):
        arrs.append(zeros(jnp, n * GB))
        time.sleep(0.3)
    for a in arrs:
        a.delete()


def settle(jax):
    # Frees are asynchronous: wait for bytes_in_use to stop moving.
    last = None
    for _ in range(50):
        s = jax.devices()[0].memory_stats()["bytes_in_use"]
        if s == last:
            return
        last = s
        time.sleep(0.05)


def child(job, out):
    import jax
    import jax.numpy as jnp
    facts = {"job": job, "jax": jax.__version__, "env": JOBS[job]}
    logdir = tempfile.mkdtemp()
    early = []
    if job == "midrun":
        # live before the profile starts: two kept, one freed inside it
        early = [zeros(jnp, 64 * 2 ** 20 + k * 4096) for k in range(3)]
        facts["stats_before"] = stats(jax)
    with jax.profiler.trace(logdir):
        try:
            if job == "op-growth":
                mlp(jax, jnp, 3, False)
            elif job == "jit-growth":
                mlp(jax, jnp, 5, True, b=512, d=1024, h=4096)
            elif job == "jit-prealloc":
                transformer(jax, jnp, [(8, 129), (8, 129)], d=128, layers=2)
            elif job == "frac05":
                transformer(jax, jnp, [(48, 1025), (48, 1025)], d=256, layers=2)
            elif job == "midrun":
                early[1].delete()
                mlp(jax, jnp, 2, True)
            elif job == "oom-prealloc":
                held = []
                try:
                    for k in range(40):
                        held.append(zeros(jnp, 100 * 10 ** 6 + k * 10 ** 6))
                        if k % 3 == 2:
                            held.pop(0).delete()
                except Exception as e:  # RESOURCE_EXHAUSTED
                    facts["oom"] = {"after": k, "message": str(e)[:400]}
                facts["stats_at_oom"] = stats(jax)
                for a in held:
                    a.delete()
                settle(jax)
            elif job == "oom-growth":
                held = []
                try:
                    for _ in range(20):
                        held.append(zeros(jnp, 300 * 10 ** 6))
                except Exception as e:  # RESOURCE_EXHAUSTED
                    facts["oom"] = {"after": len(held), "message": str(e)[:400]}
                facts["stats_at_oom"] = stats(jax)
                for a in held:
                    a.delete()
                settle(jax)
                mlp(jax, jnp, 2, True)
            elif job.startswith("window-"):
                try:
                    window(jax, jnp, 150, 64 if job == "window-oom" else 8)
                except Exception as e:  # RESOURCE_EXHAUSTED
                    facts["oom"] = {"message": str(e)[:400]}
                    facts["stats_at_oom"] = stats(jax)
            elif job.startswith("mlp4-"):
                for b in (256, 1024, 4096, 8192):
                    mlp(jax, jnp, 3, True, b=b, d=1024, h=8192)
            elif job == "share-a":
                share_a(jax, jnp, 4.0)
            elif job == "share-b":
                share_b(jax, jnp)
        finally:
            settle(jax)
    facts["memory_stats"] = stats(jax)
    files = glob.glob(os.path.join(logdir, "plugins/profile/*/*.xplane.pb"))
    facts["xplane_files"] = len(files)
    with open(files[0], "rb") as f, gzip.open(os.path.join(out, job + ".xplane.pb.gz"), "wb", 9) as g:
        shutil.copyfileobj(f, g)
    with open(os.path.join(out, job + ".facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
    shutil.rmtree(logdir)


def pair_child(role, setting, sync, out):
    """One job of a side-by-side pair: a holds its arrays until b is done."""
    import jax
    import jax.numpy as jnp
    res = {"role": role, "setting": setting, "env": PAIR_ENV[setting]}
    t0 = time.time()
    try:
        if role == "a":
            arrs = [zeros(jnp, 10 * GB)]
            open(os.path.join(sync, "a-ready"), "w").close()
            arrs += [zeros(jnp, 10 * GB) for _ in range(2)]
            res["stats_held"] = stats(jax)
            while not os.path.exists(os.path.join(sync, "b-done")):
                time.sleep(0.05)
            for a in arrs:
                a.delete()
            res["outcome"] = "done"
        else:
            arrs, k = [], 0
            try:
                for n in (10, 10, 10, 20):
                    arrs.append(zeros(jnp, n * GB))
                    k += 1
                    time.sleep(0.3)
                res["outcome"] = "done"
            except Exception as e:
                res["outcome"] = "oom"
                res["failed_alloc"] = k  # 0-based index of the allocation that failed
                res["message"] = str(e)[:400]
            res["stats_held"] = stats(jax)
            for a in arrs:
                a.delete()
    finally:
        settle(jax)
        res["memory_stats"] = stats(jax)
        res["seconds"] = time.time() - t0
        with open(os.path.join(out, "pair-%s-%s.json" % (setting, role)), "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        if role == "b":
            open(os.path.join(sync, "b-done"), "w").close()


def pair(setting, out):
    sync = tempfile.mkdtemp()
    env = dict(os.environ, **PAIR_ENV[setting])
    me = os.path.abspath(__file__)
    pa = subprocess.Popen([sys.executable, me, "pair-child", "a", setting, sync, out], env=env)
    while not os.path.exists(os.path.join(sync, "a-ready")):
        if pa.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(1.0)
    pb = subprocess.Popen([sys.executable, me, "pair-child", "b", setting, sync, out], env=env)
    pb.wait()
    open(os.path.join(sync, "b-done"), "w").close()
    pa.wait()
    res = {}
    for role in "ab":
        with open(os.path.join(out, "pair-%s-%s.json" % (setting, role))) as f:
            res[role] = json.load(f)
        os.remove(os.path.join(out, "pair-%s-%s.json" % (setting, role)))
    with open(os.path.join(out, "share-%s.facts.json" % setting), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)


def main_all(out, only=None):
    os.makedirs(out, exist_ok=True)
    me = os.path.abspath(__file__)
    for job, env in JOBS.items():
        if only and job not in only:
            continue
        t = time.time()
        r = subprocess.run([sys.executable, me, "child", job, out], env=dict(os.environ, **env))
        print("%s: rc %d, %.1f s" % (job, r.returncode, time.time() - t), flush=True)
    for setting in PAIR_ENV:
        if only:
            break
        t = time.time()
        pair(setting, out)
        print("pair %s: %.1f s" % (setting, time.time() - t), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "pair-child":
        pair_child(*sys.argv[2:6])
    elif sys.argv[1] == "pair":
        pair(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "some":
        main_all(sys.argv[2], sys.argv[3:])
    else:
        main_all(sys.argv[2])
