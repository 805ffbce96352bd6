"""torch_hooks.py - recording a PyTorch job the way gpumemsim reads it best,
and explaining an out-of-memory error when it happens.  Imports torch only
when called."""

import contextlib
import json
import os
import pickle
import sys


def _settings(device=None):
    """The allocator settings and memory limit in force, as a recording should keep them."""
    import torch
    dev = torch.cuda.current_device() if device is None else device
    props = torch.cuda.get_device_properties(dev)
    s = {"PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
         "device": props.name, "total_memory": props.total_memory,
         "torch": torch.__version__}
    frac = getattr(torch.cuda, "get_per_process_memory_fraction", None)
    if frac is not None:
        try:
            s["per_process_memory_fraction"] = frac(dev)
        except (RuntimeError, TypeError):
            pass
    return s


@contextlib.contextmanager
def record(path, max_entries=1000000, **history_kwargs):
    """with gpumemsim.record("job.pickle"): ...  Records the allocator's history
    (with its defaults: Python and C++ frames), dumps the snapshot at the end
    (also when the body raises), and writes the settings and limit in force
    beside it (job.pickle.settings.json).  History is switched off after."""
    import torch
    torch.cuda.memory._record_memory_history(max_entries=max_entries, **history_kwargs)
    try:
        yield path
    finally:
        torch.cuda.memory._dump_snapshot(path)
        with open(path + ".settings.json", "w") as f:
            json.dump(_settings(), f, indent=1)
        torch.cuda.memory._record_memory_history(enabled=None)


def capacity_of(device, device_limit, device_free):
    """The memory the allocator could reach when it ran out, from PyTorch's OOM
    observer's arguments (device, alloc, device_limit, device_free): the
    limit is the per-process fraction's bytes when one is set, else the
    card's total, and what it could reach is less than that when the card
    was short: what it held then (reserved) plus what the device had free."""
    import torch
    reserved = torch.cuda.memory_reserved(device)
    return int(min(device_limit, reserved + device_free))


def explain(snapshot, capacity, out=sys.stderr):
    """What gpumemsim says of a snapshot that ran out of memory in capacity:
    the OOM it replays (event, request, what held the memory), the smallest
    capacity that fits (plan) and the setting that helps (tune).  Returns the
    (RunResult, PlanResult, TuneResult) it printed."""
    import gpumemsim
    data = pickle.dumps(snapshot, protocol=4) if isinstance(snapshot, dict) else snapshot
    r = gpumemsim.run(data, capacity=capacity, by_site=True)
    p = gpumemsim.plan(data)
    t = gpumemsim.tune(data, capacity=capacity)
    w = out.write
    w("gpumemsim: the job ran out of memory in %s (%d B)\n" % (_size(capacity), capacity))
    if r.oom is not None:
        w("  the replay runs out at event %d: a request for %s at %s\n"
          % (r.oom.event, _size(r.oom.size), r.oom.at or "(no call site)"))
        w("  %s live, %s reserved, the largest free block %s\n"
          % (_size(r.oom.live), _size(r.oom.reserved), _size(r.oom.largest_free)))
        for m in r.sites or []:
            if m.get("moment") == "oom":
                for s in m.get("sites", [])[:5]:
                    w("    %10s  %s\n" % (_size(s["bytes"]), s["site"]))
    else:
        w("  the replay fits in it (the recording holds only part of the run, or "
          "memory outside PyTorch's allocator ran out)\n")
    w("  the smallest capacity that fits (plan, caching): %s (%d B)\n"
      % (_size(p.min_capacity("caching")), p.min_capacity("caching")))
    rec = t.recommended or {}
    conf = rec.get("PYTORCH_CUDA_ALLOC_CONF")
    if conf is not None:
        row = [c for c in t.caching or [] if c.get("alloc_conf") == conf]
        fits = bool(row and row[0].get("fits"))
        w("  the setting that reserves least (tune): PYTORCH_CUDA_ALLOC_CONF=%s, %s reserved "
          "at most: %s\n" % (conf, _size(rec.get("peak_reserved")),
                              "it fits where the defaults ran out" if fits and
                              not rec.get("default_fits") else "it fits" if fits else
                              "it does not fit either"))
    return r, p, t


def on_oom(path="gpumemsim-oom.pickle", out=sys.stderr, explain_it=True):
    """Attach to PyTorch's OOM observer: when the allocator runs out of memory,
    dump the snapshot to path and print what gpumemsim says of it (explain()).
    The original exception is raised as ever; nothing is hidden.  Record
    history first (torch.cuda.memory._record_memory_history or record()), or
    the snapshot has no events to replay.  Returns the observer."""
    import torch

    def observer(device, alloc, device_limit, device_free):
        try:
            snap = torch.cuda.memory._snapshot()
            with open(path, "wb") as f:
                pickle.dump(snap, f, protocol=4)
            out.write("gpumemsim: out of memory on device %d (the allocator asked it for "
                      "%s): snapshot in %s\n"
                      % (device, _size(alloc), path))
            if explain_it:
                explain(snap, capacity_of(device, device_limit, device_free), out)
        except Exception as e:  # the job's own error matters more than ours
            out.write("gpumemsim: could not explain the OOM: %s\n" % e)

    torch._C._cuda_attach_out_of_memory_observer(observer)
    return observer


def _size(n):
    from .results import _size as size
    return size(n)
