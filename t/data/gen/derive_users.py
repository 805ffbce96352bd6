# Derive the fixtures of t/data/users that no single-GPU recording gives, from
# the real ones record_users.py made (run here, no GPU needed):
#   python3 derive_users.py t/data/users
# Each is a real snapshot with one thing changed, as other users' files have it:
#   api-settings       set-expandable with PYTORCH_CUDA_ALLOC_CONF empty: the
#                      settings were set from Python, only the parsed values say so
#   no-settings        emptycache-server without allocator_settings (PyTorch < 2.9)
#   dev1-only          graphs moved to device 1, device 0's trace holding only
#                      "snapshot" entries (an empty device 0 beside a busy one)
#   two-devices        graphs on device 0 and set-expandable on device 1
#   windows            set-roundup with every frame's file a Windows path
import copy, gzip, pickle, sys

d = sys.argv[1]


def load(name):
    with gzip.open(f"{d}/{name}.pickle.gz", "rb") as f:
        return pickle.load(f)


def save(name, s):
    with gzip.GzipFile(f"{d}/{name}.pickle.gz", "wb", mtime=0) as f:
        pickle.dump(s, f, protocol=4)


s = load("set-expandable")
s["allocator_settings"]["PYTORCH_CUDA_ALLOC_CONF"] = ""
save("api-settings", s)

s = load("emptycache-server")
del s["allocator_settings"]
save("no-settings", s)

g = load("graphs")
s = copy.deepcopy(g)
for seg in s["segments"]:
    seg["device"] = 1
s["device_traces"] = [[{"action": "snapshot", "addr": 0, "size": 0, "stream": 0}] * 3,
                      s["device_traces"][0]]
save("dev1-only", s)

e = load("set-expandable")
s = copy.deepcopy(g)
for seg in e["segments"]:
    seg["device"] = 1
s["segments"] += e["segments"]
s["device_traces"] = [g["device_traces"][0], e["device_traces"][0]]
save("two-devices", s)

s = load("set-roundup")
for tr in s["device_traces"]:
    for ent in tr:
        for fr in ent.get("frames", []):
            if fr["filename"].startswith("/"):
                fr["filename"] = "C:\\Users\\me" + fr["filename"].replace("/", "\\")
for seg in s["segments"]:
    for b in seg.get("blocks", []):
        for fr in b.get("frames", []):
            if fr["filename"].startswith("/"):
                fr["filename"] = "C:\\Users\\me" + fr["filename"].replace("/", "\\")
save("windows", s)

# graphs.pools.txt: how many of graphs' allocations went into each private pool,
# as Python reads the dump: a block inside a segment whose segment_pool_id is
# not (0, 0), allocated after that segment's last segment_alloc (the address
# may have held an ordinary segment before), counted per pool in dump order.
g = load("graphs")
tr = g["device_traces"][0]
segs = [(x["address"], x["total_size"], x["segment_pool_id"]) for x in g["segments"]
        if x["segment_pool_id"] != (0, 0)]
order = []
for _, _, p in segs:
    if p not in order:
        order.append(p)
last = {e["addr"]: i for i, e in enumerate(tr) if e["action"] == "segment_alloc"}
count = {p: 0 for p in order}
for i, e in enumerate(tr):
    if e["action"] == "alloc":
        for a, n, p in segs:
            if a <= e["addr"] < a + n and i >= last.get(a, 0):
                count[p] += 1
with open(f"{d}/graphs.pools.txt", "w") as f:
    f.write(" ".join(str(count[p]) for p in order) + "\n")

# limits.txt: "NAME LO HI" for the recordings that reached their limit, as
# Python reads each snapshot: at least the most ever reserved; below what was
# reserved before an OOM retry's releases plus the segment then reserved, and
# below what was reserved at the oom plus its request's segment (PyTorch's
# sizes: 2 MiB up to 1 MiB, 20 MiB below 10 MiB, else rounded to 2 MiB);
# under garbage collection (threshold T) a release bounds it by the larger of
# that and reserved / T.
def seg_of(n):
    n = (n + 511) // 512 * 512
    return 2 << 20 if n <= 1 << 20 else 20 << 20 if n < 10 << 20 else (n + (2 << 20) - 1) // (2 << 20) * (2 << 20)

with open(f"{d}/limits.txt", "w") as out:
    for name in ["lim-default-k4", "lim-gcsplit-k4", "oom-observer", "oom-except"]:
        s = load(name)
        t = s["allocator_settings"]["garbage_collection_threshold"]
        res = peak = 0
        hi = None
        before = None
        for e in s["device_traces"][0]:
            a = e["action"]
            b = None
            if a == "segment_alloc":
                if before is not None:
                    b = before + e["size"] - 1
                    if t > 0:
                        b = max(b, int(before / t))
                before = None
                res += e["size"]
                peak = max(peak, res)
            elif a == "segment_free":
                names = [f["name"] for f in e.get("frames", [])]
                asked = any("emptyCache" in x or x == "empty_cache" for x in names)
                if before is None and not asked:
                    before = res
                res -= e["size"]
            elif a == "oom":
                b = res + seg_of(e["size"]) - 1
                before = None
            else:
                before = None
            if b is not None:
                hi = b if hi is None else min(hi, b)
        out.write(f"{name} {peak} {hi}\n")
