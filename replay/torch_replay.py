#!/usr/bin/env python3
"""torch_replay.py - drive PyTorch's own CUDA caching allocator with a
gpumemsim trace and print what it did, with the keys of
`gpumemsim run --format=json`, so anyone with a GPU can check the simulator
against their framework:

    python3 replay/torch_replay.py traces/resnet50-train-b32.json \\
        --capacity 3150157824 --alloc-conf expandable_segments:True

Each alloc is a uint8 torch.empty of exactly the traced size on the traced
stream, each free a del; the capacity is set with
torch.cuda.set_per_process_memory_fraction so that the limit PyTorch
computes from it is exactly the bytes asked for.  Reads the native JSON and
JSON Lines formats (gzip'd or not); convert other formats with
`gpumemsim convert` first.

--hidden makes reservations the allocator does not see, through the driver
API (cuMemAlloc/cuMemFree in PyTorch's context), as a library's workspace
would: "a64,a302,f0,@1200/a32" reserves 64 and 302 MiB, frees the first
(hidden reservation 0), and before event 1200 reserves 32 MiB.
"""
import argparse
import gzip
import json
import os
import sys


def read_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        if ".jsonl" in os.path.basename(path):
            header = json.loads(f.readline())
            events = [json.loads(line) for line in f if line.strip()]
        else:
            header = json.load(f)
            events = header.pop("events")
    if header.get("format") != "gpumemsim-trace":
        sys.exit("torch_replay.py: %s: not a gpumemsim trace" % path)
    return header, events


def fraction_for(limit, total):
    """The fraction whose limit, as PyTorch computes it (size_t of fraction
    times total, in double), is exactly limit."""
    f = limit / total
    while int(f * total) < limit:
        f = float.__add__(f, f * 2.0 ** -52)
    while int(f * total) > limit:
        f = float.__sub__(f, f * 2.0 ** -52)
    return f


def parse_hidden(spec):
    """{event index (-1: before the first): [("a", bytes) | ("f", k), ...]}"""
    steps = {}
    for item in filter(None, spec.split(",")):
        at = -1
        if item.startswith("@"):
            at, item = item[1:].split("/", 1)
            at = int(at)
        kind, n = item[0], int(item[1:])
        if kind not in "af":
            sys.exit("torch_replay.py: --hidden: %r: not aMIB or fK" % item)
        steps.setdefault(at, []).append((kind, n * 2**20 if kind == "a" else n))
    return steps


_cuda = None


def hide(step, hidden):
    """One hidden step through the driver API, in the current (PyTorch's) context."""
    import ctypes
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
    kind, n = step
    if kind == "a":
        ptr = ctypes.c_uint64(0)
        rc = _cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(n))
        if rc != 0:
            sys.exit("torch_replay.py: cuMemAlloc(%d): error %d" % (n, rc))
        hidden.append(ptr.value)
    elif 0 <= n < len(hidden) and hidden[n]:
        _cuda.cuMemFree_v2(ctypes.c_uint64(hidden[n]))
        hidden[n] = 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--capacity", type=int, default=0, help="byte limit (0: none)")
    ap.add_argument("--alloc-conf", default="", help="PYTORCH_CUDA_ALLOC_CONF")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--segments", action="store_true",
                    help="also report every segment the driver handed out and took back, "
                    "in order: [\"a\"|\"f\", address, size] (the shared address runs' shape)")
    ap.add_argument("--hidden", default="",
                    help="reservations beside the allocator: [@EVENT/]aMIB or [@EVENT/]fK, "
                    "comma-separated (see above)")
    args = ap.parse_args()

    header, events = read_trace(args.trace)
    if args.alloc_conf:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = args.alloc_conf
    else:
        os.environ.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    import torch  # after the environment: the allocator reads it once

    dev = torch.device("cuda", args.device)
    torch.cuda.set_device(dev)
    torch.cuda.init()
    torch.empty(0, device=dev)  # the context, no memory
    free, total = torch.cuda.mem_get_info(dev)
    context = total - free
    if args.capacity:
        torch.cuda.set_per_process_memory_fraction(fraction_for(args.capacity, total), dev)
    torch.cuda.reset_peak_memory_stats(dev)
    hidden_at, hidden = parse_hidden(args.hidden), []
    for step in hidden_at.pop(-1, []):
        hide(step, hidden)
    if args.segments:
        torch.cuda.memory._record_memory_history(max_entries=10_000_000, context=None,
                                                 stacks="python")

    streams = {0: torch.cuda.default_stream(dev)}
    live, sizes = {}, {}
    cur = peak_live = 0
    oom = None
    for i, ev in enumerate(events):
        for step in hidden_at.pop(i, []):
            hide(step, hidden)
        op = ev.get("op")
        if op == "alloc":
            cur += ev["size"]
            peak_live = max(peak_live, cur)
            sizes[ev["id"]] = ev["size"]
            if oom is not None:
                continue
            sid = ev.get("stream", 0)
            if sid not in streams:
                streams[sid] = torch.cuda.Stream(dev)
            try:
                with torch.cuda.stream(streams[sid]):
                    live[ev["id"]] = torch.empty(ev["size"], dtype=torch.uint8, device=dev)
            except torch.OutOfMemoryError:
                st = torch.cuda.memory_stats(dev)
                oom = {"event": i, "size": ev["size"],
                       "reserved": st.get("reserved_bytes.all.current", 0),
                       "allocated": st.get("allocated_bytes.all.current", 0)}
                stats_at_oom = st
        elif op == "free":
            cur -= sizes.pop(ev["id"], 0)
            live.pop(ev["id"], None)
    torch.cuda.synchronize(dev)
    st = stats_at_oom if oom is not None else torch.cuda.memory_stats(dev)
    reserved = st.get("reserved_bytes.all.peak", 0)
    allocated = st.get("allocated_bytes.all.peak", 0)
    out = {
        "trace": header.get("name", os.path.basename(args.trace)),
        "policy": "pytorch",
        "options": {"PYTORCH_CUDA_ALLOC_CONF": args.alloc_conf or None,
                    "torch": torch.__version__,
                    "gpu": torch.cuda.get_device_name(dev)},
        "capacity": args.capacity,
        "events": len(events),
        "peak_live": peak_live,
        "peak_reserved": reserved,
        "peak_allocated": allocated,
        "peak_requested": st.get("requested_bytes.all.peak", 0),
        "device_allocs": st.get("num_device_alloc", 0),
        "device_frees": st.get("num_device_free", 0),
        "alloc_retries": st.get("num_alloc_retries", 0),
        "peak_segments": st.get("segment.all.peak", 0),
        "fragmentation": 1 - allocated / reserved if reserved else 0,
        "oom": oom,
        "gpu_total": total,
        "context_bytes": context,
    }
    if args.segments:
        trace = torch.cuda.memory._snapshot()["device_traces"][dev.index]
        out["segments"] = [["a" if e["action"] == "segment_alloc" else "f", e["addr"], e["size"]]
                           for e in trace if e["action"] in ("segment_alloc", "segment_free")]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
