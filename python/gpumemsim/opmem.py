"""opmem.py - the op memory table: what the caching allocator is asked for
that the dispatcher never sees (cuBLAS's workspace per handle and stream, the
buffers attention and convolution kernels allocate inside themselves), kept as
data per PyTorch version and GPU, and the tool that measures it.

measure() aligns a real run's allocator snapshot with the dispatcher's record
of the same run (log_real_ops): every allocation the snapshot holds that no op
output accounts for is "unseen", and is filed under the op running when it
was made, with its size, whether it was made before or after the op's
outputs, and whether the op gave it back before returning.  The recorder
adds the table's entries for the ops it records.

A table file (opmem-<gpu cc>-torch<major.minor>.json beside this module):
  {"gpu": "sm90", "torch": "2.11", "measured_on": ..., "first_per_thread":
   {"ops": [...], "size": N, "why": ...}, "ops": {"aten.op.overload|sig":
   [{"size": N, "when": "before"|"after", "kept": bool, "why": ...}]}}"""

import json
import os
import threading
import time
import weakref

from . import kernels

HERE = os.path.dirname(os.path.abspath(__file__))
# the PyTorch versions whose kernels kernels.py's rules were checked against
RULES_TORCH = ("2.11",)


def signature(name, args, kwargs):
    """An op's key: its name and its tensor arguments' shapes and dtypes."""
    import torch
    parts = []
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, torch.Tensor):
            parts.append("%s%s" % (str(a.dtype).replace("torch.", ""), list(a.shape)))
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], torch.Tensor):
            parts.append("[%s]" % ",".join("%s%s" % (str(t.dtype).replace("torch.", ""),
                                                     list(t.shape)) for t in a))
    return "%s|%s" % (name, ";".join(parts))


class Table:
    def __init__(self, data, path=None, gpu=None, rules=False):
        self.data = data
        self.path = path
        self.gpu = gpu          # {"sms": N, "cc": (major, minor)}, for the kernel rules
        self.rules = rules      # kernels.py's rules hold for this torch
        self.first = data.get("first_per_thread") or {}
        self.first_ops = set(self.first.get("ops", ()))
        self.lt = data.get("first_lt_per_thread") or {}
        self.lt_ops = set(self.lt.get("ops", ()))
        self.first_threads, self.lt_threads = set(), set()   # threads given each
        self.ops = data.get("ops", {})
        self.op_names = {k.split("|")[0] for k in self.ops}
        self.unmatched = {}

    @classmethod
    def load(cls, gpu_key, torch):
        """The table for this GPU's architecture and torch's version, with
        the entries of a measured table (GMS_OPMEM, from measure()) on top."""
        from .recorder import GPUS
        cc, sms = GPUS[gpu_key][2], GPUS[gpu_key][3]
        ver = ".".join(torch.__version__.split("+")[0].split(".")[:2])
        rules = ver in RULES_TORCH
        p = os.path.join(HERE, "opmem-sm%d%d-torch%s.json" % (cc[0], cc[1], ver))
        data, path = {}, None
        if os.path.exists(p):
            with open(p) as f:
                data, path = json.load(f), p
        extra = os.environ.get("GMS_OPMEM")
        if extra:
            with open(extra) as f:
                data.setdefault("ops", {}).update(json.load(f))
            path = (path + " + " if path else "") + extra
        if not data and not rules:
            return None
        return cls(data, path, gpu={"sms": sms, "cc": tuple(cc)}, rules=rules)

    def extra(self, func, args, kwargs, tid):
        """What the op asks the allocator for beyond its outputs: two lists
        (made before the outputs, made after them) of (size, kept, why), and
        the steps its kernel takes inside itself after them (kernels.py)."""
        name = str(func) if not isinstance(func, str) else func
        pre, post = [], []
        inner = []
        if self.rules and name in kernels.RULES:
            inner = kernels.steps(name, args, kwargs, self.gpu)
            if inner is None:
                self.unmatched[name] = self.unmatched.get(name, 0) + 1
                inner = []
        if name in self.first_ops and tid not in self.first_threads:
            self.first_threads.add(tid)
            post.append((self.first["size"], True, self.first.get("why", "workspace")))
        if name in self.lt_ops and tid not in self.lt_threads:
            self.lt_threads.add(tid)
            post.append((self.lt["size"], True, self.lt.get("why", "workspace")))
        if name in self.op_names:
            got = self.ops.get(signature(name, args, kwargs))
            if got is None:
                self.unmatched[name] = self.unmatched.get(name, 0) + 1
            else:
                for e in got:
                    (pre if e["when"] == "before" else post).append(
                        (e["size"], e.get("kept", False), e.get("why", "inside the kernel")))
        return pre, post, inner

    def describe(self):
        what = os.path.basename(self.path) if self.path else ("given" if self.data else "")
        if self.rules:
            what += (" + " if what else "") + "kernel rules (torch %s)" % "/".join(RULES_TORCH)
        return what

    def missing(self):
        return dict(self.unmatched)

    def uncertainty(self):
        """How far from PyTorch's the replay's peak reserved may fall, as a
        fraction, and why: the largest error measured on real jobs with the
        same ops left unmodelled (the table's "uncertainty"), or None where no
        real job measured it (another card, an op no rule covers)."""
        u = self.data.get("uncertainty")
        if not u:
            return None, "no real job recorded this way on this card and PyTorch was measured"
        frac, why = u["modelled"], [u["why"]]
        for op in sorted(self.unmatched):
            got = u.get("not_modelled", {}).get(op)
            if got is None:
                return None, ("%s: what its kernel allocates inside itself is not modelled for "
                              "these arguments, and no real job measured it" % op)
            frac = max(frac, got[0])
            if got[1] not in why:
                why.append(got[1])
        return frac, "; ".join(why)


class OpLog:
    """The dispatcher's record of a real run, for measure(): each op's name,
    signature, start and end (time.time_ns), thread, and the data_ptr and size
    of each storage its outputs created."""

    def __init__(self):
        self.ops = []
        self.lock = threading.Lock()

    def mode(self):
        from torch.utils._python_dispatch import TorchDispatchMode
        from .recorder import _tensors
        log = self
        seen = set()

        class Logger(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                t0 = time.time_ns()
                out = func(*args, **(kwargs or {}))
                t1 = time.time_ns()
                outs = []
                for t in _tensors(out):
                    if t.device.type != "cuda":
                        continue
                    st = t.untyped_storage()
                    if st._cdata in seen or st.nbytes() == 0:
                        continue
                    seen.add(st._cdata)
                    weakref.finalize(st, seen.discard, st._cdata)
                    outs.append((st.data_ptr(), st.nbytes()))
                with log.lock:
                    log.ops.append((str(func), signature(str(func), args, kwargs), t0, t1,
                                    threading.get_ident(), outs))
                return out

        return Logger()

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(self.ops, f)


def measure(snapshot, ops):
    """The allocations of a real snapshot (a dict, from
    torch.cuda.memory._snapshot()) that the op log does not account for, each
    filed under its op.  Returns (table entries by op key, a report list)."""
    outs = {}
    for i, op in enumerate(ops):
        for ptr, n in op[5]:
            outs.setdefault(ptr, []).append((i, n))
    entries = []
    for dev in snapshot.get("device_traces", []):
        for e in dev:
            if e["action"] == "alloc":
                entries.append(("alloc", e["addr"], e["size"], e.get("time_us", 0), e))
            elif e["action"] == "free_completed":
                entries.append(("free", e["addr"], e["size"], e.get("time_us", 0), e))
    unseen = []
    live = {}
    for kind, addr, size, t_us, e in entries:
        if kind == "alloc":
            q = outs.get(addr)
            t_ns = t_us * 1000
            hit = next((k for k, (i, n) in enumerate(q or ()) if n == size and
                        ops[i][2] - SLACK_NS <= t_ns <= ops[i][3] + SLACK_NS), None)
            if hit is not None:
                q.pop(hit)
                continue
            # an allocation no op output made: the op running at its time
            i = _op_at(ops, t_ns)
            rec = {"addr": addr, "size": size, "op": i, "t_ns": t_ns, "freed_ns": None,
                   "frames": [f.get("name", "") for f in e.get("frames", [])][:12]}
            unseen.append(rec)
            live[addr] = rec
        else:
            rec = live.pop(addr, None)
            if rec is not None:
                rec["freed_ns"] = t_us * 1000
    # per occurrence of an op: what it asked beyond its outputs; an op's
    # entry is what most of its occurrences with that signature asked
    per = {}
    for rec in unseen:
        if rec["op"] is None:
            continue
        if any("getCurrentCUDABlasHandle" in f or "getCUDABlasLtWorkspace" in f
               for f in rec["frames"]):
            continue        # the workspace rules' (first_per_thread)
        op = ops[rec["op"]]
        kept = rec["freed_ns"] is None or rec["freed_ns"] > op[3] + SLACK_NS
        per.setdefault(rec["op"], []).append(
            {"size": rec["size"], "when": "after", "kept": kept, "why": _why(rec["frames"])})
    seen_sig = {}
    for i, op in enumerate(ops):
        key = json.dumps(per.get(i, []), sort_keys=True)
        counts = seen_sig.setdefault(op[1], {})
        counts[key] = counts.get(key, 0) + 1
    table = {}
    for sig, counts in seen_sig.items():
        key = max(counts, key=lambda k: (counts[k], k))
        if key != "[]":
            table[sig] = json.loads(key)
    return table, unseen


# the allocator's clock (time_us) against time.time_ns() around each op
SLACK_NS = 2000000


def _op_at(ops, t_ns):
    best = None
    for i, op in enumerate(ops):
        if op[2] - 2000 <= t_ns <= op[3] + 2000:
            best = i        # the innermost: the latest to start
    return best


def _why(frames):
    for f in frames:
        low = f.lower()
        if "cublaslt" in low:
            return "cuBLASLt workspace"
        if "cublas" in low:
            return "cuBLAS workspace"
        if "cudnn" in low:
            return "cuDNN workspace"
        if "attention" in low or "flash" in low or "fmha" in low:
            return "attention kernel buffer"
    return "inside the kernel"
