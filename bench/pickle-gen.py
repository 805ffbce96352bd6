#!/usr/bin/env python3
# bench/pickle-gen.py - write a PyTorch memory snapshot of about MB megabytes
# made of copies of a real one recorded on the H200 with C++ and Python
# frames (t/data/users/kineto-whole.pickle.gz), shared as PyTorch's pickler
# shares it: each copy's entries are new dicts, each with a new "N/A", and
# new frames lists, one for each list of the recording (an alloc and its free
# name one list); the frame dicts and the key strings are written once and
# named through the memo after.  Each copy lies in its own address range and
# later in time, and begins by freeing what the copy before left allocated
# (a long job's live memory stays bounded).  The dump's segments are the last
# copy's.  Written as it
# goes (a 10 GB file in little memory): one copy is encoded once and patched
# for the others.
#   bench/pickle-gen.py MB OUT
import gzip
import pickle
import pickletools
import struct
import sys

mb, out = int(sys.argv[1]), sys.argv[2]
snap = pickle.load(gzip.open("t/data/users/kineto-whole.pickle.gz"))
trace = snap["device_traces"][0]
lo = min(s["address"] for s in snap["segments"])
hi = max(s["address"] + s["total_size"] for s in snap["segments"])
for e in trace:
    if e["action"] in ("segment_alloc", "segment_map"):
        lo, hi = min(lo, e["addr"]), max(hi, e["addr"] + e["size"])
span_a = (hi - lo + (1 << 30)) >> 30 << 30
ts = [e["time_us"] for e in trace]
span_t = max(ts) - min(ts) + 1000
# What the recording leaves allocated at its end: each copy after the first
# frees the copy before's first, as a long job keeps its live memory bounded
# (shifted back a copy here; copy() shifts every entry forward k copies).
live = {}
for e in trace:
    if e["action"] == "alloc":
        live[e["addr"]] = e
    elif e["action"] == "free_completed":
        live.pop(e["addr"], None)
release = [{"action": "free_completed", "addr": e["addr"] - span_a, "size": e["size"],
            "stream": e["stream"], "time_us": min(ts) - 1, "compile_context": "N/A",
            "user_metadata": "", "frames": []} for e in live.values()]


class Enc:
    """Protocol 4 opcodes into a bytearray; the memo is counted, not kept."""

    def __init__(self, memo):
        self.b = bytearray()
        self.memo = memo          # the next memo index
        self.strs = {}            # string -> memo index
        self.frames = {}          # frame dict's items -> memo index

    def memoize(self):
        self.b += b"\x94"
        self.memo += 1
        return self.memo - 1

    def get(self, idx):
        self.b += b"j" + struct.pack("<I", idx)

    def fresh_str(self, s):
        raw = s.encode()
        self.b += (b"\x8c" + bytes([len(raw)]) if len(raw) < 256 else
                   b"X" + struct.pack("<I", len(raw))) + raw
        return self.memoize()

    def str(self, s):
        if s in self.strs:
            self.get(self.strs[s])
        else:
            self.strs[s] = self.fresh_str(s)

    def int8(self, v):
        """An int as LONG1 of 8 bytes: its place patched copy by copy."""
        self.b += b"\x8a\x08"
        at = len(self.b)
        self.b += struct.pack("<q", v)
        return at

    def value(self, v):
        if v is None:
            self.b += b"N"
        elif v is True or v is False:
            self.b += b"\x88" if v else b"\x89"
        elif isinstance(v, int):
            if 0 <= v < 256:
                self.b += b"K" + bytes([v])
            elif -(1 << 31) <= v < (1 << 31):
                self.b += b"J" + struct.pack("<i", v)
            else:
                raw = pickle.encode_long(v)
                self.b += b"\x8a" + bytes([len(raw)]) + raw
        elif isinstance(v, float):
            self.b += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            self.str(v)
        elif isinstance(v, dict):
            self.dict(v)
        elif isinstance(v, (list, tuple)):
            self.b += b"]"
            self.memoize()
            if v:
                self.b += b"("
                for x in v:
                    self.value(x)
                self.b += b"e"
        else:
            raise TypeError(type(v))

    def dict(self, d):
        """A new dict, memoized: its memo index."""
        self.b += b"}"
        idx = self.memoize()
        if d:
            self.b += b"("
            for k, x in d.items():
                self.str(k)
                self.value(x)
            self.b += b"u"
        return idx

    def frame(self, f):
        key = tuple(f.items())
        if key in self.frames:
            self.get(self.frames[key])
        else:
            self.frames[key] = self.dict(f)

    def copy(self, k):
        """Copy k of the trace as one APPENDS batch: where its patched fields lie."""
        addrs, times, refs, lists = [], [], [], {}
        self.b += b"("
        for e in (release if k > 0 else []) + trace:
            self.b += b"}"
            self.memoize()
            self.b += b"("
            for key, v in e.items():
                self.str(key)
                if key == "addr":
                    addrs.append(self.int8(v + k * span_a))
                elif key == "time_us":
                    times.append(self.int8(v + k * span_t))
                elif key == "compile_context":
                    self.fresh_str(v)
                elif key == "frames":
                    if id(v) in lists:
                        self.b += b"j"
                        refs.append(len(self.b))
                        self.b += struct.pack("<I", lists[id(v)])
                    else:
                        self.b += b"]"
                        lists[id(v)] = self.memoize()
                        if v:
                            self.b += b"("
                            for f in v:
                                self.frame(f)
                            self.b += b"e"
                else:
                    self.value(v)
            self.b += b"u"
        self.b += b"e"
        return addrs, times, refs


# The dump: the last copy's segments, at protocol 2 (its memo indices from 0).
one = len(pickle.dumps(snap, protocol=4))
copies = max(1, mb * 1000000 // one)
last = copies - 1
segs = []
for s in snap["segments"]:
    t = dict(s, address=s["address"] + last * span_a)
    t["blocks"] = [dict(b, address=b["address"] + last * span_a) for b in s["blocks"]]
    segs.append(t)
dump = pickle.dumps(segs, protocol=2)[2:-1]
nmemo = 1 + max([a for op, a, _ in pickletools.genops(dump + b".")
                 if op.name in ("BINPUT", "LONG_BINPUT")] + [-1])

enc = Enc(nmemo)
enc.b += b"\x80\x04}(" + b"\x8c\x08segments" + dump
enc.str("device_traces")
enc.b += b"]"
enc.memoize()
enc.b += b"(]"
enc.memoize()
n = 0
with open(out, "wb") as f:
    # copy 0 writes the frame dicts and strings; copy 1 is the pattern of the rest
    enc.copy(0)
    f.write(enc.b)
    enc.b = bytearray()
    base = enc.memo
    addrs, times, refs = enc.copy(1)
    per = enc.memo - base
    tmpl = bytes(enc.b)
    a0 = [struct.unpack_from("<q", tmpl, o)[0] for o in addrs]
    t0 = [struct.unpack_from("<q", tmpl, o)[0] for o in times]
    r0 = [struct.unpack_from("<I", tmpl, o)[0] for o in refs]
    for k in range(1, copies):
        b = bytearray(tmpl)
        da, dt, dr = (k - 1) * span_a, (k - 1) * span_t, (k - 1) * per
        for o, v in zip(addrs, a0):
            struct.pack_into("<q", b, o, v + da)
        for o, v in zip(times, t0):
            struct.pack_into("<q", b, o, v + dt)
        for o, v in zip(refs, r0):
            struct.pack_into("<I", b, o, v + dr)
        f.write(b)
    enc.b = bytearray(b"e")          # device_traces' items
    enc.memo = base + (copies - 1) * per
    for key in ("allocator_settings", "external_annotations"):
        if key in snap:
            enc.str(key)
            enc.value(snap[key])
    enc.b += b"u."
    f.write(enc.b)
print("copies", copies, "entries", copies * len(trace) + (copies - 1) * len(release))
