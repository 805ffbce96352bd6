#!/usr/bin/env python3
"""rmm-random.py SEED N - a random RMM log (logging_resource_adaptor's CSV) of N
rows: allocations of 1 B to 64 MiB on five streams (the default, legacy,
per-thread and two others), frees of live ones in random order, a fifth of them
on another stream than the allocation's.  Made t/data/rmm/random-SEED.csv,
which t/cli-rmm.sh replays through every RMM resource with --check."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2])
r=random.Random(seed)
live=[]; addr=0x7f0000000000
print("Thread,Time,Action,Pointer,Size,Stream")
streams=["0x0","0x1","0x5591c8a0","0x5591c9b0","0x2"]
t=0
for i in range(n):
    t+=1
    if live and r.random()<0.45:
        k=r.randrange(len(live)); p,s,st=live.pop(k)
        if r.random()<0.2: st=r.choice(streams)
        print(f"1,{t/1e6:.6f},free,{hex(p)},{s},{st}")
    else:
        c=r.random()
        s = r.randint(1,4096) if c<0.3 else r.randint(4096,1<<20) if c<0.7 else r.randint(1<<20, 64<<20)
        addr+=1<<27
        st=r.choice(streams)
        live.append((addr,s,st))
        print(f"1,{t/1e6:.6f},allocate,{hex(addr)},{s},{st}")
