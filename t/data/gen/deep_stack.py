# Make t/data/stacks/deep.pickle.gz (python3 deep_stack.py OUTDIR): a snapshot
# whose one allocation was made 300 Python frames deep (a recursion):
# f0.py:1 f0 innermost ... f299.py:300 f299 outermost.  A stack keeps 256
# frames at most, the innermost 128 and the outermost 128 with
# "(frames left out)" between (t/cli-stacks.sh).
import gzip, pickle, sys

out = sys.argv[1]
frames = [{"filename": f"f{i}.py", "line": i + 1, "name": f"f{i}"} for i in range(300)]
addr = 139637976727552
entry = {"action": "alloc", "addr": addr, "size": 1024, "stream": 0, "time_us": 1,
         "frames": frames}
snap = {"segments": [{"address": addr, "total_size": 2097152, "stream": 0,
                      "segment_type": "small", "allocated_size": 1024, "active_size": 1024,
                      "blocks": [{"address": addr, "size": 1024, "requested_size": 1024,
                                  "state": "active_allocated", "frames": frames},
                                 {"address": addr + 1024, "size": 2097152 - 1024,
                                  "state": "inactive", "frames": []}]}],
        "device_traces": [[{"action": "segment_alloc", "addr": addr, "size": 2097152,
                            "stream": 0, "time_us": 0, "frames": []}, entry]]}
with gzip.open(f"{out}/deep.pickle.gz", "wb", 9) as f:
    pickle.dump(snap, f, protocol=4)
