#!/usr/bin/env python3
"""va_model.py - a candidate model of where the CUDA driver places cudaMalloc
reservations, scored offline against what the H200 did (issue 17; the rules
and the evidence are in doc/placement.md):

    python3 replay/va_model.py

Three scores, each the reservations placed exactly where the driver put
them (relative to the process's first):
  - the 49 shared address runs' sequences replayed by raw cudaMalloc in
    fresh processes (replay/results-h200/va-probe.json, va_probe.py);
  - 672 release-and-reuse cases (replay/results-h200/va-reuse.json);
  - the 56 default runs by fresh PyTorch processes, the segments they
    reserved (replay/results-h200/fresh-default.json.gz).
"""
import gzip
import json

MiB = 1 << 20
SLOT = 32 * MiB


def merged(ranges):
    out = []
    for r in sorted(ranges):
        if out and out[-1][1] >= r[0]:
            out[-1][1] = max(out[-1][1], r[1])
        else:
            out.append(list(r))
    return out


def without(ranges, a, b):
    out = []
    for r in ranges:
        if r[1] <= a or r[0] >= b:
            out.append(r)
            continue
        if r[0] < a:
            out.append([r[0], a])
        if r[1] > b:
            out.append([b, r[1]])
    return out


def place(segments):
    """The addresses, relative to the first, for [kind, key, size] segments."""
    base = 1 << 40
    top = base - 488 * MiB			# new slots are taken below this
    holes = [[base - 74 * MiB, base - 72 * MiB], [base, base + 24 * MiB]]  # the context's
    free_slots, slots, live, out = [], [], {}, []
    for kind, key, size in segments:
        if kind == "a":
            span = -(-size // SLOT) * SLOT
            hole = next((h for h in sorted(holes) if h[1] - h[0] >= size), None)
            if hole is not None:		# the lowest hole that holds it, at its bottom
                at = hole[0]
                holes = without(holes, at, at + size)
                slot = next((s for s in slots if s[0] <= at < s[0] + s[1]), None)
                if slot is not None:
                    slot[2] += 1
            else:
                fit = [r for r in sorted(free_slots) if r[1] - r[0] > span]
                if fit:				# released slots, strictly larger: at the top
                    at = fit[-1][1] - span
                    free_slots = without(free_slots, at, fit[-1][1])
                else:				# a new slot
                    top -= span
                    at = top
                if span > size:
                    holes = merged(holes + [[at + size, at + span]])
                slot = [at, span, 1]
                slots.append(slot)
            live[key] = (at, size, slot)
            out.append(at)
        else:
            at, size, slot = live.pop(key)
            if slot is not None:
                slot[2] -= 1
            if slot is None or slot[2] > 0:	# a hole again
                holes = merged(holes + [[at, at + size]])
                continue
            slots.remove(slot)			# the whole slot is released
            holes = without(holes, slot[0], slot[0] + slot[1])
            free_slots = merged(free_slots + [[slot[0], slot[0] + slot[1]]])
            while True:				# released slots at the edge go back to it
                edge = next((r for r in free_slots if r[0] == top), None)
                if edge is None:
                    break
                top = edge[1]
                free_slots.remove(edge)
    return [a - out[0] for a in out]


def score(name, cases):
    same = total = whole = 0
    for segments, want in cases:
        got = place(segments)
        n = sum(1 for g, w in zip(got, want) if g == w)
        same, total, whole = same + n, total + len(want), whole + (n == len(want))
    print("%-44s %5d of %5d reservations (%5.1f%%), %3d of %3d whole" % (
        name, same, total, 100.0 * same / total, whole, len(cases)))


def main():
    gt = json.load(open("t/data/pytorch.json"))
    probe = json.load(open("replay/results-h200/va-probe.json"))
    score("address runs, raw cudaMalloc (va-probe)",
          [(gt["address_runs"][r["trace"]][r["run"]]["segments"], r["probe"])
           for r in probe["address_runs"]])
    cases = []
    for c in json.load(open("replay/results-h200/va-reuse.json")):
        sizes = [2, 24] + ([c["s1"], c["s2"]] if "s1" in c else [c["s"]] * 3)
        segs = [("a", i, s * MiB) for i, s in enumerate(sizes)]
        segs += [("f", 2 + k, 0) for k in c["free"]] + [("a", 99, c["q"] * MiB)]
        first = place(segs)
        cases.append((segs, [a - c["addrs"][0] * MiB + first[0] for a in
                             (x * MiB for x in c["addrs"])]))
    score("release and reuse cases (va-reuse)", cases)
    fresh = json.load(gzip.open("replay/results-h200/fresh-default.json.gz", "rt"))
    cases = []
    for r in fresh:
        addrs = [a for k, a, s in r["segments"] if k == "a"]
        cases.append(([(k, a, s) for k, a, s in r["segments"]], [a - addrs[0] for a in addrs]))
    score("default runs, fresh PyTorch (fresh-default)", cases)


if __name__ == "__main__":
    main()
