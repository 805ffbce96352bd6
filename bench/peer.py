#!/usr/bin/env python3
"""bench/peer.py - the simulation time of a peer simulator on the same trace.

  python3 bench/peer.py PATH/TO/allocation_simulator.py TRACE.jsonl

Loads DynaPipe's caching-allocator simulator (dynapipe/memory_opt/
allocation_simulator.py, which needs sortedcontainers) from the path given,
reads the native JSON Lines trace into a list first (parsing is not timed),
then times only its malloc and free calls, and prints one line:
  peer EVENTS SECONDS NS_PER_EVENT PEAK_BACKEND_BYTES
"""
import importlib.util
import json
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("peer_sim", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod        # its dataclasses look themselves up there
    spec.loader.exec_module(mod)
    sim = mod.TorchCachingAllocatorSimulator(1e12)     # MB: no limit
    events = []
    with open(sys.argv[2]) as f:
        next(f)                                         # the header
        for line in f:
            e = json.loads(line)
            if e["op"] == "alloc":
                events.append((1, e["id"], e["size"], e.get("stream", 0)))
            elif e["op"] == "free":
                events.append((0, e["id"], 0, 0))
    live = {}
    t = time.perf_counter()
    for op, ident, size, stream in events:
        if op:
            live[ident] = sim.malloc(size, stream) if size > 0 else None
        else:
            b = live.pop(ident, None)
            if b is not None:
                sim.free(b)
    t = time.perf_counter() - t
    print("peer %d %.3f %.1f %d" % (len(events), t, t * 1e9 / max(len(events), 1),
                                    sim.peak_backend_allocated_bytes))


if __name__ == "__main__":
    main()
