"""test_schema.py - every command's JSON against doc/JSON.md: the keys marked
"always" are there in the documented order, every key present is
documented, and each value has its documented type."""

import json
import os
import re
import subprocess

import pytest

import gpumemsim
from conftest import path

TYPES = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
         "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
         "string": lambda v: isinstance(v, str), "bool": lambda v: isinstance(v, bool),
         "object": lambda v: isinstance(v, dict), "list": lambda v: isinstance(v, list),
         "null": lambda v: v is None}


def documented():
    """{section: [(key, [types], always)]} from doc/JSON.md's tables."""
    out, sec = {}, None
    with open(path("doc", "JSON.md")) as f:
        for line in f:
            m = re.match(r"^## (\S+)", line)
            if m:
                sec = m.group(1)
                out[sec] = []
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if sec and len(cells) == 3 and cells[0] not in ("key", "---") and \
                    not cells[0].startswith("-"):
                out[sec].append((cells[0], cells[1].split(" or "), cells[2] == "always"))
    return out


DOC = documented()
X = path("t", "data", "scale")
R = path("traces", "resnet50-train-b32.json")
G = path("traces", "gpt2-train-varlen-bf16.jsonl.gz")
AT = ["--at", "64", os.path.join(X, "xfmr-seq-64.pickle.gz"),
      "--at", "128", os.path.join(X, "xfmr-seq-128.pickle.gz")]
CASES = [
    ("run", ["run", R]), ("run", ["run", R, "--by-site"]), ("run", ["run", R, "--by-stack"]),
    ("run", ["run", R, "--placements=2"]), ("run", ["run", R, "--capacity=2GiB"]),
    ("run", ["run", os.path.join(X, "cnn-batch-24.pickle.gz"), "--capacity=310MiB"]),
    ("run", ["run", os.path.join(X, "xfmr-seq-64.pickle.gz")]),
    ("run-ranks", ["run", "--ranks", path("t", "data", "ranks")]),
    ("run-ranks", ["run", "--ranks", path("t", "data", "ranks"), "--capacity=1GiB"]),
    ("compare-ranks", ["compare", "--ranks", path("t", "data", "ranks")]),
    ("compare", ["compare", R]), ("compare", ["compare", G, "--capacity=15GiB"]),
    ("compare-two", ["compare", os.path.join(X, "xfmr-seq-64.pickle.gz"),
                     os.path.join(X, "xfmr-seq-128.pickle.gz")]),
    ("plan-ranks", ["plan", "--ranks", path("t", "data", "ranks"), "--gpus=L4,2GiB"]),
    ("plan", ["plan", R]), ("plan", ["plan", R, "--placements=2"]),
    ("plan", ["plan"] + AT + ["--value", "96"]), ("plan-scaled", ["plan"] + AT),
    ("tune-ranks", ["tune", "--ranks", path("t", "data", "ranks", "hand")]),
    ("tune", ["tune", G]), ("tune", ["tune", R, "--capacity=3GiB"]),
    ("tune-rmm", ["tune", path("traces", "synth-rmm-streams.csv"), "--capacity=16GiB"]),
    ("tune-rmm", ["tune", path("traces", "synth-rmm-streams.csv")]),
    ("check", ["check", R, "--max-fragmentation=0.5"]),
    ("check", ["check", R, "--max-fragmentation=0.01"]),
    ("check", ["check", R, "--must-be-complete"]),
    ("info", ["info", R]), ("info", ["info", os.path.join(X, "xfmr-seq-64.pickle.gz")]),
    ("info-ranks", ["info", "--ranks", path("t", "data", "ranks")]),
    ("share", ["share", "--job", R, "--job", R, "--gpu=H200"]),
    ("scale", ["scale"] + AT + ["--value", "96"]), ("scale", ["scale"] + AT),
    ("policies", ["policies"]),
    ("oom", ["oom", path("t", "data", "jaxjobs", "jax-jit.log")]),
    ("oom", ["oom", path("t", "data", "oomlogs", "torch-frag.log")]),
    ("oom", ["oom", path("t", "data", "oomlogs", "torch1x-shaped.log")]),
]


GPU_ONLY = {"replay", "replay-share"}  # checked on the GPU machine (gpu_oom.py)


def test_every_command_is_documented():
    assert set(s for s, _ in CASES) | GPU_ONLY == set(DOC)


@pytest.mark.parametrize("section,args", CASES, ids=["%d-%s" % (i, "_".join(
    os.path.basename(a) for a in c[1][:4])) for i, c in enumerate(CASES)])
def test_output_matches_the_document(section, args):
    p = subprocess.run([gpumemsim._cli.binary()] + args + ["--format=json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode in (0, 1), p.stderr.decode()
    obj = json.loads(p.stdout)
    doc = DOC[section]
    names = [k for k, _, _ in doc]
    assert list(obj)[0] == "schema" and obj["schema"] == 1
    undocumented = [k for k in obj if k not in names]
    assert not undocumented, "keys not in doc/JSON.md's %s: %s" % (section, undocumented)
    always = [k for k, _, a in doc if a]
    assert [k for k in obj if k in always] == always, "the always-keys, in order"
    for k, types, _ in doc:
        if k in obj:
            assert any(TYPES[t](obj[k]) for t in types), "%s: %r is not %s" % (
                k, obj[k], " or ".join(types))
