# Make the snapshot-shape fixtures of t/data/shapes (python3 shapes.py OUTDIR):
# pickles of the shapes PyTorch's snapshots take across versions, small
# enough to work their numbers by hand (t/cli-snapshots.sh holds them).
import pickle, sys

out = sys.argv[1]
BASE = 0x7F0000000000          # 139637976727552
MiB = 1 << 20

def py(file, line, name):
    return {"filename": file, "line": line, "name": name}

def cpp(name, file="??"):
    return {"filename": file, "line": 2**64 - 1, "name": name}

def dump(name, obj, protocol=4):
    with open(f"{out}/{name}.pickle", "wb") as f:
        pickle.dump(obj, f, protocol=protocol)

# 1. PyTorch 2.0: blocks without "address", their request and frames in
# "history"; the trace holds only a "snapshot" entry.  One 20 MiB segment:
# [4 MiB active (4000000 asked) | 2 MiB free | 8 MiB active (8000000) | 6 MiB free]
v20_blocks = [
    {"size": 4 * MiB, "state": "active_allocated",
     "history": [{"addr": BASE, "real_size": 4000000, "frames": [py("model.py", 10, "forward")]}]},
    {"size": 2 * MiB, "state": "inactive", "history": []},
    {"size": 8 * MiB, "state": "active_allocated",
     "history": [{"addr": BASE + 6 * MiB, "real_size": 8000000,
                  "frames": [py("model.py", 20, "forward")]}]},
    {"size": 6 * MiB, "state": "inactive", "history": []},
]
v20_seg = {"device": 0, "address": BASE, "total_size": 20 * MiB, "allocated_size": 12 * MiB,
           "active_size": 12 * MiB, "stream": 0, "segment_type": "large", "blocks": v20_blocks}
dump("v20", {"segments": [v20_seg],
             "device_traces": [[{"action": "snapshot", "addr": 0, "size": 0, "stream": 0}]]})

# 2. The legacy bare list of segments (torch.cuda.memory_snapshot()).
dump("legacy", [v20_seg], protocol=2)

# 3. Default _record_memory_history(): C++ frames (line 2^64 - 1, a 9-byte
# LONG1) around the Python ones, protocol 5.  Allocation 1 comes from
# train.py; allocation 2 from the backward thread: C++ frames only.
unwind = [cpp("torch::unwind::unwind()"), cpp("torch::CapturedTraceback::gather(bool, bool, bool)"),
          cpp("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)"),
          cpp("at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*)"),
          cpp("at::_ops::empty_memory_format::call(...)")]
fwd = unwind + [py("/usr/lib/python3/site-packages/torch/nn/functional.py", 2500, "linear"),
                py("/home/u/train.py", 42, "forward"), cpp("_PyEval_EvalFrameDefault")]
bwd = unwind + [cpp("at::native::mm_out_cuda(at::Tensor const&, at::Tensor const&)",
                    "aten/src/ATen/native/cuda/Blas.cpp"),
                cpp("torch::autograd::generated::MmBackward0::apply(...)"),
                cpp("torch::autograd::Engine::evaluate_function(...)")]
seg = {"device": 0, "address": BASE, "total_size": 2 * MiB, "stream": 0, "segment_type": "small",
       "blocks": [{"address": BASE, "size": 2 * MiB, "requested_size": 0, "state": "inactive",
                   "frames": []}]}
# Allocation 3: C++ frames only and no autograd node (cuBLAS's workspace).
blas = unwind + [cpp("at::cuda::getCurrentCUDABlasHandle()", "CublasHandlePool.cpp"),
                 cpp("at::native::(anonymous namespace)::addmm_out_cuda_impl(at::Tensor&)")]
trace = [
    {"action": "segment_alloc", "addr": BASE, "size": 2 * MiB, "stream": 0, "frames": fwd, "time_us": 1},
    {"action": "alloc", "addr": BASE, "size": 1024, "stream": 0, "frames": fwd, "time_us": 2},
    {"action": "alloc", "addr": BASE + 1024, "size": 2048, "stream": 0, "frames": bwd, "time_us": 3},
    {"action": "free_completed", "addr": BASE, "size": 1024, "stream": 0, "frames": fwd, "time_us": 4},
    {"action": "free_completed", "addr": BASE + 1024, "size": 2048, "stream": 0, "frames": bwd, "time_us": 5},
    {"action": "alloc", "addr": BASE, "size": 4096, "stream": 0, "frames": blas, "time_us": 6},
    {"action": "free_completed", "addr": BASE, "size": 4096, "stream": 0, "frames": blas, "time_us": 7},
    # Allocation 4: a Python frame whose line is 0 (not known): no ":0" shown.
    {"action": "alloc", "addr": BASE, "size": 512, "stream": 0,
     "frames": unwind + [py("gen.py", 0, "<module>")], "time_us": 8},
    {"action": "free_completed", "addr": BASE, "size": 512, "stream": 0, "frames": [], "time_us": 9},
]
dump("stacks", {"segments": [seg], "device_traces": [trace],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""}}, protocol=5)

# 4. Recording started mid-run: a 20 MiB segment reserved earlier that the
# trace never touches, holding one live 3 MiB block (3000000 asked); the
# trace reserves a 2 MiB segment and allocates and frees in it.
old = {"device": 0, "address": BASE + 64 * MiB, "total_size": 20 * MiB, "stream": 0,
       "segment_type": "large", "blocks": [
           {"address": BASE + 64 * MiB, "size": 3 * MiB, "requested_size": 3000000,
            "state": "active_allocated", "frames": [py("load.py", 7, "load_weights")]},
           {"address": BASE + 67 * MiB, "size": 17 * MiB, "requested_size": 0, "state": "inactive",
            "frames": []}]}
trace = [
    {"action": "segment_alloc", "addr": BASE, "size": 2 * MiB, "stream": 0, "frames": [], "time_us": 1},
    {"action": "alloc", "addr": BASE, "size": 5000, "stream": 0, "frames": [py("step.py", 3, "step")], "time_us": 2},
    {"action": "free_completed", "addr": BASE, "size": 5000, "stream": 0, "frames": [], "time_us": 3},
]
dump("midrun", {"segments": [seg, old], "device_traces": [trace]})

# 4b. An OOM retry: the allocator releases a cached segment and reserves a
# larger one right after: not an empty_cache.
trace = [
    {"action": "segment_alloc", "addr": BASE, "size": 20 * MiB, "stream": 0, "frames": [], "time_us": 1},
    {"action": "alloc", "addr": BASE, "size": 20 * MiB, "stream": 0, "frames": [], "time_us": 2},
    {"action": "free_completed", "addr": BASE, "size": 20 * MiB, "stream": 0, "frames": [], "time_us": 3},
    {"action": "segment_free", "addr": BASE, "size": 20 * MiB, "stream": 0, "frames": [], "time_us": 4},
    {"action": "segment_alloc", "addr": BASE + 64 * MiB, "size": 40 * MiB, "stream": 0, "frames": [], "time_us": 5},
    {"action": "alloc", "addr": BASE + 64 * MiB, "size": 40 * MiB, "stream": 0, "frames": [], "time_us": 6},
]
dump("retry", {"segments": [{"device": 0, "address": BASE + 64 * MiB, "total_size": 40 * MiB,
    "stream": 0, "segment_type": "large", "blocks": [{"address": BASE + 64 * MiB, "size": 40 * MiB,
    "requested_size": 40 * MiB, "state": "active_allocated", "frames": []}]}], "device_traces": [trace]})

# 5. No history at all (_record_memory_history was off): the live set only.
dump("nohistory", {"segments": [old], "device_traces": [[]]})

# 6. A PyTorch profiler (Kineto) Chrome trace with profile_memory=True: CPU
# events, a CPU [memory] event, device 0 with one event and device 1 with
# five (the busiest): 1024 B at A, 4096 B at B, A freed, 2048 B at C, B freed.
# Peak live 6144 B (B and C); PyTorch reserved one 2 MiB segment.
import json
def mem(ts, dev, addr, nbytes, total, reserved, devtype=1):
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1,
            "tid": 1, "ts": ts, "args": {"Device Type": devtype, "Device Id": dev,
            "Addr": addr, "Bytes": nbytes, "Total Allocated": total, "Total Reserved": reserved}}
A, B, C = BASE, BASE + 1024, BASE + 5120
events = [
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 1.0, "dur": 2.0,
     "args": {}},
    mem(1.5, 0, 12345, 64, 64, 0, devtype=0),
    mem(2.0, 0, BASE + 8 * MiB, 512, 512, 2 * MiB),
    mem(10.4, 1, A, 1024, 1024, 2 * MiB),
    mem(11.6, 1, B, 4096, 5120, 2 * MiB),
    mem(12.0, 1, A, -1024, 4096, 2 * MiB),
    mem(13.0, 1, C, 2048, 6144, 2 * MiB),
    mem(14.0, 1, B, -4096, 2048, 2 * MiB),
]
with open(f"{out}/kineto.json", "w") as f:
    json.dump({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320},
        {"id": 1, "name": "NVIDIA H200", "totalGlobalMem": 150109880320}],
        "traceEvents": events, "traceName": "kineto.json"}, f, indent=1)

for name in ("v20", "legacy", "stacks", "midrun", "nohistory", "retry"):
    with open(f"{out}/{name}.pickle", "rb") as f:
        pickle.load(f)
print("ok")
