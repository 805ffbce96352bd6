"""conftest.py - where the suite finds the tree's traces and documents
(GMS_TOP, set by t/python.sh; else the tree this file is in), and the
ground truth the recordings carry, read here without gpumemsim."""

import gzip
import json
import os

import pytest

TOP = os.environ.get("GMS_TOP") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def path(*parts):
    return os.path.join(TOP, *parts)


def load_trace(p):
    """A native trace (JSON or JSON Lines, maybe gzipped): (header, events)."""
    opener = gzip.open if p.endswith(".gz") else open
    with opener(p, "rt") as f:
        text = f.read()
    if p.endswith(".jsonl") or p.endswith(".jsonl.gz"):
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        return lines[0], lines[1:]
    d = json.loads(text)
    return d, d["events"]


def live_peak(events):
    """The largest sum of live requested bytes, replaying allocs and frees."""
    live, peak, sizes = 0, 0, {}
    for e in events:
        if e["op"] == "alloc":
            sizes[e["id"]] = e["size"]
            live += e["size"]
            peak = max(peak, live)
        elif e["op"] == "free" and e["id"] in sizes:
            live -= sizes.pop(e["id"])
    return peak


@pytest.fixture(scope="session")
def resnet():
    p = path("traces", "resnet50-train-b32.json")
    hdr, events = load_trace(p)
    return p, hdr, events


@pytest.fixture(scope="session")
def gpt2():
    p = path("traces", "gpt2-train-varlen-bf16.jsonl.gz")
    hdr, events = load_trace(p)
    return p, hdr, events
