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
