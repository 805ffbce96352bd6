"""nogpu_align.py EVENTS RECORDING - where a recording made without a GPU
and the real run of the same job part: the real allocator's events
(nogpu_events.py, or nogpu_caps.py's KEEP) against the recording's, up to the
real run's OOM when it had one.  Prints the allocations by size (rounded to
the allocator's 512 bytes) that one has more of than the other, then the
first differing stretches of the two allocation sequences."""
import collections
import difflib
import gzip
import json
import sys


def rnd(n):
    return max(512, (n + 511) // 512 * 512)


def main(events, recording, shown=12):
    real, oom = [], None
    for e in json.load(gzip.open(events, "rt")):
        if e[0] == "alloc":
            real.append(rnd(e[2]))
        elif e[0] == "oom":
            oom = e[2]
            break
    rec = [rnd(d["size"]) for d in map(json.loads, gzip.open(recording, "rt"))
           if d.get("op") in ("alloc", "oom")]
    if oom is not None:
        # the recording up to the same request, as many times over as the
        # real run had made it before
        want = real.count(rnd(oom)) + 1
        seen = 0
        for i, s in enumerate(rec):
            seen += s == rnd(oom)
            if seen == want:
                rec = rec[:i]
                break
    print("real %d allocations%s, recording %d" % (
        len(real), " before its OOM (%d B)" % oom if oom is not None else "", len(rec)))
    a, b = collections.Counter(real), collections.Counter(rec)
    for s in sorted(set(a) | set(b)):
        if a[s] != b[s]:
            print("  %12d B: real %d, recording %d" % (s, a[s], b[s]))
    sm = difflib.SequenceMatcher(None, real, rec, autojunk=False)
    for tag, i1, i2, j1, j2 in [o for o in sm.get_opcodes() if o[0] != "equal"][:shown]:
        print("  %s real[%d:%d] %s recording[%d:%d] %s" % (tag, i1, i2, real[i1:i2][:4], j1, j2,
                                                            rec[j1:j2][:4]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
