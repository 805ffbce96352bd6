#!/usr/bin/env python3
# What a profiler's XSpace (.xplane.pb, gzip'd or not) holds of the BFC
# allocators' own trace, read here with a protobuf wire decoder of its own
# (no protobuf library, nothing shared with traces/xplane.c), so that the
# tests compare the C reader with a second reading of the same bytes:
#   python3 xplane_facts.py FILE [ALLOCATOR]      # the facts, as JSON
#   python3 xplane_facts.py --dump FILE [N]        # planes, lines, the first N events
#   python3 xplane_facts.py --shrink FILE OUT N     # the same shape, N memory events
# t/data/xplane/NAME.expect.json is the first's output for NAME.xplane.pb.gz.
# Facts: per allocator name, the MemoryAllocation/MemoryDeallocation events
# in time order (line timestamp_ns * 1000 + offset_ps, then as written),
# their count, the largest peak_bytes_in_use, the limit (bytes_allocated +
# bytes_available) and the first differences' inputs.
import gzip, json, sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of one message's bytes."""
    i, n = 0, len(b)
    while i < n:
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            ln, i = varint(b, i)
            v, i = b[i:i + ln], i + ln
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def metadata_map(entry):
    """A map<int64, X> entry: (key, value bytes)."""
    k, v = 0, b""
    for f, _, x in fields(entry):
        if f == 1:
            k = signed(x)
        elif f == 2:
            v = x
    return k, v


def name_of(meta):
    for f, _, x in fields(meta):
        if f == 2:
            return x.decode()
    return ""


def stat_value(stat, stat_names):
    import struct
    mid, val = 0, None
    for f, wt, x in fields(stat):
        if f == 1:
            mid = signed(x)
        elif f == 2:
            val = struct.unpack("<d", x)[0]
        elif f == 3:
            val = x
        elif f == 4:
            val = signed(x)
        elif f == 5:
            val = x.decode()
        elif f == 6:
            val = bytes(x)
        elif f == 7:
            val = stat_names.get(x, "")
    return mid, val


def planes(data):
    for f, _, x in fields(data):
        if f == 1:
            yield x


def read_plane(p):
    name, lines, ev_meta, st_meta = "", [], {}, {}
    for f, _, x in fields(p):
        if f == 2:
            name = x.decode()
        elif f == 3:
            lines.append(x)
        elif f == 4:
            k, v = metadata_map(x)
            ev_meta[k] = name_of(v)
        elif f == 5:
            k, v = metadata_map(x)
            st_meta[k] = name_of(v)
    return name, lines, ev_meta, st_meta


def line_events(line):
    ts, name, evs = 0, "", []
    for f, _, x in fields(line):
        if f == 3:
            ts = signed(x)
        elif f == 2:
            name = x.decode()
        elif f == 4:
            evs.append(x)
    return ts, name, evs


def event_fields(ev):
    mid, off, stats = 0, 0, []
    for f, _, x in fields(ev):
        if f == 1:
            mid = signed(x)
        elif f == 2:
            off = signed(x)
        elif f == 4:
            stats.append(x)
    return mid, off, stats


def memory_events(data):
    """Every MemoryAllocation/MemoryDeallocation of every plane, in time order."""
    out, seq = [], 0
    for p in planes(data):
        name, lines, ev_meta, st_meta = read_plane(p)
        for line in lines:
            ts, _, evs = line_events(line)
            for ev in evs:
                mid, off, stats = event_fields(ev)
                kind = ev_meta.get(mid)
                if kind not in ("MemoryAllocation", "MemoryDeallocation"):
                    continue
                st = {}
                for s in stats:
                    k, v = stat_value(s, st_meta)
                    st[st_meta.get(k, str(k))] = v
                out.append((ts * 1000 + off, seq, kind, st, name))
                seq += 1
    out.sort(key=lambda e: (e[0], e[1]))
    return out


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def facts(path, allocator="GPU_0_bfc"):
    evs = [e for e in memory_events(load(path)) if e[3].get("allocator_name") == allocator]
    allocs = [e for e in evs if e[2] == "MemoryAllocation"]
    f = {"allocator": allocator, "events": len(evs), "allocs": len(allocs),
         "frees": len(evs) - len(allocs)}
    if evs:
        f["peak_bytes_in_use"] = max(e[3].get("peak_bytes_in_use", 0) for e in evs)
        f["max_bytes_allocated"] = max(e[3].get("bytes_allocated", 0) for e in evs)
        f["limit"] = evs[0][3].get("bytes_allocated", 0) + evs[0][3].get("bytes_available", 0)
        f["final_bytes_allocated"] = evs[-1][3].get("bytes_allocated", 0)
        f["first"] = [evs[0][2], evs[0][3].get("allocation_bytes"), evs[0][3].get("bytes_allocated")]
        f["requested_total"] = sum(e[3].get("requested_bytes", 0) for e in allocs)
        f["chunk_total"] = sum(e[3].get("allocation_bytes", 0) for e in allocs)
        f["last_fragmentation"] = evs[-1][3].get("fragmentation")
    return f


def enc_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def enc_field(f, wt, v):
    if wt == 0:
        return enc_varint(f << 3) + enc_varint(v & ((1 << 64) - 1))
    return enc_varint(f << 3 | 2) + enc_varint(len(v)) + v


def shrink(src, dst, n):
    """A small profile of the same shape: the planes' names and metadata, the
    host plane's lines with their first n memory events (and the region
    events) and nothing else; the fuzzers' seeds."""
    out = b""
    for p in planes(load(src)):
        name, lines, ev_meta, st_meta = read_plane(p)
        keep_ev = {k for k, v in ev_meta.items() if v in
                   ("MemoryAllocation", "MemoryDeallocation", "DeviceMemAllocator::Alloc")}
        body, left = b"", n
        for f, wt, x in fields(p):
            if f == 3:
                if name != "/host:CPU":
                    continue
                line = b""
                for lf, lwt, lx in fields(x):
                    if lf == 4:
                        if event_fields(lx)[0] not in keep_ev or left <= 0:
                            continue
                        left -= 1
                    line += enc_field(lf, lwt, lx)
                body += enc_field(3, 2, line)
            elif f == 4:
                if metadata_map(x)[0] in keep_ev:
                    body += enc_field(f, wt, x)
            elif f == 5 or f == 2 or f == 6 or f == 1:
                body += enc_field(f, wt, x)
        out += enc_field(1, 2, body)
    with open(dst, "wb") as f:
        f.write(out)


def dump(path, n):
    data = load(path)
    for p in planes(data):
        name, lines, ev_meta, st_meta = read_plane(p)
        print("plane %r: %d lines, %d event names, %d stat names" %
              (name, len(lines), len(ev_meta), len(st_meta)))
        for line in lines[:40]:
            ts, lname, evs = line_events(line)
            kinds = {}
            for ev in evs:
                k = ev_meta.get(event_fields(ev)[0], "?")
                kinds[k] = kinds.get(k, 0) + 1
            mem = {k: v for k, v in kinds.items() if k.startswith("Memory")}
            print("  line %r ts=%d events=%d memory=%s" % (lname, ts, len(evs), mem))
    k = 0
    for e in memory_events(data):
        if k >= n:
            break
        print(e[0], e[2], e[4], json.dumps({a: (b if not isinstance(b, bytes) else b.hex())
                                           for a, b in e[3].items()}))
        k += 1
    allocators = {}
    for e in memory_events(data):
        a = e[3].get("allocator_name")
        allocators[a] = allocators.get(a, 0) + 1
    print("allocators:", allocators)


if __name__ == "__main__":
    if sys.argv[1] == "--shrink":
        shrink(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "--dump":
        dump(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10)
    else:
        print(json.dumps(facts(sys.argv[1], *sys.argv[2:]), indent=1, sort_keys=True))
