#!/usr/bin/env python3
"""va_model.py - a candidate model of where the CUDA driver places cudaMalloc
reservations, scored offline against the H200's answers (issue 17):

    python3 replay/va_model.py [replay/results-h200/va-probe.json [t/data/pytorch.json]]

replay/va_probe.py replayed every shared address run's reservation sequence
through raw cudaMalloc/cudaFree in fresh processes on the H200; a fresh
PyTorch process gets the same addresses (relative to its first), so those
answers are what a prediction must give.  The rules (doc/placement.md):
a fresh context leaves a 2 MiB hole and, 74 MiB above it, a 24 MiB hole;
new address space is taken downwards from 488 MiB below the larger hole in
slots of the size rounded up to 32 MiB, the reservation at the slot's
bottom and the rest left as a hole; a request goes to the lowest hole that
holds it (at the hole's bottom) before a new slot; a release becomes a hole,
merged with its neighbours.  Prints, per run, the first reservation the
rules place differently, and the totals.
"""
import json
import sys

MiB = 1 << 20


def place(segments, hole=24, gap=74, below=488, slot=32):
    base = 1 << 40
    top = base - below * MiB
    holes = [[base - gap * MiB, base - gap * MiB + 2 * MiB], [base, base + hole * MiB]]
    live, out = {}, []
    for kind, addr, size in segments:
        if kind == "a":
            h = next((h for h in sorted(holes) if h[1] - h[0] >= size), None)
            if h is not None:
                at = h[0]
                h[0] += size
                if h[0] == h[1]:
                    holes.remove(h)
            else:
                span = -(-size // (slot * MiB)) * slot * MiB
                top -= span
                at = top
                if span > size:
                    holes.append([top + size, top + span])
            live[addr] = (at, size)
            out.append(at)
        else:
            at, size = live.pop(addr)
            merged = []
            for h in sorted(holes + [[at, at + size]]):
                if merged and merged[-1][1] == h[0]:
                    merged[-1][1] = h[1]
                else:
                    merged.append(h)
            holes = merged
    return [a - out[0] for a in out]


def main():
    probe = json.load(open(sys.argv[1] if len(sys.argv) > 1 else
                           "replay/results-h200/va-probe.json"))
    gt = json.load(open(sys.argv[2] if len(sys.argv) > 2 else "t/data/pytorch.json"))
    same = total = whole = 0
    for row in probe["address_runs"]:
        got = place(gt["address_runs"][row["trace"]][row["run"]]["segments"])
        want = row["probe"]
        n = sum(1 for g, w in zip(got, want) if g == w)
        first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
        same, total, whole = same + n, total + len(want), whole + (n == len(want))
        print("%-24s run %d: %3d of %3d placed as the driver did%s" % (
            row["trace"], row["run"], n, len(want),
            "" if first is None else " (first not: #%d, %+d MiB, the driver %+d MiB)" % (
                first, got[first] // MiB, want[first] // MiB)))
    print("%d of %d reservations (%.1f%%), %d of %d runs whole" % (
        same, total, 100.0 * same / total, whole, len(probe["address_runs"])))


if __name__ == "__main__":
    main()
