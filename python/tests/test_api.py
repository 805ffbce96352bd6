"""test_api.py - every API call on the bundled traces, against the numbers
the recordings themselves carry (their "observed" object: what PyTorch's
allocator did on the H200) or that the test works out from the events."""

import gzip
import os
import pickle
import tempfile
import subprocess
import sys

import pytest

import gpumemsim
from conftest import live_peak, path


def test_version_and_the_binary_inside_the_package():
    assert gpumemsim.version().startswith("gpumemsim ")
    if "GPUMEMSIM" not in os.environ:  # t/python.sh runs the installed wheel
        assert gpumemsim._cli.binary().endswith(os.path.join("gpumemsim", "_bin", "gpumemsim"))


def test_run_reproduces_pytorch(resnet):
    p, hdr, events = resnet
    r = gpumemsim.run(p)
    obs = hdr["observed"]
    assert isinstance(r, gpumemsim.RunResult)
    assert r.schema == gpumemsim.SCHEMA == 1
    assert r.policy == "caching"
    assert (r.peak_reserved, r.peak_allocated, r.peak_requested, r.device_allocs) == (
        obs["peak_reserved"], obs["peak_allocated"], obs["peak_requested"],
        obs["device_allocs"])
    assert r.events == len(events)
    assert r.peak_live == live_peak(events)
    assert r.oom is None and not r.oomed
    assert r.capacity is None
    assert abs(r.fragmentation - (1 - obs["peak_allocated"] / obs["peak_reserved"])) < 1e-12


def test_run_from_bytes_and_from_a_snapshot_dict(resnet, gpt2):
    p, hdr, _ = gpt2
    with open(p, "rb") as f:
        r = gpumemsim.run(f.read())
    assert r.peak_reserved == hdr["observed"]["peak_reserved"]
    # the same ResNet job as a PyTorch snapshot, handed over as a live dict
    with open(path("traces", "resnet50-train-b32.pickle"), "rb") as f:
        snap = pickle.load(f)
    assert isinstance(snap, dict) and "segments" in snap
    r = gpumemsim.run(snap)
    assert r.peak_reserved == resnet[1]["observed"]["peak_reserved"]
    # named for what it was, not '-' (standard input)
    assert r.trace == "snapshot"
    with open(path("traces", "resnet50-train-b32.pickle"), "rb") as f:
        assert gpumemsim.run(f.read()).trace == "trace"


def test_run_in_a_capacity_and_by_site(resnet):
    p, hdr, events = resnet
    peak = hdr["observed"]["peak_reserved"]
    fits = gpumemsim.run(p, capacity=peak)
    assert fits.oom is None and fits.capacity == peak
    small = gpumemsim.run(p, capacity="2GiB", by_site=True)
    assert small.capacity == 2 << 30
    assert isinstance(small.oom, gpumemsim.Oom)
    assert 0 <= small.oom.event < len(events)
    assert events[small.oom.event]["op"] == "alloc"
    assert small.oom.size == events[small.oom.event]["size"]
    assert small.oom.reserved <= 2 << 30
    moments = {m["moment"] for m in small.sites}
    assert moments == {"peak_reserved", "oom"}


def test_compare(resnet):
    p, hdr, _ = resnet
    c = gpumemsim.compare(p, policies=["caching", "grow-only"])
    assert isinstance(c, gpumemsim.CompareResult)
    assert [r.label for r in c.results] == ["caching", "grow-only"]
    assert c.results[0].peak_reserved == hdr["observed"]["peak_reserved"]
    assert c.winner in ("caching", "grow-only") and c.why
    assert "<table>" in c._repr_html_()


def test_compare_two_traces():
    x = path("t", "data", "scale")
    d = gpumemsim.compare(os.path.join(x, "xfmr-seq-64.pickle.gz"),
                          os.path.join(x, "xfmr-seq-128.pickle.gz"))
    assert isinstance(d, gpumemsim.TraceDiff)
    top = d.grew[0]
    # dropout's mask: 8 of them, 1.25 MiB at seq 64, 5 MiB at 128 (the L^2 matrix)
    assert top["stack"][0] == "at::native::dropout"
    assert (top["before"], top["after"]) == (1310720, 5242880)


def test_two_live_snapshots_one_piped_one_in_a_file():
    x = path("t", "data", "scale")
    a = pickle.load(gzip.open(os.path.join(x, "xfmr-seq-64.pickle.gz")))
    b = pickle.load(gzip.open(os.path.join(x, "xfmr-seq-128.pickle.gz")))
    d = gpumemsim.compare(a, b)
    assert (d.grew[0]["before"], d.grew[0]["after"]) == (1310720, 5242880)
    s = gpumemsim.scale({64: a, 128: b}, value=128)
    pt = [q for q in s.points if q["value"] == 128][0]
    assert pt["peak_reserved"] == gpumemsim.run(b).peak_reserved
    before = set(os.listdir(tempfile.gettempdir()))
    gpumemsim.share([a, b], gpu="H200")
    assert not [f for f in set(os.listdir(tempfile.gettempdir())) - before
                if f.startswith("gpumemsim-")], "temporary files are removed"


def test_plan_is_verified_by_runs(resnet):
    p, hdr, _ = resnet
    pl = gpumemsim.plan(p, gpus=["H200", "A10"])
    m = pl.min_capacity("caching")
    assert m <= hdr["observed"]["peak_reserved"]
    assert gpumemsim.run(p, capacity=m).oom is None
    assert gpumemsim.run(p, capacity=m - (2 << 20)).oom is not None
    assert [g["gpu"] for g in pl.gpus] == ["H200", "A10"]
    page = pl._repr_html_()
    assert page.count("<tr>") == 4 and "<th>caching</th>" in page
    assert page.count("fits") + page.count("runs out") == 2 * len(pl.policies)
    with pytest.raises(KeyError):
        pl.min_capacity("no-such-policy")


def test_tune(gpt2):
    p, hdr, _ = gpt2
    t = gpumemsim.tune(p)
    assert t.recorded_alloc_conf is None
    rec = t.recommended
    # the defaults reserve what PyTorch reserved; the recommendation less, and it fits
    assert rec["default_peak_reserved"] == hdr["observed"]["peak_reserved"]
    assert rec["peak_reserved"] < rec["default_peak_reserved"]
    assert rec["PYTORCH_CUDA_ALLOC_CONF"] in [c["alloc_conf"] for c in t.caching]


def test_tune_an_rmm_log():
    log = path("t", "data", "rmm", "plan.csv")
    t = gpumemsim.tune(log)
    assert isinstance(t, gpumemsim.TuneRmmResult)
    # 1000 and 3000 B, the first freed, then 2000: a pool of 6144 B, worked by hand
    assert t.min_pool == 6144 and t.min_arena == 1048576
    assert t.best["policy"] == "rmm-pool initial=6144B maximum=6144B"
    assert t.best["setting"] == ("rmm.reinitialize(pool_allocator=True, "
                                 "initial_pool_size=6144, maximum_pool_size=6144)")
    assert t.rmm[-1]["policy"] == "no-cache"


def test_check_fails_as_a_result_not_an_error(resnet):
    p, hdr, _ = resnet
    peak = hdr["observed"]["peak_reserved"]
    ok = gpumemsim.check(p, max_peak_reserved=peak)
    assert ok.passed and ok and ok.failed == 0
    bad = gpumemsim.check(p, max_peak_reserved=peak - 1)
    assert not bad.passed and not bad and bad.failed == 1


def test_info(gpt2):
    p, hdr, events = gpt2
    i = gpumemsim.info(p)
    assert i.events == len(events)
    assert i.allocs == sum(1 for e in events if e["op"] == "alloc")
    assert i.frees == sum(1 for e in events if e["op"] == "free")
    assert i.peak_live == live_peak(events)
    assert i.device["name"] == hdr["device"]["name"]


def test_oom_log_by_path_and_text():
    """A real PyTorch OOM log (t/data/oomlogs): its numbers are the snapshot's
    of the same run (t/cli-oom.sh checks them); here the API's reading of it,
    from a path and from its text, and a trace refused as no log."""
    log = os.path.join(os.environ["GMS_TOP"], "t", "data", "oomlogs", "torch-frag.log")
    o = gpumemsim.oom(log)
    assert o.verdict == "fragmentation" and o.allocator == "pytorch-caching"
    # "Tried to allocate 700.00 MiB", "200.00 MiB is allocated by PyTorch"
    assert o.request == 700 << 20 and o.state["allocated"] == 200 << 20
    assert o.needed == 900 << 20
    # serving it reserves the cache in the segment still in use
    # (memory_summary()'s Non-releasable memory, 204800 KiB) and the
    # request's own segment
    assert o.to_serve == (200 << 20) + 204800 * 1024 + (700 << 20)
    assert o.settings[0].startswith("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True ")
    with open(log, "rb") as f:
        assert gpumemsim.oom(f.read()).needed == o.needed
    with pytest.raises(TypeError):
        gpumemsim.oom("CUDA out of memory.\nTried to allocate")
    with pytest.raises(gpumemsim.GpumemsimError):
        gpumemsim.oom(os.path.join(os.environ["GMS_TOP"], "traces", "synth-lognormal-1.json"))


def test_share(resnet):
    p, hdr, _ = resnet
    s = gpumemsim.share([p, p], gpu="H200")
    assert s.fits is True and s.gpu == "H200" and len(s.jobs) == 2
    assert s.peak_used >= 2 * hdr["observed"]["peak_reserved"]


def test_scale_at_a_recorded_value_is_that_recording():
    x = path("t", "data", "scale")
    recs = {64: os.path.join(x, "xfmr-seq-64.pickle.gz"),
            128: os.path.join(x, "xfmr-seq-128.pickle.gz")}
    s = gpumemsim.scale(recs, value=128)
    assert [r["value"] for r in s.recordings] == [64, 128]
    pt = [q for q in s.points if q["value"] == 128][0]
    assert pt["peak_reserved"] == gpumemsim.run(recs[128]).peak_reserved


def test_report(resnet):
    p, hdr, _ = resnet
    rep = gpumemsim.report(p, policies=["caching"])
    assert rep.html.startswith("<!DOCTYPE html>")
    assert 'data-peak-reserved="%d"' % hdr["observed"]["peak_reserved"] in rep.html
    assert rep._repr_html_().startswith("<iframe")


def test_policies():
    ps = gpumemsim.policies()
    assert [p.name for p in ps] == ["caching", "grow-only", "preallocate", "no-cache", "ideal",
                                    "rmm-pool", "rmm-arena", "rmm-binning", "cuda-async", "rmm-fixed"]
    assert any(o["key"] == "alloc_conf" for o in ps[0].options)


def test_errors_carry_the_tools_message_and_status(tmp_path):
    missing = str(tmp_path / "none.json")
    with pytest.raises(gpumemsim.GpumemsimError) as e:
        gpumemsim.run(missing)
    assert e.value.status == 4
    assert e.value.message == "cannot open trace '%s': No such file or directory" % missing
    bad = tmp_path / "bad.json"
    bad.write_text('{"format":"gpumemsim-trace","version":1,"events":[{"op":"alloc"}]}')
    with pytest.raises(gpumemsim.GpumemsimError) as e:
        gpumemsim.run(str(bad))
    assert e.value.status == 3 and str(bad) in e.value.message
    with pytest.raises(gpumemsim.GpumemsimError) as e:
        gpumemsim.run(path("traces", "resnet50-train-b32.json"), policy="no-such-policy")
    assert e.value.status == 3 and e.value.message.startswith("unknown policy 'no-such-policy'")
    with pytest.raises(TypeError):
        gpumemsim.run(42)
    with pytest.raises(TypeError):
        gpumemsim.run(path("traces", "resnet50-train-b32.json"), capacity=True)


def test_python_dash_m_is_the_command_line(resnet):
    p = resnet[0]
    via = subprocess.run([sys.executable, "-m", "gpumemsim", "run", p, "--format=json"],
                         stdout=subprocess.PIPE, check=True).stdout
    direct = subprocess.run([gpumemsim._cli.binary(), "run", p, "--format=json"],
                            stdout=subprocess.PIPE, check=True).stdout
    assert via == direct
    bad = subprocess.run([sys.executable, "-m", "gpumemsim", "run"], stderr=subprocess.PIPE)
    assert bad.returncode == 2 and b"gpumemsim: error:" in bad.stderr


def _facts(rank):
    import json
    with open(path("t", "data", "ranks", "facts", "pp-rank%d.facts.json" % rank)) as f:
        return json.load(f)["memory_stats"]


def test_ranks_reproduce_each_rank_and_answer_for_the_job():
    r = gpumemsim.ranks(path("t", "data", "ranks"))
    assert isinstance(r, gpumemsim.RanksResult) and r.ranks_from == "names"
    assert [x.rank for x in r.ranks] == [0, 1, 2, 3]
    for x in r.ranks:
        assert isinstance(x, gpumemsim.RankRun)
        assert x.peak_reserved == _facts(x.rank)["reserved_bytes.all.peak"]
        assert x.peak_allocated == _facts(x.rank)["allocated_bytes.all.peak"]
    assert r.worst.rank == 3 and r.first_oom is None
    assert r.job["spread"] == (_facts(3)["reserved_bytes.all.peak"] -
                               _facts(1)["reserved_bytes.all.peak"])


def test_ranks_under_a_capacity_name_who_runs_out_first():
    hand = path("t", "data", "ranks", "hand")
    r = gpumemsim.ranks([os.path.join(hand, "job-rank%d.json" % i) for i in (2, 0, 1)],
                        "ideal", capacity="500MiB")
    assert [x.oomed for x in r.ranks] == [False, True, True]
    assert r.first_oom == {"rank": 2, "event": 0, "events": 2} and r.worst.rank == 2


def test_plan_ranks_needs_the_neediest_rank():
    p = gpumemsim.plan_ranks(path("t", "data", "ranks", "hand"), policies=["ideal"],
                             gpus=["1100MiB", "1200MiB"])
    assert p.min_capacity("ideal") == 600 * 2 ** 20
    cells = [g["policies"][0] for g in p.job["gpus"]]
    assert (cells[0]["fits"], cells[0]["first_oom_rank"], cells[1]["fits"]) == (False, 1, True)


def test_a_bare_int_under_a_mib_is_refused_as_the_command_line_refuses_it(resnet):
    # capacity=24 was 24 bytes, silently: the command line refuses "24" without a unit
    with pytest.raises(ValueError, match="24 is 24 bytes"):
        gpumemsim.run(resnet[0], capacity=24)
    # bytes as an int stay bytes: PyTorch's own limit, where it ran out at event 2381
    r = gpumemsim.run(resnet[0], capacity=3150157824)
    assert r.oom.event == 2381


def test_share_asks_what_the_command_line_asks(resnet, tmp_path):
    # two growth jobs of ResNet-50 on an 8 GB card, each with a 512 MiB context:
    # a limit for each that lets both fit, checked by a run (--recommend); and
    # the same seed gives the same offsets
    jobs = [(resnet[0], "policy=grow-only"), (resnet[0], "policy=grow-only")]
    s = gpumemsim.share(jobs, capacity="8GB", recommend=True, offsets=3, seed=7,
                        context_overhead="512MiB")
    assert s.context_overhead == 512 << 20
    assert s.recommend is not None and s.offsets["samples"] == 3 and s.offsets["seed"] == 7
    again = gpumemsim.share(jobs, capacity="8GB", offsets=3, seed=7)
    assert again.offsets == s.offsets


def test_paths_with_blanks_and_a_leading_dash(resnet, tmp_path):
    spaced = tmp_path / "a job with blanks.json"
    dashed = tmp_path / "-dash.json"
    spaced.write_bytes(open(resnet[0], "rb").read())
    dashed.write_bytes(open(resnet[0], "rb").read())
    s = gpumemsim.share([str(spaced), (str(spaced), "policy=caching")], gpu="H200")
    assert s.fits and len(s.jobs) == 2
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert gpumemsim.run("-dash.json").peak_reserved == 3703570432
    finally:
        os.chdir(cwd)
