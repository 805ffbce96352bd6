"""gpumemsim - what a GPU allocator does with your job's memory, simulated.

Each call runs the gpumemsim binary the wheel carries (or $GPUMEMSIM, or the
one on PATH) and returns a typed result built from its JSON (doc/JSON.md).
A trace is a path, the bytes of a trace file, or a live snapshot dict
(torch.cuda.memory._snapshot()), handed to the binary on its standard input.

    import gpumemsim
    r = gpumemsim.run("job.pickle", capacity="24GiB")
    r.peak_reserved, r.oom.event if r.oom else None
    gpumemsim.plan("job.pickle").min_capacity("caching")

Errors raise GpumemsimError carrying the tool's message and exit status.
"""

import os

from . import _cli
from ._cli import GpumemsimError, SCHEMA
from .results import (CheckResult, CompareResult, CompareRow, InfoResult, Oom, OomLog,
                      PlanRanksResult, PlanResult, Policy, RankRun, RanksResult, Report,
                      RunResult, ScaleResult, ShareResult, TraceDiff, TuneResult,
                      TuneRmmResult)

__all__ = ["run", "ranks", "plan_ranks", "compare", "plan", "tune", "check", "share", "info", "report", "scale",
           "policies", "version", "oom", "record", "on_oom", "record_without_gpu", "GpumemsimError", "SCHEMA",
           "RunResult", "CompareResult", "CompareRow", "TraceDiff", "PlanResult",
           "TuneResult", "TuneRmmResult", "CheckResult", "InfoResult", "ShareResult", "ScaleResult",
           "Policy", "Report", "Oom", "OomLog", "RanksResult", "RankRun", "PlanRanksResult"]


def _size(v):
    """A size as the tool reads it: an int is bytes, a string keeps its unit.
    An int under 1 MiB is refused, as the command line refuses a number
    without a unit: capacity=24 meant 24 GiB, not 24 bytes."""
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError("a size is bytes (int) or a string with a unit, e.g. '24GiB'")
    if isinstance(v, int) and 0 < v < 1 << 20:
        raise ValueError("%d is %d bytes: give the unit ('%dGiB'), or bytes as an int of "
                         "1 MiB or more" % (v, v, v))
    return "%dB" % v if isinstance(v, int) else str(v)


def _target(capacity=None, gpu=None):
    args = []
    if capacity is not None:
        args.append("--capacity=" + _size(capacity))
    if gpu is not None:
        args.append("--gpu=" + gpu)
    return args


def _policy_args(policy=None, alloc_conf=None, options=None):
    args = []
    if policy is not None:
        args.append("--policy=" + policy)
    if alloc_conf is not None:
        args.append("--alloc-conf=" + alloc_conf)
    for k, v in (options or {}).items():
        args.append("--option=%s=%s" % (k, v))
    return args


def _at_args(at):
    """--at for an event or a list of them."""
    return ["--at=%d" % e for e in ([at] if isinstance(at, int) else at or [])]


def _flag(name, v):
    return [] if v is None or v is False else ["--%s" % name] if v is True else \
        ["--%s=%s" % (name, v)]


def run(trace, policy=None, *, capacity=None, gpu=None, alloc_conf=None, options=None,
        by_site=False, by_stack=False, at=None, placement=None, placements=None):
    """Replay trace through one policy (run): peak reservation, fragmentation,
    the OOM (r.oom, None when it fits); by_site/by_stack add what holds the
    memory at the peak (and at the events of at, one or two)."""
    arg, data = _cli.trace_arg(trace)
    args = ["run", arg] + _target(capacity, gpu) + _policy_args(policy, alloc_conf, options)
    args += _flag("by-site", by_site) + _flag("by-stack", by_stack)
    args += _flag("placement", placement) + _flag("placements", placements)
    args += _at_args(at)
    return RunResult.from_json(_cli.run_json(args, data)[1])


def _paths(traces):
    return [os.fspath(traces)] if isinstance(traces, (str, os.PathLike)) else \
        [os.fspath(t) for t in traces]


def ranks(traces, policy=None, *, capacity=None, gpu=None, alloc_conf=None, options=None,
          placements=None):
    """The ranks of one distributed job (run --ranks): traces is a directory of
    per-rank recordings or a list of files (the rank from each name, rank3 or
    _3, else their order); each rank on a GPU of its own, and the job's answer
    (RanksResult: the worst rank, the spread, who runs out first)."""
    args = ["run", "--ranks"] + _paths(traces) + _target(capacity, gpu)
    args += _policy_args(policy, alloc_conf, options) + _flag("placements", placements)
    return RanksResult.from_json(_cli.run_json(args)[1])


def _plan_args(gpus, gpu, policies, context_overhead):
    args = _flag("gpu", gpu)
    if gpus:
        args.append("--gpus=" + ",".join(gpus))
    if policies:
        args.append("--policies=" + ",".join(policies))
    if context_overhead is not None:
        args.append("--context-overhead=" + _size(context_overhead))
    return args


def plan_ranks(traces, *, gpus=None, gpu=None, policies=None, context_overhead=None):
    """plan --ranks: the capacity every rank of a job needs, and which GPUs fit
    them all (PlanRanksResult)."""
    args = ["plan", "--ranks"] + _paths(traces) + _plan_args(gpus, gpu, policies,
                                                             context_overhead)
    return PlanRanksResult.from_json(_cli.run_json(args)[1])


def compare(trace, after=None, *, policies=None, capacity=None, gpu=None, by=None,
            policy=None):
    """Several policies on one trace (CompareResult: the winner and why), or,
    given after, two traces under one policy (TraceDiff: what grew, by stack)."""
    with _cli.Traces() as t:
        args = ["compare", t.arg(trace)] + _target(capacity, gpu)
        if after is not None:
            args += [t.arg(after)] + _policy_args(policy)
            return TraceDiff.from_json(_cli.run_json(args, t.stdin)[1])
        args += _flag("by", by)
        if policies:
            args.append("--policies=" + ",".join(policies))
        return CompareResult.from_json(_cli.run_json(args, t.stdin)[1])


def plan(trace, *, gpus=None, gpu=None, policies=None, context_overhead=None,
         placements=None):
    """The smallest capacity each policy fits in, and which GPUs hold the job."""
    arg, data = _cli.trace_arg(trace)
    args = ["plan", arg] + _plan_args(gpus, gpu, policies, context_overhead)
    args += _flag("placements", placements)
    return PlanResult.from_json(_cli.run_json(args, data)[1])


def tune(trace, *, capacity=None, gpu=None):
    """The allocator setting that reserves least (PYTORCH_CUDA_ALLOC_CONF, BFC); on an
    RMM log a TuneRmmResult: RMM's resource and pool size, as the Python line."""
    arg, data = _cli.trace_arg(trace)
    obj = _cli.run_json(["tune", arg] + _target(capacity, gpu), data)[1]
    return TuneRmmResult.from_json(obj) if "rmm" in obj else TuneResult.from_json(obj)


def check(trace, *, capacity=None, gpu=None, policy=None, alloc_conf=None,
          max_peak_reserved=None, max_fragmentation=None, must_fit=None,
          max_device_allocs=None, baseline=None, tolerance=None):
    """Thresholds for CI: a CheckResult (false when a check failed; the tool's
    exit 1 is a result here, not an error)."""
    arg, data = _cli.trace_arg(trace)
    args = ["check", arg] + _target(capacity, gpu) + _policy_args(policy, alloc_conf)
    args += _flag("max-peak-reserved", _size(max_peak_reserved))
    args += _flag("max-fragmentation", max_fragmentation)
    args += _flag("must-fit", _size(must_fit))
    args += _flag("max-device-allocs", max_device_allocs)
    args += _flag("baseline", baseline) + _flag("tolerance", tolerance)
    return CheckResult.from_json(_cli.run_json(args, data, ok=(0, 1))[1])


def share(jobs, *, gpu=None, capacity=None, context_overhead=None, recommend=False,
          offsets=None, seed=None):
    """Several jobs on one GPU: each a trace, or (trace, "policy=... after=...").
    recommend: per-job limits in each framework's terms under which all fit
    (ShareResult.recommend); offsets: that many runs with the jobs started at
    random offsets (ShareResult.offsets, the same seed the same offsets);
    context_overhead: each job's CUDA context."""
    with _cli.Traces() as t:
        args = ["share"] + _target(capacity, gpu)
        if context_overhead is not None:
            args.append("--context-overhead=" + _size(context_overhead))
        args += _flag("recommend", recommend) + _flag("offsets", offsets)
        args += _flag("seed", seed)
        for j in jobs:
            trace, settings = j if isinstance(j, tuple) else (j, None)
            arg = t.word(trace)
            args += ["--job", arg if settings is None else "%s %s" % (arg, settings)]
        return ShareResult.from_json(_cli.run_json(args, t.stdin)[1])


def info(trace):
    """What a trace holds: events, streams, the live peak and its sites."""
    arg, data = _cli.trace_arg(trace)
    return InfoResult.from_json(_cli.run_json(["info", arg], data)[1])


def oom(log):
    """An out-of-memory log read back into the allocator's state (`gpumemsim
    oom`): a path, or the text as bytes, e.g. after catching one:
    gpumemsim.oom((str(e) + torch.cuda.memory_summary()).encode())."""
    if isinstance(log, str) and not os.path.exists(log) and "\n" in log:
        raise TypeError("oom() takes a log's path, or its text as bytes (.encode())")
    arg, data = _cli.trace_arg(log)
    return OomLog.from_json(_cli.run_json(["oom", arg], data)[1])


def scale(recordings, *, value=None, capacity=None, gpu=None, policy=None):
    """The job at a value nobody recorded, from recordings {value: trace}: the
    curve, or the largest value that fits capacity or gpu."""
    with _cli.Traces() as t:
        args = ["scale"]
        for v, tr in sorted(recordings.items()):
            args += ["--at", str(v), t.arg(tr)]
        args += _flag("value", value) + _target(capacity, gpu) + _policy_args(policy)
        return ScaleResult.from_json(_cli.run_json(args, t.stdin)[1])


def report(trace, after=None, *, policies=None, capacity=None, gpu=None, at=None,
           title=None):
    """The HTML report (an explorer; two traces: compared) as a Report object,
    shown inline in Jupyter; Report.save(path) writes it."""
    with _cli.Traces() as t:
        args = ["report", t.arg(trace)]
        if after is not None:
            args.append(t.arg(after))
        args += ["-o", "-"] + _target(capacity, gpu) + _flag("title", title)
        if policies:
            args.append("--policies=" + ",".join(policies))
        args += _at_args(at)
        return Report(_cli.run(args, t.stdin)[1])


def policies():
    """Every policy, what it stands for, and its options."""
    return [Policy.from_json(p) for p in _cli.run_json(["policies"])[1]["policies"]]


def version():
    """The binary's --version line."""
    return _cli.run(["--version"])[1].strip()


def record(*args, **kwargs):
    """See gpumemsim.torch_hooks.record."""
    from .torch_hooks import record as _record
    return _record(*args, **kwargs)


def record_without_gpu(*args, **kwargs):
    """See gpumemsim.recorder.record_without_gpu: a block of PyTorch code
    recorded on fake tensors, no GPU memory allocated."""
    from .recorder import record_without_gpu as _record
    return _record(*args, **kwargs)


def on_oom(*args, **kwargs):
    """See gpumemsim.torch_hooks.on_oom."""
    from .torch_hooks import on_oom as _on_oom
    return _on_oom(*args, **kwargs)
