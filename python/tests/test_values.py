"""test_values.py - values.py's bookkeeping without PyTorch: which tensors'
values a recording without a GPU knows, through a stand-in torch whose
tensors are lists and whose ops are Python functions (the real ops run on the
GPU machine's PyTorch: t/data/gen/nogpu_jobs.py's generate).  A value that
is not known must stay unknown: a read of it refuses the recording, where a
wrong one would send the job down a path it never takes."""

import sys
import types

import pytest

from gpumemsim import values as V


class T:
    """A stand-in tensor: data on the CPU, or (Fake) on the GPU with none."""

    def __init__(self, data, device="cpu", dtype="int64", storage=None):
        self.data = list(data)
        self.shape = (len(self.data),)
        self.device = types.SimpleNamespace(type=device)
        self.dtype = dtype
        self._storage = storage if storage is not None else object()

    def numel(self):
        return len(self.data)

    def untyped_storage(self):
        return types.SimpleNamespace(_cdata=id(self._storage))


class Fake(T):
    def __init__(self, n, dtype="int64", storage=None):
        super().__init__([None] * n, "cuda", dtype, storage)


class Device:
    def __init__(self, kind):
        self.type = kind


def flatten(x):
    if isinstance(x, (list, tuple)):
        parts = [flatten(v) for v in x]
        return ([l for p in parts for l in p[0]], (type(x), [p[1] for p in parts]))
    if isinstance(x, dict):
        keys = sorted(x)
        parts = [flatten(x[k]) for k in keys]
        return ([l for p in parts for l in p[0]], (dict, keys, [p[1] for p in parts]))
    return [x], None


def unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        if s[0] is dict:
            return {k: build(c) for k, c in zip(s[1], s[2])}
        return s[0](build(c) for c in s[1])
    return build(spec)


class Op:
    """An aten op: its name, which arguments it writes, and its CPU kernel."""

    def __init__(self, name, fn, writes=(), tags=()):
        self.name, self.fn, self.tags = name, fn, tags
        args = [types.SimpleNamespace(name="a%d" % i, kwarg_only=False,
                                      alias_info=types.SimpleNamespace(is_write=True)
                                      if i in writes else None) for i in range(3)]
        self._schema = types.SimpleNamespace(arguments=args)

    def __str__(self):
        return self.name

    def __call__(self, *a, **k):
        return self.fn(*a, **k)


SEEDED = object()


@pytest.fixture
def torch(monkeypatch):
    t = types.ModuleType("torch")
    t.Tensor, t.device, t.bool = T, Device, "bool"
    t.Tag = types.SimpleNamespace(nondeterministic_seeded=SEEDED)
    t.zeros = lambda shape, dtype: T([0] * shape[0], dtype=dtype)
    fake = types.ModuleType("torch._subclasses.fake_tensor")
    fake.FakeTensor = Fake
    pytree = types.ModuleType("torch.utils._pytree")
    pytree.tree_flatten, pytree.tree_unflatten = flatten, unflatten
    for name, mod in (("torch", t), ("torch._subclasses", types.ModuleType("x")),
                      ("torch._subclasses.fake_tensor", fake),
                      ("torch.utils", types.ModuleType("y")), ("torch.utils._pytree", pytree)):
        monkeypatch.setitem(sys.modules, name, mod)
    return t


ones = Op("aten.ones.default", lambda n, device=None: T([1] * n))
add = Op("aten.add.Tensor", lambda a, b: T([x + y for x, y in zip(a.data, b.data)]))
add_ = Op("aten.add_.Tensor", lambda a, b: (a.data.__setitem__(slice(None), [
    x + y for x, y in zip(a.data, b.data)]), a)[1], writes=(0,))
isin = Op("aten.isin.Tensor_Tensor", lambda a, b: T([x in b.data for x in a.data], dtype="bool"))
item = Op("aten._local_scalar_dense.default", lambda a: a.data[0])
empty = Op("aten.empty.memory_format", lambda n, device=None: T([7] * n))
rand = Op("aten.randint.low", lambda n, device=None: T([3] * n), tags=(SEEDED,))
boom = Op("aten.boom.default", lambda a: 1 // 0, writes=(0,))


def run(vals, op, *args, out=None, **kwargs):
    """An op as the recorder runs it: the fake output, then note()."""
    vals.note(op, args, kwargs, out)
    return out


def test_values_made_on_the_gpu_from_known_ones_are_known_and_read(torch):
    vals = V.Values(torch)
    a = run(vals, ones, 4, device=Device("cuda"), out=Fake(4))
    cpu = T([10, 20, 30, 40])                      # the job's own CPU tensor
    b = run(vals, add, a, cpu, out=Fake(4))
    assert b._gms_value.data == [11, 21, 31, 41]
    assert vals.read(item, (b,), {}) == 11 and vals.answered == 1
    assert vals.read(add, (b, b), {}) is None      # not a read: the fake mode runs it


def test_what_an_unknown_tensor_decides_stays_unknown(torch):
    vals = V.Values(torch)
    activation = Fake(4)                           # made by a matmul: no value
    a = run(vals, ones, 4, device=Device("cuda"), out=Fake(4))
    b = run(vals, add, a, activation, out=Fake(4))
    assert vals.value(b) is None and vals.read(item, (b,), {}) is None
    for op in (empty, rand):                       # undefined, or another generator's
        assert vals.value(run(vals, op, 4, device=Device("cuda"), out=Fake(4))) is None
    big = Fake(V.LIMIT + 1)
    big._gms_value = T([1] * (V.LIMIT + 1))
    assert vals.value(run(vals, add, big, big, out=Fake(V.LIMIT + 1))) is None


def test_a_write_of_unknown_values_forgets_every_view_of_the_storage(torch):
    vals = V.Values(torch)
    st = object()
    a = run(vals, ones, 4, device=Device("cuda"), out=Fake(4, storage=st))
    view = Fake(4, storage=st)
    view._gms_value = a._gms_value
    run(vals, add_, a, Fake(4), out=a)             # a += something unknown
    assert vals.value(a) is None and vals.value(view) is None
    vals.fresh(a.untyped_storage()._cdata)         # its storage freed and made again
    c = run(vals, ones, 4, device=Device("cuda"), out=Fake(4, storage=st))
    assert vals.value(c).data == [1, 1, 1, 1]


def test_a_cpu_tensor_a_gpu_op_wrote_unknown_values_into_is_unknown(torch):
    vals = V.Values(torch)
    mine = T([1, 2])                               # the job's: .copy_() from the GPU
    run(vals, add_, mine, Fake(2), out=Fake(2))
    assert vals.value(mine) is None


def test_a_known_write_updates_the_value_in_place(torch):
    vals = V.Values(torch)
    a = run(vals, ones, 2, device=Device("cuda"), out=Fake(2))
    run(vals, add_, a, T([5, 6]), out=a)
    assert vals.read(item, (a,), {}) == 6


def test_a_kernel_the_cpu_lacks_leaves_the_values_unknown(torch):
    vals = V.Values(torch)
    a = run(vals, ones, 2, device=Device("cuda"), out=Fake(2))
    run(vals, boom, a, out=a)
    assert vals.value(a) is None and vals.broken is None


class EosTokenCriteria:
    def __call__(self, vals, last):
        return run(vals, isin, last, T([50256]), out=Fake(4, dtype="bool"))


def test_the_end_of_sequence_test_is_assumed_not_yet_and_counted(torch):
    vals = V.Values(torch)
    tokens = Fake(4)                               # argmax of the logits: unknown
    done = EosTokenCriteria()(vals, tokens)
    assert done._gms_value.data == [0, 0, 0, 0]
    assert vals.assumed == {V.ASSUME_FALSE["EosTokenCriteria"]: 1}
    # the same test outside the criterion is not assumed
    assert vals.value(run(vals, isin, tokens, T([50256]), out=Fake(4, dtype="bool"))) is None
    # nor a result that is not a mask
    assert vals._assumption([Fake(4)]) is None


def test_a_failure_inside_leaves_everything_unknown_never_wrong(torch):
    vals = V.Values(torch)
    a = run(vals, ones, 2, device=Device("cuda"), out=Fake(2))

    class Odd(Fake):                               # a tensor the bookkeeping cannot size
        def numel(self):
            raise RuntimeError("nested tensor")
    vals.note(add, (a,), {}, Odd(2))
    assert "nested tensor" in vals.broken and vals.read(item, (a,), {}) is None
