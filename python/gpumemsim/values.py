"""values.py - what a recording without a GPU knows of its tensors' values.

Fake tensors have shapes and no data, so a job that reads a value (.item(),
bool(t), a loop that runs until a mask is all false) cannot go on.  Many of
the values a job reads are small and known all the same: masks and positions
made from the inputs it moved to the GPU, counters, `full`/`ones`/`arange`,
comparisons of those.  For an op on the GPU whose tensor inputs all have known
values and are small, the op is run again on the CPU on those values, and its
outputs carry the result (`_gms_value`); a read of such a tensor is answered
from it.  What the values of large tensors (activations, weights) decide stays
unknown, and reading it still refuses the recording.

One assumption is made where a sound one exists, and counted in the trace:
generate()'s end-of-sequence test (transformers' EosTokenCriteria) is taken
as "not yet", so generation runs to its max_new_tokens or max_length: the
most memory it can take.

Imports torch only when called."""

import sys

# elements: a tensor above this is never copied to the CPU (weights and
# activations), and its value stays unknown
LIMIT = 1 << 16

# ops whose output values do not depend on their inputs' values (only on
# their shapes and dtypes)
SHAPE_ONLY = ("aten.new_ones", "aten.new_zeros", "aten.new_full", "aten.ones_like",
              "aten.zeros_like", "aten.full_like")
# ops whose output values are undefined, or drawn from a generator the CPU
# does not share with the GPU
UNDEFINED = ("aten.empty", "aten.new_empty", "aten.empty_like", "aten.empty_strided",
             "aten.new_empty_strided", "aten.resize_", "aten.set_")
# reads: an op that returns a Python value from a tensor's data
READS = ("aten._local_scalar_dense", "aten.is_nonzero", "aten.equal")

# (class whose __call__ is running, why): an unknown bool made there is taken
# as all false
ASSUME_FALSE = {
    "EosTokenCriteria": "generate(): no sequence ends at an end-of-sequence token, so each "
                        "runs to max_new_tokens (or max_length), the most memory it can take",
}


_PACKETS = {}     # op -> its packet's name: asked for every op a job runs


def _packet(func):
    got = _PACKETS.get(func)
    if got is None:
        name = str(func)
        got = _PACKETS[func] = name.rsplit(".", 1)[0] if name.count(".") > 1 else name
    return got


class Values:
    def __init__(self, torch):
        self.torch = torch
        self.dirty = set()      # storages written with values not known
        self.assumed = {}       # why -> how many times
        self.computed = 0       # ops run again on the CPU
        self.answered = 0       # reads answered
        self.broken = None      # why values stopped being tracked
        self.writes = {}        # op -> the indices and names of the arguments it writes

    # -- what is known

    def value(self, t):
        """t's value as a CPU tensor, or None."""
        from torch._subclasses.fake_tensor import FakeTensor
        if not isinstance(t, FakeTensor):     # the job's own CPU tensor, unless a GPU
            # op wrote values not known into it
            return t if t.device.type == "cpu" and self._storage(t) not in self.dirty else None
        v = getattr(t, "_gms_value", None)
        if v is None or self._storage(t) in self.dirty:
            return None
        return v

    @staticmethod
    def _storage(t):
        try:
            return t.untyped_storage()._cdata
        except Exception:       # a tensor without storage (sparse, nested)
            return None

    def fresh(self, key):
        """A new storage under key: whatever was written to an old one there is gone."""
        self.dirty.discard(key)

    # -- the dispatch mode's two calls

    def read(self, func, args, kwargs):
        """The answer to a read op on known values, or None (unknown, or not a read)."""
        if self.broken or _packet(func) not in READS:
            return None
        try:
            cpu = self._on_cpu(func, args, kwargs)
            if cpu is None:
                return None
            got = func(*cpu[0], **cpu[1])
        except Exception as e:      # never a wrong value: unknown from here on
            self.broken = "%s: %s" % (func, e)
            return None
        self.answered += 1
        return got

    def note(self, func, args, kwargs, out):
        """After an op ran on fake tensors: its outputs' values where its inputs'
        are known (the op run again on the CPU), else its written inputs'
        values forgotten, and an assumption's where one holds.  A failure
        here leaves every value unknown from then on (a read then refuses the
        recording, as with no values at all)."""
        if self.broken:
            return
        try:
            self._note(func, args, kwargs, out)
        except Exception as e:
            self.broken = "%s: %s" % (func, e)

    def _note(self, func, args, kwargs, out):
        from torch.utils._pytree import tree_flatten
        outs = [t for t in tree_flatten(out)[0] if isinstance(t, self.torch.Tensor)]
        written = self._written(func, args, kwargs)
        cpu = None
        if outs or written:
            if all(t.numel() <= LIMIT for t in outs):
                cpu = self._on_cpu(func, args, kwargs)
        if cpu is not None:
            try:
                res = func(*cpu[0], **cpu[1])
            except Exception:   # a kernel the CPU lacks (a dtype, a fused op)
                res = None
            if res is not None:
                got = [t for t in tree_flatten(res)[0] if isinstance(t, self.torch.Tensor)]
                if len(got) == len(outs):
                    for o, r in zip(outs, got):
                        self._set(o, r)
                    self.computed += 1
                    return
        for t in written:
            k = self._storage(t)
            if k is not None:
                self.dirty.add(k)
        why = self._assumption(outs)
        if why:
            for o in outs:
                self._set(o, self.torch.zeros(o.shape, dtype=o.dtype))
            self.assumed[why] = self.assumed.get(why, 0) + 1

    # -- helpers

    def _set(self, o, r):
        try:
            o._gms_value = r
        except (AttributeError, TypeError):
            pass

    def _written(self, func, args, kwargs):
        from torch.utils._pytree import tree_flatten
        w = self.writes.get(func)
        if w is None:
            schema = getattr(func, "_schema", None)
            w = self.writes[func] = [
                (i, a.name, a.kwarg_only) for i, a in enumerate(schema.arguments if schema else ())
                if a.alias_info is not None and a.alias_info.is_write]
        got = []
        for i, name, kw in w:
            v = (kwargs or {}).get(name) if kw or i >= len(args) else args[i]
            got += [t for t in tree_flatten(v)[0] if isinstance(t, self.torch.Tensor)]
        return got

    def _on_cpu(self, func, args, kwargs):
        """(args, kwargs) with each tensor its known CPU value and each CUDA
        device the CPU, or None where a tensor's value is unknown or large."""
        torch = self.torch
        from torch.utils._pytree import tree_flatten, tree_unflatten
        name = _packet(func)
        if name in UNDEFINED or torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
            return None
        shape_only = name in SHAPE_ONLY
        flat, spec = tree_flatten((list(args), dict(kwargs or {})))
        new = []
        for x in flat:
            if isinstance(x, torch.Tensor):
                if x.numel() > LIMIT:
                    return None
                v = self.value(x)
                if v is None and shape_only:
                    v = torch.zeros(x.shape, dtype=x.dtype)
                if v is None:
                    return None
                new.append(v)
            elif isinstance(x, torch.device) and x.type != "cpu":
                new.append(torch.device("cpu"))
            elif isinstance(x, str) and x.startswith("cuda"):
                new.append("cpu")
            else:
                new.append(x)
        a, k = tree_unflatten(new, spec)
        return tuple(a), k

    def _assumption(self, outs):
        if not outs or any(o.dtype != self.torch.bool or o.numel() > LIMIT for o in outs):
            return None
        f = sys._getframe(2)
        for _ in range(40):
            if f is None:
                return None
            if f.f_code.co_name == "__call__":
                why = ASSUME_FALSE.get(type(f.f_locals.get("self")).__name__)
                if why:
                    return why
            f = f.f_back
        return None
