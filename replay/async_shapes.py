#!/usr/bin/env python3
"""async_shapes.py DIR - the RMM logs async_probe measured (t/data/rmm/async/,
results in its h200.txt): how a cudaMallocAsync pool grows (small and large
requests, no frees), reuses (the same size freed and asked again, on one
stream and across two), and holds varied jobs: random-1 on one stream, fresh
random logs (t/data/gen/rmm-random.py, seeds 11 to 13, 4000 rows) and the
bundled ResNet-50 training trace as an RMM log."""
import os, sys

d = sys.argv[1]
os.makedirs(d, exist_ok=True)

def log(name, rows):
    with open(os.path.join(d, name + ".csv"), "w") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n")
        for i, (a, p, s, st) in enumerate(rows):
            f.write("1,%.6f,%s,%s,%d,%s\n" % (i / 1e6, a, hex(p), s, st))

P = 0x7f0000000000
# growth: 1000 small, then 40 of 3 MiB, then sizes 1..64 MiB
log("grow-small", [("allocate", P + i * 4096, 1000, "0x0") for i in range(1000)])
log("grow-3mib", [("allocate", P + i * (8 << 20), 3 << 20, "0x0") for i in range(40)])
log("grow-mixed", [("allocate", P + i * (128 << 20), (i + 1) << 20, "0x0") for i in range(64)])
# sizes that straddle granules
log("grow-odd", [("allocate", P + i * (64 << 20), s, "0x0")
                 for i, s in enumerate([1, 511, 513, 2 << 20, (2 << 20) + 1, 31 << 20,
                                        (32 << 20) + 1, 100 << 20, 3000, 6 << 20])])
# reuse: one stream, then across two streams
rows = []
for i in range(20):
    rows += [("allocate", P, 10 << 20, "0x0"), ("free", P, 10 << 20, "0x0")]
log("reuse-one", rows)
rows = []
for i in range(20):
    rows += [("allocate", P, 10 << 20, "0x5"), ("free", P, 10 << 20, "0x5"),
             ("allocate", P + 1, 10 << 20, "0x7"), ("free", P + 1, 10 << 20, "0x7")]
log("reuse-two", rows)
# fragmentation: 100 x 4 MiB, every other freed, then 8 MiB requests
rows = [("allocate", P + i * (16 << 20), 4 << 20, "0x0") for i in range(100)]
rows += [("free", P + i * (16 << 20), 4 << 20, "0x0") for i in range(0, 100, 2)]
rows += [("allocate", P + (1 << 40) + i * (16 << 20), 8 << 20, "0x0") for i in range(20)]
log("holes", rows)
# varied jobs
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
rnd = os.path.join(top, "t", "data", "gen", "rmm-random.py")
for seed in (11, 12, 13):
    os.system("%s %s %d 4000 > %s" % (sys.executable, rnd, seed,
                                      os.path.join(d, "random-%d.csv" % seed)))
with open(os.path.join(top, "t", "data", "rmm", "random-1.csv")) as f:
    lines = f.read().splitlines()
with open(os.path.join(d, "random-1-one.csv"), "w") as f:
    f.write(lines[0] + "\n")
    for l in lines[1:]:
        f.write(",".join(l.split(",")[:5] + ["0x0"]) + "\n")
import json
ev = json.load(open(os.path.join(top, "traces", "resnet50-train-b32.json")))["events"]
rows, sizes = [], {}
for e in ev:
    if e["op"] == "alloc":
        sizes[e["id"]] = e["size"]
        rows.append(("allocate", 0x10000 + e["id"] * 16, e["size"], hex(e.get("stream", 0))))
    elif e["op"] == "free" and e["id"] in sizes:
        rows.append(("free", 0x10000 + e["id"] * 16, sizes.pop(e["id"]), hex(e.get("stream", 0))))
log("resnet50", rows)
