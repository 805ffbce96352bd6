"""nogpu_events.py OUT NAME - a real run's allocator events (nogpu_oom.py's
OUT/NAME.real.pickle.gz) compacted to OUT/NAME.events.json.gz: one
[action, address, size, stream, the job's first frame] per event, small
enough to bring back from the GPU machine and align with the recording of
the same job (nogpu_align.py)."""
import gzip
import json
import os
import pickle
import sys


def user_frame(frames):
    for f in frames or ():
        name = f.get("filename", "")
        if "site-packages" not in name and "dist-packages" not in name and "/torch/" not in name \
                and name.endswith(".py"):
            return "%s:%d %s" % (os.path.basename(name), f["line"], f["name"])
    return None


def compact(snap):
    return [[e["action"], e.get("addr"), e.get("size"), e.get("stream"), user_frame(e.get("frames"))]
            for e in snap["device_traces"][0]]


if __name__ == "__main__":
    out, name = sys.argv[1], sys.argv[2]
    snap = pickle.load(gzip.open(os.path.join(out, name + ".real.pickle.gz")))
    with gzip.open(os.path.join(out, name + ".events.json.gz"), "wt") as f:
        json.dump(compact(snap), f)
