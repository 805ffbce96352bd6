"""test_torch_standin.py - record() and on_oom() without a GPU: a stand-in
torch module whose snapshot is a real recording made on the H200
(t/data/users/oom-observer: a job that ran out under a per-process fraction,
with PyTorch's OOM observer's own arguments kept in its facts).  The real
thing is tested on the GPU (python/tests/gpu_oom.py)."""

import gzip
import io
import json
import pickle
import sys
import types

import pytest

import gpumemsim
from conftest import path

FACTS = json.load(open(path("t", "data", "users", "oom-observer.facts.json")))
SNAP = pickle.load(gzip.open(path("t", "data", "users", "oom-observer.pickle.gz")))


@pytest.fixture
def torch(monkeypatch):
    calls = {"history": [], "observers": []}

    def dump(p):
        with open(p, "wb") as f:
            pickle.dump(SNAP, f)

    memory = types.SimpleNamespace(
        _record_memory_history=lambda *a, **k: calls["history"].append(k),
        _dump_snapshot=dump, _snapshot=lambda: SNAP)
    props = types.SimpleNamespace(name="NVIDIA H200", total_memory=FACTS["device_total"])
    cuda = types.SimpleNamespace(current_device=lambda: 0,
                                 memory_reserved=lambda d: FACTS["memory_stats"][
                                     "reserved_bytes.all.current"],
                                 get_device_properties=lambda d: props,
                                 get_per_process_memory_fraction=lambda d: FACTS["fraction"],
                                 memory=memory)
    t = types.ModuleType("torch")
    t.__version__ = FACTS["torch"]
    t.cuda = cuda
    t._C = types.SimpleNamespace(
        _cuda_attach_out_of_memory_observer=lambda fn: calls["observers"].append(fn))
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", FACTS["alloc_conf"])
    return calls


def test_record_dumps_the_snapshot_and_the_settings(torch, tmp_path):
    p = str(tmp_path / "job.pickle")
    with gpumemsim.record(p) as where:
        assert where == p
    assert torch["history"][0] == {"max_entries": 1000000}
    assert torch["history"][-1] == {"enabled": None}
    assert gpumemsim.run(p).events == gpumemsim.run(SNAP).events
    s = json.load(open(p + ".settings.json"))
    assert s["per_process_memory_fraction"] == FACTS["fraction"]
    assert s["total_memory"] == FACTS["device_total"]
    assert s["PYTORCH_CUDA_ALLOC_CONF"] == FACTS["alloc_conf"]


def test_record_dumps_even_when_the_job_fails(torch, tmp_path):
    p = str(tmp_path / "job.pickle")
    with pytest.raises(RuntimeError):
        with gpumemsim.record(p):
            raise RuntimeError("CUDA out of memory")
    assert gpumemsim.info(p).events > 0


def test_on_oom_names_the_recorded_oom_and_plans_capacity(torch, tmp_path):
    out = io.StringIO()
    snap_path = str(tmp_path / "oom.pickle")
    gpumemsim.on_oom(snap_path, out=out)
    (observer,) = torch["observers"]
    ob = FACTS["observer"]
    # PyTorch's order: (device, alloc, the limit: the fraction's bytes here, device_free)
    observer(0, ob["alloc"], ob["device_alloc"], ob["device_free"])
    text = out.getvalue()
    limit = FACTS["limit"]
    # the recording's own OOM: its event as the recording names it, its size as PyTorch asked
    rec = gpumemsim.run(snap_path).observed["recorded_oom"]
    assert rec["size"] == ob["alloc"]
    assert "snapshot in %s" % snap_path in text
    assert "the job ran out of memory in 683.42 MiB (%d B)" % limit in text
    assert "the replay runs out at event %d: a request for 40.00 MiB at " % rec["event"] in text
    m = gpumemsim.plan(snap_path).min_capacity("caching")
    assert m > limit  # it ran out in the limit, so what fits is more
    assert "the smallest capacity that fits (plan, caching): %s (%d B)" % (
        gpumemsim.results._size(m), m) in text
    t = gpumemsim.tune(snap_path, capacity=limit)
    assert "(tune): PYTORCH_CUDA_ALLOC_CONF=%s, " % t.recommended["PYTORCH_CUDA_ALLOC_CONF"] in text


def test_on_oom_without_a_fraction_is_what_the_allocator_could_reach(torch, tmp_path):
    # With no fraction set PyTorch passes the card's total as the limit; the
    # allocator could reach what it held plus what the device had free.  The
    # same job on a card with only limit - reserved free ran out in the same
    # limit (the total plus the free bytes is more than the card)
    out = io.StringIO()
    gpumemsim.on_oom(str(tmp_path / "oom.pickle"), out=out)
    ob = FACTS["observer"]
    reserved = FACTS["memory_stats"]["reserved_bytes.all.current"]
    torch["observers"][0](0, ob["alloc"], FACTS["device_total"], FACTS["limit"] - reserved)
    assert "the job ran out of memory in 683.42 MiB (%d B)" % FACTS["limit"] in out.getvalue()
    assert gpumemsim.torch_hooks.capacity_of(0, FACTS["device_total"], 1 << 30) == reserved + (1 << 30)


def test_on_oom_never_hides_the_jobs_own_error(torch, tmp_path):
    out = io.StringIO()
    gpumemsim.on_oom(str(tmp_path / "no-such-dir" / "x.pickle"), out=out)
    torch["observers"][0](0, 1, 2, 3)
    assert "could not explain the OOM" in out.getvalue()
