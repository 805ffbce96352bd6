"""largest.py - the largest value of one of a script's arguments (a batch
size, a sequence length) that fits a GPU, found without one: the script is
recorded at each candidate value (recorder.py, no GPU memory used), each
recording replayed by the gpumemsim binary on the named GPU (or under a
capacity), in ascending order until one runs out; that one's out-of-memory
story is told as `gpumemsim run` tells it.

    python -m gpumemsim record --gpu=A100-40GB --values=8,16,32,64 \\
        --arg=--batch-size train.py --epochs=1"""

import os
import sys

from . import _cli


class SearchError(Exception):
    pass


def with_value(args, arg, value):
    """The script's arguments at value: every "{}" replaced; else arg's value
    replaced (--arg V or --arg=V), or --arg=V appended; arg a number N: the
    script's N-th argument (1 the first)."""
    v = str(value)
    if any("{}" in a for a in args):
        return [a.replace("{}", v) for a in args]
    if arg is None:
        raise SearchError("say where the value goes: --arg=--batch-size (an option of the "
                          "script), --arg=N (its N-th argument), or {} in its arguments")
    if arg.isdigit():
        n = int(arg)
        if not 1 <= n <= len(args):
            raise SearchError("--arg=%d: the script is given %d argument%s" %
                              (n, len(args), "" if len(args) == 1 else "s"))
        return args[:n - 1] + [v] + args[n:]
    out, i, done = [], 0, False
    while i < len(args):
        if args[i] == arg and i + 1 < len(args):
            out += [arg, v]
            i += 2
            done = True
            continue
        if args[i].startswith(arg + "="):
            out.append(arg + "=" + v)
            done = True
        else:
            out.append(args[i])
        i += 1
    return out if done else out + [arg + "=" + v]


def parse_values(text):
    try:
        vals = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise SearchError("--values takes whole numbers, comma-separated (8,16,32), not '%s'"
                          % text)
    if not vals or vals[0] < 1:
        raise SearchError("--values takes whole numbers of 1 or more, comma-separated")
    return vals


def replay(trace, gpu=None, capacity=None, text=False):
    """A recording replayed on the GPU (less its context) or under a
    capacity, which replaces the card: gpumemsim.run's RunResult, or run's
    text report."""
    from . import _target, run
    if capacity:
        gpu = None
    try:
        if not text:
            return run(trace, capacity=capacity, gpu=gpu)
        return _cli.run(["run", trace] + _target(capacity, gpu))[1]
    except _cli.GpumemsimError as e:
        raise SearchError("replaying %s: %s" % (trace, e.message))


def search(record, values, out_dir, name, gpu=None, capacity=None, out=sys.stdout):
    """record(value, path) -> exit status records the script at value into
    path.  Returns (largest value that fits or None, [(value, RunResult)])."""
    rows, best, oom_text = [], None, None
    target = capacity or ("%s (less its CUDA context)" % gpu)
    out.write("largest value that fits %s, the script recorded without a GPU at each:\n\n"
              "     value   peak reserved  result\n" % target)
    for v in values:
        trace = os.path.join(out_dir, "%s-%d.nogpu.jsonl.gz" % (name, v))
        rc = record(v, trace)
        if rc != 0:
            raise SearchError("the recording at %d failed (exit %d): nothing past it is "
                              "known" % (v, rc))
        res = replay(trace, gpu, capacity)
        rows.append((v, res))
        out.write("  %8d  %14s  %s\n" % (v, _size(res.peak_reserved),
                                          "fits" if res.oom is None else
                                          "OUT OF MEMORY at event %d" % res.oom.event))
        if res.oom is not None:
            oom_text = replay(trace, gpu, capacity, text=True)
            break
        best = v
    out.write("\n")
    if best is None:
        out.write("none of the values fits: the smallest, %d, runs out\n" % values[0])
    else:
        out.write("largest that fits: %d%s\n" % (best, "" if oom_text else
                                                  " (the largest tried: try larger values)"))
    if oom_text:
        out.write("\nat %d (%s):\n%s" % (rows[-1][0], trace, oom_text))
    return best, rows


def _size(n):
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k:
            return "%.2f %s" % (n / k, unit)
    return "%d B" % n
