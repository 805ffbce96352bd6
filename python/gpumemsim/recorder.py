"""recorder.py - a PyTorch job's GPU allocations recorded without running it
on a GPU: every op runs on fake tensors (FakeTensorMode: shapes, dtypes and
devices, no memory, no kernels), and a dispatch mode notes each storage an op
creates and, through a finalizer on it, the moment it dies.  That is the
order of allocations and frees the caching allocator would see from the
dispatcher; what the dispatcher cannot see (library workspaces, the buffers
kernels allocate inside themselves) is added from the op memory table
(opmem.py).  The trace is gpumemsim's native format, so every command reads it.

With no GPU in the machine, CUDA's device queries are answered as the named
GPU by a small library loaded ahead of the CUDA runtime (nocuda.c, built on
first use against the CUDA headers of the torch installed): the job then takes
the path it would take on that card (attention backend, bf16/TF32, cuBLAS
workspace size).  With a GPU visible, nothing is allocated on it.

Imports torch only when called."""

import contextlib
import gzip
import json
import os
import sys
import threading
import time
import traceback
import weakref

# the GPUs a recording can stand for: torch's device name, total bytes (as
# sim/gpus.c has them), compute capability, SMs, L2 bytes, shared memory a
# block may opt in to (what the attention backends' choice reads)
GPUS = {
    "H100-80GB": ("NVIDIA H100 80GB HBM3", 85045477376, (9, 0), 132, 52428800, 232448),
    "H200": ("NVIDIA H200", 150109880320, (9, 0), 132, 62914560, 232448),
    "A100-80GB": ("NVIDIA A100-SXM4-80GB", 85100068864, (8, 0), 108, 41943040, 166912),
    "A100-40GB": ("NVIDIA A100-SXM4-40GB", 42298834944, (8, 0), 108, 41943040, 166912),
    "L40S": ("NVIDIA L40S", 47803596800, (8, 9), 142, 100663296, 101376),
    "L4": ("NVIDIA L4", 23570219008, (8, 9), 58, 50331648, 101376),
    "A10G": ("NVIDIA A10G", 23609475072, (8, 6), 80, 6291456, 101376),
    "RTX4090": ("NVIDIA GeForce RTX 4090", 25386352640, (8, 9), 128, 75497472, 101376),
    "T4": ("Tesla T4", 15095 << 20, (7, 5), 40, 4194304, 65536),
}
ALIASES = {"h100": "H100-80GB", "h100-80gb": "H100-80GB", "h200": "H200",
           "a100": "A100-80GB", "a100-80gb": "A100-80GB", "a100-40gb": "A100-40GB",
           "l40s": "L40S", "l4": "L4", "a10g": "A10G", "rtx4090": "RTX4090", "4090": "RTX4090",
           "t4": "T4"}


class RecordError(Exception):
    """Why a job could not be recorded (the op, the frame, the reason)."""


def gpu_spec(name):
    key = ALIASES.get(name.lower(), name)
    if key not in GPUS:
        raise RecordError("unknown GPU '%s' (known: %s)" % (name, ", ".join(sorted(GPUS))))
    return key, GPUS[key]


def gpu_env(name):
    """The variables nocuda.c answers the device queries from."""
    key, (full, total, cc, sms, l2, optin) = gpu_spec(name)
    return {"GMS_GPU_NAME": full, "GMS_GPU_TOTAL": str(total), "GMS_GPU_MAJOR": str(cc[0]),
            "GMS_GPU_MINOR": str(cc[1]), "GMS_GPU_SMS": str(sms), "GMS_GPU_L2": str(l2),
            "GMS_GPU_SMEM_OPTIN": str(optin)}


# frames of the recorder itself and of Python's machinery, never the job's
_OWN = (os.path.dirname(os.path.abspath(__file__)) + os.sep, os.sep + "contextlib.py",
        os.sep + "weakref.py", os.sep + "runpy.py", os.sep + "threading.py")


_TORCH = os.sep + "torch" + os.sep


def _stack(limit=64):
    frames = []
    f = sys._getframe(2)
    while f is not None and len(frames) < limit:
        path = f.f_code.co_filename
        if not path.startswith(_OWN[0]) and not path.endswith(_OWN[1:]):
            frames.append("%s:%d %s" % (path, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return frames


class Trace:
    """The events as they happen, written out as a native JSON Lines trace.
    Thread-safe: the backward runs on the autograd engine's device thread, and
    finalizers run on whichever thread drops a storage's last reference."""

    def __init__(self):
        self.events = []
        self.lock = threading.Lock()
        self.next_id = 1
        self.live = {}          # storage key -> (id, size)
        self.sizes = {}         # id -> size, of every live allocation
        self.steps = 0
        self.oomed = None       # the oom event, when the job ran out
        self.oom_check = None   # closedloop.OomCheck, with no GPU behind it
        self.live_bytes = 0     # the live blocks, each rounded to 512 bytes
        self.peak_allocated = 0
        self.values = None      # values.Values: the small tensors' values known

    def alloc(self, key, size, stream=0, stack=None, note=None):
        with self.lock:
            i = self.next_id
            self.next_id += 1
            if key is not None:
                self.live[key] = (i, size)
            self.sizes[i] = size
            self.live_bytes += (size + 511) // 512 * 512
            self.peak_allocated = max(self.peak_allocated, self.live_bytes)
            ev = {"op": "alloc", "id": i, "size": size}
            if stream:
                ev["stream"] = stream
            if stack:
                ev["stack"] = stack
                ev["at"] = next((f for f in stack if _TORCH not in f), stack[0])
            if note:
                ev["note"] = note
            self.events.append(ev)
            return i

    def free(self, key=None, id=None):
        with self.lock:
            if key is not None:
                got = self.live.pop(key, None)
                if got is None:
                    return
                id = got[0]
            if id not in self.sizes:
                return          # never live, or the request that ran out (to_oom)
            size = self.sizes.pop(id)
            self.live_bytes -= (size + 511) // 512 * 512
            self.events.append({"op": "free", "id": id})

    def mark(self, label):
        with self.lock:
            self.events.append({"op": "mark", "label": label})

    def allocated(self):
        with self.lock:
            return self.live_bytes

    def reset_peak(self):
        with self.lock:
            self.peak_allocated = self.live_bytes

    def empty_cache(self):
        with self.lock:
            self.events.append({"op": "empty_cache"})

    def reserved(self):
        """What the caching allocator would hold: the trace so far replayed
        by the gpumemsim binary, its peak reserved.  Without an empty_cache
        it keeps what it reserved, so that is what it holds now; after one,
        this overstates it (the replay reports no current reservation)."""
        from .closedloop import replay_so_far
        with self.lock:
            events = list(self.events)
        return replay_so_far(events).peak_reserved

    def to_oom(self, key=None, id=None):
        """The last allocation (of storage key, or id) made the OOM it would
        be: the request that failed, never freed (the native format's oom
        event)."""
        with self.lock:
            if key is not None:
                id, size = self.live.pop(key)
            else:
                size = self.sizes[id]
            self.sizes.pop(id, None)
            self.live_bytes -= (size + 511) // 512 * 512
            ev = self.events[-1]
            ev["op"] = "oom"
            self.oomed = ev

    def write(self, path, header):
        op = gzip.open if path.endswith(".gz") else open
        with op(path, "wt") as f:
            f.write(json.dumps(header, separators=(",", ":")) + "\n")
            for ev in self.events:
                f.write(json.dumps(ev, separators=(",", ":")) + "\n")


# ops whose 0-dim outputs (the dropout RNG's seed and offset) the CUDA kernel
# makes on the CPU (outside a CUDA graph capture), where the fake kernel puts
# them on the GPU: the real run allocates no block for them (asked of torch
# 2.11 on the H100; flash attention's are on the GPU there, as recorded)
_CPU_SCALARS = frozenset("aten.%s.default" % n for n in (
    "_scaled_dot_product_efficient_attention", "_efficient_attention_forward"))


def _tensors(out):
    import torch
    stack = [out]
    while stack:
        x = stack.pop()
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())


def _on_cuda(args, kwargs):
    import torch
    for k in ("device",):
        d = (kwargs or {}).get(k)
        if d is not None and torch.device(d).type == "cuda":
            return True
    for t in _tensors((args, kwargs or {})):
        if t.device.type == "cuda":
            return True
    return False


def _dispatch_mode(trace, table, stacks, fake, values):
    """The dispatch mode that runs each op on a CUDA device on fake tensors
    (the rest, the model's construction on the CPU, runs as it would), and
    notes each new storage on a CUDA device: its size, the stack, and a
    finalizer for its death."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_map_only

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if not _on_cuda(args, kwargs):
                return func(*args, **(kwargs or {}))
            got = values.read(func, args, kwargs)
            if got is not None:
                return got
            orig = (args, kwargs)
            name = str(func)
            pre, post, inner = table.extra(func, args, kwargs, threading.get_ident()) \
                if table else ((), (), ())
            stack = _stack() if stacks and (pre or post or inner) else None
            temps = []
            _extras(trace, [e for e in pre if not e[1]] + [e for e in pre if e[1]], name, stack,
                    temps)
            try:
                # the fake mode runs an op on real inputs for real: a CPU tensor
                # going to the GPU is made fake first (memoised: once per tensor)
                args, kwargs = tree_map_only(
                    torch.Tensor, lambda t: t if isinstance(t, FakeTensor) else fake.from_tensor(t),
                    (args, kwargs or {}))
                with fake:
                    out = func(*args, **kwargs)
                for t in _tensors(out):
                    if t.device.type != "cuda" or (name in _CPU_SCALARS and t.dim() == 0):
                        continue
                    st = t.untyped_storage()
                    key = st._cdata
                    n = st.nbytes()
                    got = trace.live.get(key)
                    if got is not None and got[1] == n:
                        continue
                    if got is not None:
                        trace.free(key)     # resized: a new block, the old one given back
                    if n == 0:
                        continue
                    trace.alloc(key, n, stack=_stack() if stacks else None)
                    values.fresh(key)
                    _check_oom(trace, n, key=key)
                    weakref.finalize(st, trace.free, key)
                _extras(trace, post, name, stack, temps)
                _kernel_steps(trace, inner, stack)
            finally:
                # what is left of the op's temporaries, also as an OOM unwinds it
                for i in temps:
                    trace.free(id=i)
            values.note(func, orig[0], orig[1], out)
            return out

    return Recorder()


def _check_oom(trace, n, key=None, id=None):
    """Raises the OOM the named GPU's allocator would raise for the request
    just recorded (n bytes), when the replay so far runs out on it."""
    import torch
    oom = trace.oom_check.fails(trace.events, trace.live_bytes) if trace.oom_check else None
    if oom is None:
        return
    trace.to_oom(key, id)
    raise torch.cuda.OutOfMemoryError(
        "CUDA out of memory. Tried to allocate %d bytes (gpumemsim: the %s's "
        "caching allocator, simulated, runs out at event %d: %d B reserved, "
        "the largest free block %d B)" % (n, trace.oom_check.gpu, oom.event,
                                          oom.reserved, oom.largest_free))


def _extras(trace, entries, name, stack, temps):
    """An op's entries in the op memory table (opmem.py: a library's
    workspace, kept or not), made in order, each checked against the card
    as the allocator would check it; the ids of those not kept go to temps,
    freed as the op returns, or here as an OOM unwinds the op."""
    try:
        for s, kept, why in entries:
            i = trace.alloc(None, s, stack=stack, note="%s: %s" % (name, why))
            if not kept:
                temps.append(i)
            _check_oom(trace, s, id=i)
    except BaseException:
        for i in temps:
            trace.free(id=i)
        raise


def _kernel_steps(trace, steps, stack):
    """A kernel's own allocations and frees, in its order (kernels.py); what
    it leaves live is freed as the op returns, or as its OOM unwinds it."""
    live = {}
    try:
        for st in steps:
            if st[0] == "alloc":
                live[st[1]] = i = trace.alloc(None, st[2], stack=stack, note=st[3])
                _check_oom(trace, st[2], id=i)
            else:
                trace.free(id=live.pop(st[1]))
    finally:
        for i in live.values():
            trace.free(id=i)    # the request that ran out is no longer live: a no-op


def _refuse_data_dependent(e):
    """The error for a job that reads a tensor's value (.item(), bool(t),
    a shape that depends on data): the op, the frame in the library that read
    it, and the job's own frame that called it."""
    tb = [f for f in traceback.extract_tb(e.__traceback__)
          if not f.filename.startswith(_OWN[0]) and os.sep + "torch" + os.sep not in f.filename]
    lib = tb[-1] if tb else None
    user = [f for f in tb if "site-packages" not in f.filename and "dist-packages" not in f.filename]
    op = str(e).split(":")[0].split("(")[0].strip() or type(e).__name__
    where = "%s:%d %s" % (lib.filename, lib.lineno, lib.name) if lib else "?"
    if user and user[-1] is not lib:
        where += ", called from %s:%d %s" % (user[-1].filename, user[-1].lineno, user[-1].name)
    return RecordError("the job reads the value of a tensor (%s: .item(), bool() or a shape that "
                       "depends on data), which a recording without a GPU cannot know, at %s: "
                       "nothing was written" % (op, where))


@contextlib.contextmanager
def record_without_gpu(path, gpu="H100-80GB", stacks=True, name=None, table=None):
    """with gpumemsim.record_without_gpu("job.jsonl.gz", gpu="H100"): train_step()

    Runs the body on fake CUDA tensors (build the model inside the block, or
    move it to "cuda" inside it) and writes its allocations and frees as a
    native trace at the end: the trace of the job as the named GPU's caching
    allocator would have been asked, with nothing allocated on any GPU."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from . import opmem
    key, spec = gpu_spec(gpu)
    if not torch.cuda.is_available():
        raise RecordError("torch sees no CUDA device: on a machine without a GPU, record with "
                          "`python -m gpumemsim record --gpu=%s script.py`, which answers CUDA's "
                          "device queries as that GPU" % key)
    trace = Trace()
    table = opmem.Table.load(key, torch) if table is None else table
    from torch.optim.optimizer import register_optimizer_step_post_hook
    hook = register_optimizer_step_post_hook(
        lambda opt, a, k: _step(trace))
    t0 = time.time()
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    only_lift_cpu = torch._C._only_lift_cpu_tensors()
    # what the fake mode does where torch sees no GPU, done always: tensors
    # made from data (torch.tensor(..., device="cuda")) start on the CPU and
    # are moved by an op the recorder sees, never by a hidden real copy
    # (FakeTensorMode.avoid_device_init is a read-only property of torch 2.11)
    torch._C._set_only_lift_cpu_tensors(True)
    undo = _as_native(torch)
    undo_cuda = lambda: None
    if os.environ.get("GMS_NOCUDA"):
        from .closedloop import OomCheck
        undo_cuda = _answer_cuda(torch, trace, spec)
        trace.oom_check = OomCheck(key, spec[1])
    failed = None
    from .values import Values
    trace.values = Values(torch)
    try:
        with _dispatch_mode(trace, table, stacks, fake, trace.values):
            yield trace
    except BaseException as e:
        if not (isinstance(e, SystemExit) and e.code in (None, 0)):
            failed = e
        if type(e).__name__ in ("DataDependentOutputException", "DynamicOutputShapeException",
                                "UnsupportedOperatorException", "GuardOnDataDependentSymNode"):
            raise _refuse_data_dependent(e) from e
        raise
    finally:
        hook.remove()
        undo()
        undo_cuda()
        torch._C._set_only_lift_cpu_tensors(only_lift_cpu)
        import gc
        gc.collect()
        # a job that died of the OOM the recording raised is written whole:
        # it ends in its OOM, as a snapshot dumped at one does
        died_of_oom = trace.oomed is not None and isinstance(failed, torch.cuda.OutOfMemoryError)
        if failed is None or died_of_oom:
            _write(path, trace, key, spec, table, time.time() - t0, name, died_of_oom)


def _as_native(torch):
    """Fake tensors taken for the plain tensors they stand for, where PyTorch
    chooses a path by a tensor's type: the optimizers' foreach/fused default
    and the foreach support check (gradient clipping), which on a GPU pick
    the multi-tensor kernels and their different allocations."""
    import torch.optim.optimizer as optimizer
    import torch.utils._foreach_utils as fu
    from torch._subclasses.fake_tensor import FakeTensor
    undo = []
    lst = getattr(optimizer, "_foreach_supported_types", None)
    if isinstance(lst, list) and FakeTensor not in lst:
        lst.append(FakeTensor)
        undo.append(lambda: lst.remove(FakeTensor))
    orig = getattr(fu, "_has_foreach_support", None)
    if orig is not None:
        def has(tensors, device):
            return fu._device_has_foreach_support(device) and all(
                t is None or type(t) in (torch.Tensor, FakeTensor) for t in tensors)
        fu._has_foreach_support = has
        undo.append(lambda: setattr(fu, "_has_foreach_support", orig))
    # Module._apply swaps a fake parameter in place (swap_tensors), which the
    # fake mode's own weak references forbid; a real CPU parameter moved to
    # the GPU is replaced by a new Parameter instead, as done here
    import torch.nn.modules.module as mm
    real_fake = getattr(mm, "FakeTensor", None)
    if isinstance(real_fake, type):
        mm.FakeTensor = type("NotFake", (), {})
        undo.append(lambda: setattr(mm, "FakeTensor", real_fake))
    # a CPU parameter moved to the GPU is converted in place on a GPU (its
    # .data set), so a weight two modules share (tied embeddings) stays one;
    # a fake one is a new Parameter per module, so the move is done once per
    # tensor and the modules that shared it share the new one
    Module = torch.nn.Module
    orig_apply = Module._apply
    depth = [0]

    def _apply(self, fn, recurse=True):
        if depth[0]:
            return orig_apply(self, fn, recurse)
        before = {(id(m), k): p for m in self.modules() for k, p in m._parameters.items()}
        memo = {}

        def once(t):
            got = memo.get(id(t))
            if got is None or got[0] is not t:
                got = memo[id(t)] = (t, fn(t))
            return got[1]
        depth[0] += 1
        try:
            out = orig_apply(self, once, recurse)
        finally:
            depth[0] -= 1
        first = {}
        for m in self.modules():
            for k, p in m._parameters.items():
                old = before.get((id(m), k))
                if old is None or p is None:
                    continue
                if id(old) in first:
                    m._parameters[k] = first[id(old)]
                else:
                    first[id(old)] = p
        return out
    Module._apply = _apply
    undo.append(lambda: setattr(Module, "_apply", orig_apply))
    return lambda: [u() for u in undo]


def _answer_cuda(torch, trace, spec):
    """With no GPU behind the device-query library: torch.cuda's Python
    layer kept from initialising a runtime that has no device (its lazy init
    and the fake tensors' context warm-up), and the allocator's queries
    answered from the recording (allocated: the live blocks, each rounded to
    512 bytes as the caching allocator rounds; reserved: the replay's)."""
    import torch.cuda as tc
    import torch._subclasses.fake_tensor as ft
    saved = {}

    def patch(mod, name, fn):
        saved[(mod, name)] = getattr(mod, name, None)
        setattr(mod, name, fn)

    def dev_free():
        return spec[1] - trace.reserved()

    patch(tc, "_lazy_init", lambda: None)
    # torch.cuda counts devices by NVML (or CUDA_VISIBLE_DEVICES) first: one,
    # the named GPU, as the runtime's answer says
    patch(tc, "device_count", lambda: 1)
    import types
    full, total, cc, sms, l2, optin = spec
    props = types.SimpleNamespace(
        name=full, major=cc[0], minor=cc[1], total_memory=total, multi_processor_count=sms,
        L2_cache_size=l2, is_integrated=0, is_multi_gpu_board=0, warp_size=32,
        max_threads_per_multi_processor=2048, max_threads_per_block=1024,
        regs_per_multiprocessor=65536, shared_memory_per_block=49152,
        shared_memory_per_block_optin=optin, shared_memory_per_multiprocessor=optin + 1024,
        gcnArchName="NA", uuid="gpumemsim-nogpu", pci_bus_id=0, pci_device_id=0,
        pci_domain_id=0)
    patch(tc, "get_device_properties", lambda device=None: props)
    patch(ft, "init_gpu_context", lambda device: None)
    patch(tc, "memory_allocated", lambda device=None: trace.allocated())
    patch(tc, "max_memory_allocated", lambda device=None: trace.peak_allocated)
    patch(tc, "memory_reserved", lambda device=None: trace.reserved())
    patch(tc, "max_memory_reserved", lambda device=None: trace.reserved())
    patch(tc, "mem_get_info", lambda device=None: (dev_free(), spec[1]))
    patch(tc, "reset_peak_memory_stats", lambda device=None: trace.reset_peak())
    patch(tc, "empty_cache", lambda: trace.empty_cache())
    patch(tc, "synchronize", lambda device=None: None)
    return lambda: [setattr(m, n, f) for (m, n), f in saved.items()]


def _step(trace):
    trace.steps += 1
    trace.mark("step %d" % trace.steps)


def _write(path, trace, key, spec, table, seconds, name, ends_in_oom=False):
    import torch
    unc, why = table.uncertainty() if table else (None, "no op memory table for this card")
    # what is still live at the end was live when the job ended: the trace
    # ends there, as a snapshot taken at the end does
    trace.write(path, {
        "format": "gpumemsim-trace", "version": 1, "ends_in_oom": ends_in_oom,
        "name": name or os.path.basename(path).split(".")[0],
        "device": {"name": spec[0], "total_bytes": spec[1]},
        "source": {"from": "recorded without a GPU (gpumemsim.recorder)",
                   "framework": "pytorch " + torch.__version__,
                   "gpu": key, "cuda": torch.version.cuda,
                   "real_gpu_visible": os.environ.get("GMS_NOCUDA") is None,
                   "steps": trace.steps, "seconds": round(seconds, 3),
                   "op_memory_table": table.describe() if table else None,
                   "not_modelled": table.missing() if table else {},
                   "uncertainty": unc, "uncertainty_why": why,
                   "assumed": dict(trace.values.assumed) if trace.values else {},
                   "values": {"computed": trace.values.computed, "read": trace.values.answered,
                              "lost": trace.values.broken} if trace.values else None},
    })


# ---- python -m gpumemsim record: the script run unchanged in a child process
# that has the device-query library loaded ahead of the CUDA runtime

USAGE = """usage: python -m gpumemsim record --gpu=NAME [-o TRACE] [--no-stacks] script.py [args...]
       python -m gpumemsim record --gpu=NAME --values=V1,V2,... [--arg=OPTION|N]
           [--capacity=SIZE] [-o DIR] script.py [args...]

Runs script.py on fake CUDA tensors as the named GPU would run it, allocating
no GPU memory (no GPU is needed), and writes its allocations and frees as a
gpumemsim trace (default: <script>.nogpu.jsonl.gz), which every command reads:
    python -m gpumemsim record --gpu=H100 -o step.jsonl.gz train.py --batch-size=32
    gpumemsim plan step.jsonl.gz
With --values, records the script at each value of one of its arguments
(--arg=--batch-size, --arg=2 for its second, or {} in its arguments) and
replays each on the GPU (less its CUDA context) or under --capacity, up to
the first that runs out: the largest value that fits, and why the next does
not (exit 1 when none fits).
GPUs: %s"""


def _torch_info(python):
    import subprocess
    code = ("import json, os, torch; print(json.dumps({'cuda': torch.version.cuda, "
            "'torch': torch.__version__, 'dir': os.path.dirname(os.path.dirname(torch.__file__))}))")
    r = subprocess.run([python, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    if r.returncode != 0 and "No module named 'torch'" in r.stderr:
        raise RecordError("cannot import torch with %s: it has no PyTorch (record runs the "
                          "script with a CUDA build of PyTorch; no GPU is needed)" % python)
    if r.returncode != 0:
        raise RecordError("cannot import torch with %s: %s" % (python, r.stderr.strip()[-300:]))
    return json.loads(r.stdout)


def _header_dirs(info):
    site = info["dir"]
    major = info["cuda"].split(".")[0]
    dirs = [os.path.join(os.environ[v], "include") for v in ("CUDA_HOME", "CUDA_PATH")
            if os.environ.get(v)]
    for top in ("/usr/local/cuda-%s" % info["cuda"], "/usr/local/cuda"):
        dirs += [os.path.join(top, "include"), os.path.join(top, "targets", "x86_64-linux", "include")]
    # a pip installation's own (without the compiler's crt/ headers, which
    # nocuda-inc/ stands in for)
    dirs += [os.path.join(site, "nvidia", "cuda_runtime", "include"),
             os.path.join(site, "nvidia", "cu%s" % major, "include"),
             os.path.join(site, "triton", "backends", "nvidia", "include"), "/usr/include"]
    return dirs


def _cudart_version(d):
    import re
    try:
        with open(os.path.join(d, "cuda_runtime_api.h")) as f:
            m = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", f.read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


def build_nocuda(info, dirs=None):
    """nocuda.c built against CUDA headers of the torch's CUDA major (the
    layout of cudaDeviceProp changes between majors), cached per version;
    dirs: where to look, in order (default: _header_dirs)."""
    import hashlib
    import shutil
    import subprocess
    if not info.get("cuda"):
        raise RecordError("this torch (%s) is built without CUDA: install a CUDA build of "
                          "PyTorch (no GPU needed) to record a CUDA job" % info["torch"])
    major = int(info["cuda"].split(".")[0])
    dirs = _header_dirs(info) if dirs is None else dirs
    incs = [d for d in dirs if (_cudart_version(d) or 0) // 1000 == major]
    if not incs:
        raise RecordError("no CUDA %d headers (cuda_runtime_api.h) found for torch %s: looked in "
                          "%s; set CUDA_HOME to a CUDA %d toolkit" %
                          (major, info["torch"], ", ".join(dirs), major))
    src = os.path.join(HERE_DIR, "nocuda.c")
    with open(src, "rb") as f:
        h = hashlib.sha256(f.read() + incs[0].encode()).hexdigest()[:12]
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "gpumemsim")
    lib = os.path.join(cache, "nocuda-%d-%s.so" % (_cudart_version(incs[0]), h))
    if os.path.exists(lib):
        return lib
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise RecordError("no C compiler (cc) to build the device-query library with")
    os.makedirs(cache, exist_ok=True)
    tmp = lib + ".%d.tmp" % os.getpid()
    errors = []
    for inc in incs:
        r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-I", inc, "-I",
                            os.path.join(HERE_DIR, "nocuda-inc"), src, "-o", tmp],
                           capture_output=True, text=True)
        if r.returncode == 0:
            os.replace(tmp, lib)
            return lib
        errors.append("%s: %s" % (inc, r.stderr.strip()[-300:]))
    raise RecordError("building %s failed against every CUDA %d header directory: %s"
                      % (src, major, "; ".join(errors)))


HERE_DIR = os.path.dirname(os.path.abspath(__file__))


def _prepend(var, value):
    rest = os.environ.get(var)
    return value + (os.pathsep + rest if rest else "")


def child_env(gpu, lib, out, stacks):
    """The recording process's environment: the library loaded ahead of the
    CUDA runtime (LD_PRELOAD) and found as libcuda.so.1 too (PyTorch opens
    the driver by that name: a directory holding it under that name, first
    on the library path), the named GPU's properties, this package first."""
    libdir = os.path.join(os.path.dirname(lib), os.path.basename(lib)[:-3] + ".driver")
    os.makedirs(libdir, exist_ok=True)
    if not os.path.lexists(os.path.join(libdir, "libcuda.so.1")):
        os.symlink(lib, os.path.join(libdir, "libcuda.so.1"))
    env = dict(os.environ, **gpu_env(gpu))
    env.update(GMS_NOCUDA=lib, GMS_RECORD_OUT=out, GMS_RECORD_GPU=gpu,
               GMS_RECORD_STACKS="1" if stacks else "0",
               LD_LIBRARY_PATH=_prepend("LD_LIBRARY_PATH", libdir),
               LD_PRELOAD=(lib + " " + os.environ.get("LD_PRELOAD", "")).strip(),
               PYTHONPATH=_prepend("PYTHONPATH", os.path.dirname(HERE_DIR)))
    return env


def main(argv):
    gpu, out, stacks, values, arg, capacity, i = "H100-80GB", None, True, None, None, None, 0
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        key, eq, val = a.partition("=")
        if a in ("-h", "--help"):
            print(USAGE % ", ".join(sorted(GPUS)))
            return 0
        if key in ("--gpu", "--output", "--values", "--arg", "--capacity", "-o") and not eq:
            if i + 1 >= len(argv):
                sys.stderr.write("gpumemsim: error: record: %s needs a value\n" % key)
                return 2
            i += 1
            val = argv[i]
        if key == "--gpu":
            gpu = val
        elif key in ("-o", "--output"):
            out = val
        elif key == "--values":
            values = val
        elif key == "--arg":
            arg = val
        elif key == "--capacity":
            capacity = val
        elif a == "--no-stacks":
            stacks = False
        elif a == "--":
            i += 1
            break
        else:
            sys.stderr.write("gpumemsim: error: record: unknown option '%s'\n%s\n" %
                             (a, USAGE.split("\n")[0]))
            return 2
        i += 1
    if i >= len(argv):
        sys.stderr.write("gpumemsim: error: record: no script given\n%s\n" % USAGE.split("\n")[0])
        return 2
    script, args = argv[i], argv[i + 1:]
    from . import largest
    try:
        key, _ = gpu_spec(gpu)
        if not os.path.isfile(script):
            raise RecordError("%s: no such script" % script)
        vals = largest.parse_values(values) if values is not None else None
        if vals is not None:
            largest.with_value(args, arg, vals[0])     # where the value goes, checked now
        elif arg is not None or capacity is not None:
            raise RecordError("--arg and --capacity go with --values (the search for the "
                              "largest value that fits)")
        info = _torch_info(sys.executable)
        lib = build_nocuda(info)
    except (RecordError, largest.SearchError) as e:
        sys.stderr.write("gpumemsim: error: record: %s\n" % e)
        return 3
    name = os.path.splitext(os.path.basename(script))[0]
    if vals is None:
        return record_once(gpu, lib, out or name + ".nogpu.jsonl.gz", stacks, script, args)
    out_dir = out or "."
    os.makedirs(out_dir, exist_ok=True)
    try:
        best, _ = largest.search(
            lambda v, path: record_once(gpu, lib, path, stacks, script,
                                        largest.with_value(args, arg, v)),
            vals, out_dir, name, gpu=key, capacity=capacity)
    except largest.SearchError as e:
        sys.stderr.write("gpumemsim: error: record: %s\n" % e)
        return 3
    return 0 if best is not None else 1


def record_once(gpu, lib, out, stacks, script, args):
    """The script recorded once, in a child process: its exit status."""
    import subprocess
    r = subprocess.run([sys.executable, "-c", "from gpumemsim.recorder import _child; _child()",
                        script] + args, env=child_env(gpu, lib, out, stacks))
    return r.returncode


def _child():
    import faulthandler
    import runpy
    # a native abort (a real device reached after all) shows the Python stack
    faulthandler.enable()
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    out = os.environ["GMS_RECORD_OUT"]
    try:
        with record_without_gpu(out, gpu=os.environ["GMS_RECORD_GPU"],
                                stacks=os.environ.get("GMS_RECORD_STACKS") != "0",
                                name=os.path.splitext(os.path.basename(script))[0]):
            runpy.run_path(script, run_name="__main__")
    except RecordError as e:
        sys.stderr.write("gpumemsim: error: record: %s\n" % e)
        sys.exit(3)
    except Exception as e:
        if type(e).__name__ != "OutOfMemoryError" or not os.path.exists(out):
            raise
        sys.stderr.write("gpumemsim: record: %s ran out of memory on the %s (simulated): "
                         "%s written, ending in its OOM\n" % (script, os.environ["GMS_RECORD_GPU"], out))
        sys.exit(1)
    except SystemExit as e:
        if e.code not in (None, 0):
            sys.stderr.write("gpumemsim: error: record: %s exited with %s: nothing was written\n"
                             % (script, e.code))
            sys.exit(1)
    sys.stderr.write("gpumemsim: recorded %s\n" % out)
