"""test_gpu_fixtures.py - what python/tests/gpu_oom.py recorded on the H200
with the package itself (t/data/python/), replayed here: record()'s snapshot
reserves what PyTorch's memory_stats said, and the snapshot on_oom() dumped
runs out, in the limit PyTorch enforced, at the OOM the recording names, as
the hook printed there."""

import json

import gpumemsim
from conftest import path

RES = json.load(open(path("t", "data", "python", "gpu-oom.json")))


def test_the_run_on_the_gpu_passed_its_checks():
    assert RES["ok"] and all(RES["ok"].values()), RES["ok"]


def test_record_replays_pytorchs_own_peak():
    r = gpumemsim.run(path("t", "data", "python", "record.pickle.gz"))
    assert r.peak_reserved == RES["record"]["stats_peak_reserved"]
    assert r.device_allocs == RES["record"]["stats_device_allocs"]
    s = json.load(open(path("t", "data", "python", "record.pickle.settings.json")))
    assert s["device"] == "NVIDIA H200" and s["total_memory"] == 150109880320


def test_the_oom_snapshot_runs_out_where_pytorch_did():
    snap = path("t", "data", "python", "oom.pickle.gz")
    oom = RES["oom"]
    # PyTorch's message: 627 MiB allocated and 55 MiB cached, a 20 MiB segment
    # refused in 700 MiB allowed
    assert "700.00 MiB allowed" in oom["caught"] and "Tried to allocate 20.00 MiB" in oom["caught"]
    r = gpumemsim.run(snap, capacity=oom["limit"])
    assert r.oom is not None and r.oom.event == oom["recorded_oom"]["event"]
    assert r.oom.reserved == (627 + 55) << 20
    assert r.oom.allocated == 627 << 20
    m = gpumemsim.plan(snap).min_capacity("caching")
    assert m > oom["limit"] and gpumemsim.run(snap, capacity=m).oom is None
    assert "(%d B)" % m in oom["printed"] and "(%d B)" % oom["limit"] in oom["printed"]
