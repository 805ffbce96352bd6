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

# Check that Python reads each one back.
for name in ("cycle", "dag", "deep", "wide"):
    with open(f"{out}/{name}.pickle", "rb") as f:
        pickle.load(f)
print("ok")
