#!/bin/sh
# t/cli-jaxjobs.sh - JAX 0.11 jobs recorded on an H100 (issue 54, item 1):
# jitted MLPs trained at four batch sizes in one process (growth and the
# default 75 % preallocation), and the OOM probes of
# t/data/gen/record_oom_logs.py (arrays kept until a 1 % pool is full, 30 MB
# arrays with every other freed, a jitted step too large for its pool),
# each as it ran out and under the setting that let it finish, and the
# issue's op-by-op sliding window in four modes.  Each
# profile (jax.profiler.trace) is kept converted (gpumemsim convert: the
# xplane files are 0.2 to 7 MB, their memory events 2 to 29 KB), with
# device.memory_stats() beside it (NAME.facts.json).  Exercises the BFC
# policy's JAX flavor and the observed-number check.
. "${TOP_SRCDIR:-.}/t/lib.sh"

J=$TOP_SRCDIR/t/data/jaxjobs
need_python3 "to read the facts"
stat() {	# NAME KEY: memory_stats() when the job ended
	json_file "$J/$1.facts.json" memory_stats "$2"
}
# tune under a capacity: the preallocated pool is the capacity, in each
# framework's own words (JAX's default is 75 % of the card, not the whole)
gms tune "$J/jax-jit.jsonl.gz" --capacity=2GiB
grep -q '^  preallocated             2.00 GiB  fits                   JAX preallocating the capacity: the fraction of the card that gives it (XLA_PYTHON_CLIENT_MEM_FRACTION; its default is 75%)$' "$TMP/out"
ok $? "tune on a JAX job under a capacity: its preallocated row in JAX's words"
gms tune "$TOP_SRCDIR/t/data/xplane/tf-synth.xplane.pb" --device=0 --capacity=2GiB
grep -q "^  preallocated             2.00 GiB  fits                   TensorFlow's default: the whole limit (memory_limit) at the first allocation$" "$TMP/out"
ok $? "... on a TensorFlow profile, TensorFlow's"
for n in mlp4-growth mlp4-prealloc jax-short jax-short-frac02 jax-frag jax-frag-frac015 \
    jax-frag-growth jax-jit jax-jit-frac03 window-growth window-prealloc window-frac; do
	gms run "$J/$n.jsonl.gz" --format=json
	is "$(json_top peak_allocated)" "$(stat $n peak_bytes_in_use)" \
	    "$n: peak in use is the allocator's peak_bytes_in_use"
	is "$(json_top peak_reserved)" "$(stat $n peak_pool_bytes)" "... the pool is its pool_bytes"
	gms run "$J/$n.jsonl.gz"
	is "$(grep '^observed' "$TMP/out")" \
	    "observed (jax-bfc, as recorded): reproduced exactly (3 numbers and the bytes in use at every event)" \
	    "... and the bytes in use after every event are the profile's"
done
# op by op (the issue's job): arrays of 16 sizes made from each other in a
# sliding window, 150 steps, in growth, preallocated and 2 % pools (above),
# and in a 0.4 % growth pool, where seven requests ran out (window-oom.log:
# the allocator's warnings) and the job went on past six of them (JAX
# dispatches asynchronously; the error came at the end).  A request that
# runs out makes no event in the profile, and the pool the allocator kept
# after each differs from the replay's from event 1562 on: the peak and the
# pool are still the allocator's, and the replay says where it parts.
n=window-oom
gms run "$J/$n.jsonl.gz" --format=json
is "$(json_top peak_allocated) $(json_top peak_reserved)" "$(stat $n peak_bytes_in_use) $(stat $n peak_pool_bytes)" \
    "$n: peak in use and pool are memory_stats()'s"
is "$(grep -c 'ran out of memory trying to allocate' "$J/$n.log")" 7 "... seven requests ran out"
gms run "$J/$n.jsonl.gz"
grep -q '^  bytes in use    differ at [0-9]* of 1868 events, the first at event 1562 ' "$TMP/out"
ok $? "... and the replay parts from the profile after them, and says where"
# growth pools: the regions the allocator listed when it ran out (its log,
# TF_CPP_MIN_LOG_LEVEL=0) are the regions the replay added
for n in jax-jit jax-frag-growth; do
	gms run "$J/$n.jsonl.gz" --format=json
	is "$(json_top device_allocs)" "$(grep -c 'bfc_allocator.cc:[0-9]*\] Next region of size' "$J/$n.log")" \
	    "$n: as many growth regions as the allocator's dump at its OOM lists"
done
done_testing
