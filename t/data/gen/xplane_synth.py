#!/usr/bin/env python3
# A hand-made profile of TensorFlow's shape, for what the JAX recordings do
# not have: tf_op and tensor_shape stats (the sites), two GPUs' allocators
# beside the pinned host one, string stats given by reference, events written
# out of time order across threads.  Device 0's events, in time order:
#   t=1us  alloc 262144 at BASE          conv1/Conv2D [32,64,64,1]   (line 2)
#   t=2us  alloc 131072 at BASE+262144   dense/MatMul                (line 1)
#   t=3us  free BASE                                                  (line 2)
#   t=4us  alloc 262144 at BASE          conv1/Conv2D [32,64,64,1]   (line 1)
#   t=5us  free BASE+262144                                           (line 2)
#   t=6us  free BASE                                                  (line 1)
# (bytes_allocated after each: 262144 393216 131072 393216 262144 0; limit
# 15000000000); device 1 allocates and frees 512 bytes; gpu_host_bfc one.
#   python3 xplane_synth.py OUT.xplane.pb
#   python3 xplane_synth.py --bench OUT.xplane.pb PAIRS OTHER   (bench/xplane.sh)
#   python3 xplane_synth.py --tf-function OUT.xplane.pb   (TensorFlow's, said by
#     a tf.function graph's name alone)
#   python3 xplane_synth.py --host-only OUT.xplane.pb   (the pinned host
#     allocator's events only)
#   python3 xplane_synth.py --window OUT.xplane.pb   (a window that began after
#     the allocator's peak: 8 allocations of 1 MiB, each event's
#     peak_bytes_in_use 402356992, as a public TensorFlow profile had)
#   python3 xplane_synth.py --whole-chunks OUT.xplane.pb   (a window begun
#     mid-run with 100 MiB in use, whose first request, 22151168 B, got a
#     free chunk of 28937472 made before it, whole, as seven public
#     TensorFlow profiles did; its peak is the window's)
import sys

from xplane_facts import enc_field

BASE = 0x7F0000000000
LIMIT = 15000000000
STATS = ["allocator_name", "addr", "requested_bytes", "allocation_bytes", "bytes_allocated",
         "bytes_available", "peak_bytes_in_use", "fragmentation", "tf_op", "tensor_shape",
         "GPU_0_bfc", "GPU_1_bfc", "gpu_host_bfc", "dense/MatMul", "memory_size",
         "gpu_device_name"]
SID = {n: 100 + i for i, n in enumerate(STATS)}
EV = {"MemoryAllocation": 1, "MemoryDeallocation": 2, "DeviceMemAllocator::Alloc": 3,
      "Conv2D": 4}
MORE_EV = {"__inference_train_step_12": 9}	# named only in --tf-function's profile


def stat(name, v):
    m = enc_field(1, 0, SID[name])
    if isinstance(v, str) and v in SID:
        return m + enc_field(7, 0, SID[v])	# a reference to a stat metadata name
    if isinstance(v, str):
        return m + enc_field(5, 2, v.encode())
    if isinstance(v, float):
        import struct
        return m + bytes([0x11]) + struct.pack("<d", v)
    return m + enc_field(3, 0, v)


def event(kind, off_ps, stats):
    b = enc_field(1, 0, {**EV, **MORE_EV}[kind]) + enc_field(2, 0, off_ps)
    for n, v in stats:
        b += enc_field(4, 2, stat(n, v))
    return b


def mem(kind, t_us, alloc, addr, req, chunk, in_use, op=None, shape=None, peak=393216):
    st = [("allocator_name", alloc), ("addr", addr), ("requested_bytes", req),
          ("allocation_bytes", chunk), ("bytes_allocated", in_use),
          ("bytes_available", LIMIT - in_use), ("peak_bytes_in_use", peak),
          ("fragmentation", 0.0)]
    if op:
        st.append(("tf_op", op))
    if shape:
        st.append(("tensor_shape", shape))
    return event(kind, t_us * 1000000, st)


def meta_entry(field, key, body):
    return enc_field(field, 2, enc_field(1, 0, key) + enc_field(2, 2, body))


def plane(name, lines, stats=b"", names=True, more=None):
    b = enc_field(1, 0, 1) + enc_field(2, 2, name.encode())
    b += b"".join(enc_field(3, 2, ln) for ln in lines)
    if names:
        for n, k in list(EV.items()) + list((more or {}).items()):
            b += meta_entry(4, k, enc_field(1, 0, k) + enc_field(2, 2, n.encode()))
        for n, k in SID.items():
            b += meta_entry(5, k, enc_field(1, 0, k) + enc_field(2, 2, n.encode()))
    return enc_field(1, 2, b + stats)


def line(lid, name, events):
    b = [enc_field(1, 0, lid), enc_field(2, 2, name.encode()), enc_field(3, 0, 1000)]
    b += [enc_field(4, 2, e) for e in events]
    return b"".join(b)


def bench(path, pairs, other):
    """A large profile for bench/xplane.sh: pairs alloc/free pairs of device 0
    over 8 threads' lines, with other non-memory events among them (a real
    profile's host plane is mostly Python and runtime events)."""
    lines, t, in_use, live = [[] for _ in range(8)], 0, 0, []
    per = max(1, other // max(1, pairs))
    for i in range(pairs):
        addr, size = BASE + (i % 4096) * 1048576, 1048576
        for k in range(per):
            lines[(i + k) % 8].append(event("Conv2D", t * 1000000 + k, []))
        if len(live) == 4096 or (live and i % 3 == 0):
            a = live.pop(0)
            in_use -= size
            lines[i % 8].append(mem("MemoryDeallocation", t, "GPU_0_bfc", a, size, size, in_use))
            t += 1
        if addr in live:
            continue
        in_use += size
        live.append(addr)
        lines[(i + 3) % 8].append(mem("MemoryAllocation", t, "GPU_0_bfc", addr, size, size, in_use,
                                      op="conv1/Conv2D", peak=1 << 40))
        t += 1
    with open(path, "wb") as f:
        f.write(plane("/host:CPU", [line(k + 1, "tf_Compute/%d" % k, evs)
                                    for k, evs in enumerate(lines)]))


def window(path):
    """A profile taken mid-run, after the job's peak: every event says the
    allocator once held 402356992 B in use, the window holds at most 8 MiB."""
    evs, in_use = [], 0
    for i in range(8):
        in_use += 1048576
        evs.append(mem("MemoryAllocation", i + 1, "GPU_0_bfc", BASE + i * 1048576, 1048576,
                       1048576, in_use, op="dense/MatMul", peak=402356992))
    for i in range(8):
        in_use -= 1048576
        evs.append(mem("MemoryDeallocation", i + 9, "GPU_0_bfc", BASE + i * 1048576, 1048576,
                       1048576, in_use, peak=402356992))
    with open(path, "wb") as f:
        f.write(plane("/host:CPU", [line(1, "tf_Compute/1", evs)]))


def whole_chunks(path):
    """A mid-run window: 100 MiB in use when it begins; 22151168 B asked and a
    free chunk of 28937472 handed out whole; then 4 MiB; both freed.  The
    allocator's lifetime peak is the window's own (no peak before it)."""
    live = 100 << 20
    top = live + 28937472 + (4 << 20)
    evs = [mem("MemoryAllocation", 1, "GPU_0_bfc", BASE, 22151168, 28937472, live + 28937472,
               op="conv2d_3/Conv2D", peak=top),
           mem("MemoryAllocation", 2, "GPU_0_bfc", BASE + (64 << 20), 4 << 20, 4 << 20, top,
               op="dense/MatMul", peak=top),
           mem("MemoryDeallocation", 3, "GPU_0_bfc", BASE, 22151168, 28937472, live + (4 << 20),
               peak=top),
           mem("MemoryDeallocation", 4, "GPU_0_bfc", BASE + (64 << 20), 4 << 20, 4 << 20, live,
               peak=top)]
    with open(path, "wb") as f:
        f.write(plane("/host:CPU", [line(1, "tf_Compute/1", evs)]))


def host_only(path):
    """Memory events of no GPU's allocator (the pinned host one's only), as a
    profile of a job with no GPU memory, or a TPU's host, has: named, not
    taken for a profile recorded without the host tracer."""
    evs = [mem("MemoryAllocation", 1, "gpu_host_bfc", 0x1000, 100, 256, 256, peak=256),
           mem("MemoryDeallocation", 2, "gpu_host_bfc", 0x1000, 100, 256, 0, peak=256)]
    with open(path, "wb") as f:
        f.write(plane("/host:CPU", [line(1, "tf_Compute/1", evs)]))


def tf_function(path):
    """A TensorFlow job's profile that says so only by its tf.function graph
    (an event named __inference_train_step_12), no jax_version, no jit_."""
    evs = [event("__inference_train_step_12", 500000, []),
           mem("MemoryAllocation", 1, "GPU_0_bfc", BASE, 1048576, 1048576, 1048576,
               op="dense/MatMul"),
           mem("MemoryDeallocation", 2, "GPU_0_bfc", BASE, 1048576, 1048576, 0)]
    with open(path, "wb") as f:
        f.write(plane("/host:CPU", [line(1, "tf_Compute/1", evs)],
                      more=MORE_EV))


if len(sys.argv) > 2 and sys.argv[1] == "--tf-function":
    tf_function(sys.argv[2])
    sys.exit(0)
if len(sys.argv) > 2 and sys.argv[1] == "--host-only":
    host_only(sys.argv[2])
    sys.exit(0)
if len(sys.argv) > 2 and sys.argv[1] == "--whole-chunks":
    whole_chunks(sys.argv[2])
    sys.exit(0)
if len(sys.argv) > 2 and sys.argv[1] == "--window":
    window(sys.argv[2])
    sys.exit(0)
if len(sys.argv) > 2 and sys.argv[1] == "--bench":
    bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    sys.exit(0)

# timestamp_ns 1000 on both lines: t_us below is after that microsecond
A = "MemoryAllocation"
F = "MemoryDeallocation"
line1 = line(1, "tf_Compute/1", [
    event("DeviceMemAllocator::Alloc", 500000, []),
    mem(A, 2, "GPU_0_bfc", BASE + 262144, 131072, 131072, 393216, op="dense/MatMul"),
    mem(A, 4, "GPU_0_bfc", BASE, 262144, 262144, 393216, op="conv1/Conv2D", shape="[32,64,64,1]"),
    event("Conv2D", 4500000, []),
    mem(F, 6, "GPU_0_bfc", BASE, 262144, 262144, 0),
    mem(A, 7, "gpu_host_bfc", 0x1000, 100, 256, 256, peak=256),
])
line2 = line(2, "tf_Compute/2", [
    mem(A, 1, "GPU_0_bfc", BASE, 262144, 262144, 262144, op="conv1/Conv2D", shape="[32,64,64,1]",
        peak=262144),
    mem(F, 3, "GPU_0_bfc", BASE, 262144, 262144, 131072),
    mem(F, 5, "GPU_0_bfc", BASE + 262144, 131072, 131072, 262144),
    mem(A, 8, "GPU_1_bfc", BASE + (1 << 40), 512, 512, 512, peak=512),
    mem(F, 9, "GPU_1_bfc", BASE + (1 << 40), 512, 512, 0, peak=512),
])
dev_stats = enc_field(6, 2, stat("memory_size", 16106127360)) + \
    enc_field(6, 2, stat("gpu_device_name", "Tesla T4"))
out = plane("/device:GPU:0", [], dev_stats) + plane("/host:CPU", [line1, line2])
with open(sys.argv[1], "wb") as f:
    f.write(out)
