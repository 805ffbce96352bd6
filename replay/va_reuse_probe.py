#!/usr/bin/env python3
"""va_reuse_probe.py - how the CUDA driver reuses released address space
(issue 17), with replay/va_probe.c in a fresh process per case:

    python3 replay/va_reuse_probe.py ./va_probe OUT.json

Each case fills the context's own holes (2 MiB, then 24 MiB), reserves two
slots (sizes s1, s2) or three of one size, releases some of them, and asks
one more size q; OUT.json holds every address relative to the first slot
(replay/results-h200/va-reuse.json, 672 cases).
"""
import itertools
import json
import subprocess
import sys

MiB = 1 << 20
QS = (2, 12, 20, 22, 30, 32, 38, 46, 52, 64, 70, 90, 96, 128)


def probe(exe, lines):
    out = subprocess.run([exe], input="".join(lines), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return [None if w[2] == "fail" else int(w[2]) for w in (l.split() for l in out)
            if w and w[0] == "a"]


def case(exe, sizes, frees, q, row):
    pre = ["i\n", "a %d\n" % (2 * MiB), "a %d\n" % (24 * MiB)]
    lines = pre + ["a %d\n" % (s * MiB) for s in sizes] + ["f %d\n" % (2 + k) for k in frees]
    got = probe(exe, lines + ["a %d\n" % (q * MiB)])
    row.update({"free": list(frees), "q": q, "addrs": [(a - got[2]) // MiB for a in got]})
    return row


def main():
    exe, out = sys.argv[1:3]
    res = []
    for s1, s2 in itertools.product((22, 38, 64, 96), (22, 38, 64)):
        for frees in ((0,), (1,), (0, 1)):
            for q in QS:
                res.append(case(exe, (s1, s2), frees, q, {"s1": s1, "s2": s2}))
    for s in (22, 38, 64):
        for frees in ((1,), (0, 1), (1, 2), (0, 2)):
            for q in QS:
                res.append(case(exe, (s, s, s), frees, q, {"s": s, "three": 1}))
    json.dump(res, open(out, "w"))
    print(len(res), "cases")


if __name__ == "__main__":
    main()
