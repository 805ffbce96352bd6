# Make the hostile pickles of t/data/hostile (python3 hostile.py OUTDIR):
# snapshots that are valid pickles, as Python's own pickle module writes and
# reads them, whose allocator_settings no real snapshot could hold.  Each
# must be refused with exit 3, quickly and in bounded memory (t/cli-hostile.sh).
import pickle, sys

out = sys.argv[1]

def snapshot(settings):
    entry = {"action": "alloc", "addr": 139637976727552, "size": 512,
             "stream": 0, "time_us": 1, "frames": []}
    return {"segments": [], "device_traces": [[entry]],
            "allocator_settings": settings}

def dump(name, obj):
    with open(f"{out}/{name}.pickle", "wb") as f:
        pickle.dump(obj, f, protocol=4)

# A dict that holds itself.
d = {}
d["s"] = d
dump("cycle", snapshot(d))

# Lists nested 200,000 deep.  Python's pickler recurses too deep to write
# them, so the bytes are built by hand: n EMPTY_LISTs, then n APPENDs, each
# putting the list on top into the one below it.
def deep(n):
    body = bytearray(b"\x80\x04}(")
    def s(x):
        b = x.encode()
        return b"\x8c" + bytes([len(b)]) + b
    body += s("segments") + b"]" + s("device_traces") + b"]]"
    body += b"}(" + s("action") + s("alloc") + s("addr") + b"\x8a\x06\x00\x00\x00\x00\x00\x7f"
    body += s("size") + b"M\x00\x02" + s("stream") + b"K\x00" + s("frames") + b"]u" + b"aa"
    body += s("allocator_settings") + b"]"
    # n nested lists: push n lists, then APPEND each into the one below
    body += b"]" * n + b"a" * n
    body += b"u."
    return bytes(body)
with open(f"{out}/deep.pickle", "wb") as f:
    f.write(deep(200000))

# Forty lists, each holding the one before twice: 2^40 leaves.
x = []
for _ in range(40):
    x = [x, x]
dump("dag", snapshot(x))

# Twenty-five such levels: shallow enough, but 2^25 values unfolded.
x = []
for _ in range(25):
    x = [x, x]
dump("wide", snapshot(x))

# Issue 27: reference bombs.  A pickle names one object from many places
# through its memo; each of these is small on disk and huge unfolded.
import gzip
def dumpgz(name, obj):
    with gzip.open(f"{out}/{name}.pickle.gz", "wb", 9) as f:
        pickle.dump(obj, f, protocol=4)

BASE = 0x7f0000000000
def seg(blocks, addr=BASE):
    return {"device": 0, "address": addr, "total_size": 2 << 20, "allocated_size": 0,
            "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "small",
            "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
            "blocks": blocks}
def alloc(addr, frames, t=1):
    return {"action": "alloc", "addr": addr, "size": 512, "stream": 0, "time_us": t,
            "frames": frames}
def free(addr, frames, t=2):
    return {"action": "free_completed", "addr": addr, "size": 512, "stream": 0,
            "time_us": t, "frames": frames}

# 2000 segments that are one dict, whose blocks are one list of one block
# named 2000 times: 4 million blocks from 8 KB.
blk = {"address": BASE, "size": 512, "requested_size": 512, "state": "active_allocated",
       "frames": []}
dump("shared-blocks", {"segments": [seg([blk] * 2000)] * 2000,
                       "device_traces": [[alloc(BASE - (1 << 30), [])]],
                       "allocator_settings": {}})

# Four thousand device traces that are one list of 2000 entries.
tr = [alloc(BASE + 512 * i, []) for i in range(2000)]
dump("shared-traces", {"segments": [], "device_traces": [tr] * 4000,
                       "allocator_settings": {}})

# Trace entries with 20,003 keys, one dict named 20,000 times.
big = {f"k{i}": i for i in range(20000)}
big.update({"action": "free_requested", "addr": 0, "size": 0})
dumpgz("wide-entries", {"segments": [], "device_traces": [[big] * 20000],
                        "allocator_settings": {}})

# What PyTorch itself shares: one frames list for every entry with the same
# stack.  20,000 allocs and frees, each its own dict, share one list of
# 20,000 frames of its plumbing (so the site search reads them all): read,
# in time in proportion to the file, not 400 million frames.
fr = {"filename": "/usr/lib/python3/dist-packages/torch/nn/functional.py", "line": 1,
      "name": "linear"}
frames = [fr] * 20000
dumpgz("shared-frames", {"segments": [],
                         "device_traces": [[e for _ in range(10000)
                                            for e in (alloc(BASE, frames), free(BASE, frames))]],
                         "allocator_settings": {}})
# ... and what it never shares: the same two entry dicts named 10,000 times
# each (an entry is read once, as the file streams: refused).
dumpgz("shared-entries", {"segments": [],
                          "device_traces": [[alloc(BASE, frames), free(BASE, frames)] * 10000],
                          "allocator_settings": {}})

# 20,000 frames, each its own dict, naming one 65,539-byte path of plumbing:
# read once, not once a frame.  Its length (past the pickle reader's 64 KiB
# arena chunks, and odd) once made the arena hand out memory past its end.
long_path = "/usr/lib/python3/dist-packages/torch/nn/functional.py/" + \
    "x" * (65539 - 58) + "q.py"
assert len(long_path) == 65539
frames = [{"filename": long_path, "line": i + 1, "name": "f"} for i in range(20000)]
frames.append({"filename": "train.py", "line": 7, "name": "step"})
dumpgz("long-path", {"segments": [], "device_traces": [[alloc(BASE, frames), free(BASE, [])]],
                     "allocator_settings": {}})

# A trace entry that sets "size" twice: Python keeps the last (1024), a
# first-wins reader the first (512).  Python's pickler cannot write one: the
# bytes are patched from a key of the same length.
raw = pickle.dumps({"segments": [], "device_traces": [[
    {"action": "alloc", "addr": BASE, "size": 512, "stream": 0, "time_us": 1, "frames": [],
     "sizX": 1024}]], "allocator_settings": {}}, protocol=4)
assert raw.count(b"sizX") == 1
with open(f"{out}/dup-key.pickle", "wb") as f:
    f.write(raw.replace(b"sizX", b"size"))

# ... and a segment that sets "total_size" twice (not an entry: the key
# check that runs once the whole pickle is read).
raw = pickle.dumps({"segments": [dict(seg([]), total_siXe=4 << 20)], "device_traces": [[
    alloc(BASE, [])]], "allocator_settings": {}}, protocol=4)
assert raw.count(b"total_siXe") == 1
with open(f"{out}/dup-key-segment.pickle", "wb") as f:
    f.write(raw.replace(b"total_siXe", b"total_size"))

# A snapshot whose 6000 entries stream in batches (their memo pages packed
# behind them); before the last batch, a BINPUT far back, into the first
# page, of the string allocator_settings names at the end; the last batch's
# entries name their action through that page too ("alloc", memo index 1).
import struct
def s_(x):
    b = x.encode()
    return b"\x8c" + bytes([len(b)]) + b
body = bytearray(b"\x80\x04}(" + s_("segments") + b"]" + s_("device_traces") + b"](]")
for batch in range(6):
    if batch == 5:
        body.extend(s_("expandable_segments:True") + b"r" + struct.pack("<I", 5) + b"0")
    body.extend(b"(")
    for i in range(1000):
        n = batch * 1000 + i
        body.extend(b"}\x94(" + s_("action"))
        body.extend(s_("alloc") + b"\x94" if n == 0 else b"h\x01")
        body.extend(s_("addr") + b"\x8a\x08" + struct.pack("<q", 0x7f0000000000 + 512 * n) +
                    s_("size") + b"M" + struct.pack("<H", 512) + s_("frames") + b"]\x94u")
    body.extend(b"e")
body.extend(b"e")
body.extend(s_("allocator_settings") + b"}(" + s_("PYTORCH_CUDA_ALLOC_CONF") + b"j" +
            struct.pack("<I", 5) + b"u" + b"u.")
with open(f"{out}/memo-far-back.pickle", "wb") as f:
    f.write(body)

# Two sites, each with an escape character in its file name: shown with '?'
# (never echoed), and two sites still, not one (printable copies of sites
# share one buffer, so they are not the reader's kept strings).
def alloc_at(n, filename):
    return {"action": "alloc", "addr": 0x7f0000000000 + 4096 * n, "size": 4096,
            "stream": 0, "time_us": n + 1,
            "frames": [{"filename": filename, "line": n + 1, "name": "f%d" % n}]}
dump("ctrl-sites", {"segments": [], "device_traces": [[
    alloc_at(0, "a\x1b[31mred.py"), alloc_at(1, "b\x1b[34mblue.py"),
    alloc_at(2, "a\x1b[31mred.py")]]})

# Check that Python reads each one back.
for name in ("cycle", "dag", "deep", "wide", "shared-blocks", "shared-traces", "dup-key",
             "dup-key-segment", "ctrl-sites"):
    with open(f"{out}/{name}.pickle", "rb") as f:
        pickle.load(f)
for name in ("wide-entries", "shared-frames", "shared-entries", "long-path"):
    with gzip.open(f"{out}/{name}.pickle.gz", "rb") as f:
        pickle.load(f)
with open(f"{out}/dup-key.pickle", "rb") as f:
    assert pickle.load(f)["device_traces"][0][0]["size"] == 1024
with open(f"{out}/memo-far-back.pickle", "rb") as f:
    far = pickle.load(f)
    assert len(far["device_traces"][0]) == 6000
    assert far["allocator_settings"]["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True"
print("ok")
