#!/bin/sh
# t/cli-oom.sh - `gpumemsim oom LOG` (issue 54, item 8): the logs users paste
# after an out-of-memory error, read back into the allocator's state and
# checked against the recording of the same run: JAX 0.11 jobs on an H100
# with the allocator's logging on (t/data/jaxjobs: NAME.log beside the
# profile, converted, and memory_stats()), PyTorch 2.11 jobs (t/data/oomlogs:
# the OutOfMemoryError and memory_summary(), the snapshot at the OOM), each
# run again under other settings, the recommended one among them.
# Exercises analysis/oomlog.c, analysis/oomlog-answer.c, the input kind.
. "${TOP_SRCDIR:-.}/t/lib.sh"

J=$TOP_SRCDIR/t/data/jaxjobs
O=$TOP_SRCDIR/t/data/oomlogs
need_python3 "to read the facts"
fact() {	# FILE KEY...: a value of a facts file
	json_file "$@"
}
# settings: the answer's settings, one a line
settings() {
	sed -n "s/^$TAB\"settings\":$TAB\[\(.*\)\]\$/\1/p" "$TMP/out" | sed 's/", "/"\n"/g'
}

# (first: these run in a second, the jobs below in ten)
# --- formats shaped after public logs -----------------------------------
gms oom "$O/tf2-shaped.log" --format=json
is "$(json_top framework) $(json_top verdict) $(json_in state in_use) $(json_in state free_chunks)" \
    '"tensorflow" "fragmentation" 13362528768 2' \
    "a TensorFlow 2.x dump: fragmentation, in use the chunk map's (the Stats' InUse)"
is "$(json_top device) $(json_in state limit)" '"Tesla T4" 15509684224' "... the card and the Stats' limit"
settings | head -n 1 | grep -q '^"TF_GPU_ALLOCATOR=cuda_malloc_async '
ok $? "... what serves it: TensorFlow's cuda_malloc_async"
gms oom "$O/torch1x-shaped.log" --format=json
is "$(json_top line) $(json_top request) $(json_in state reserved_unallocated)" \
    "6 $((20 << 20)) $(awk 'BEGIN { printf "%.0f", (14.71 - 14.56) * 1073741824 }')" \
    "PyTorch 1.x's message in a traceback: the line, 20 MiB asked, 0.15 GiB cached unallocated"
gms oom "$O/torch1x-shaped.log"
grep -q "^  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch 2.1 or later; 1.x's message here) " "$TMP/out"
ok $? "... expandable segments, said to need PyTorch 2.1"

# --- the text, and what is refused --------------------------------------
gms oom "$J/jax-jit.log"
is "$(sed -n 1p "$TMP/out")" "$J/jax-jit.log: the BFC allocator GPU_0_bfc (JAX) ran out of memory (line 54)" \
    "the text names the allocator, the framework and the line"
grep -q '^FRAGMENTATION: 604.00 MiB was free, but no free chunk holds 288.00 MiB (the largest is 282.00 MiB), and the pool is at its limit$' "$TMP/out"
ok $? "... and says why, in the log's numbers"
is "$(grep -c 'partial' "$TMP/out")" 0 "... its chunk map and its Stats' InUse agree (MaxInUse is another line)"
check_fail 3 "gpumemsim: error: $TOP_SRCDIR/traces/synth-lognormal-1.json: not an out-of-memory log gpumemsim can read (expected the BFC allocator's \"ran out of memory trying to allocate\" and its dump, from TensorFlow or JAX, or PyTorch's \"CUDA out of memory. Tried to allocate\")" \
    oom "$TOP_SRCDIR/traces/synth-lognormal-1.json"
printf 'W x bfc_allocator.cc:1] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)\nnothing else\n' >"$TMP/nodump.log"
check_fail 3 "gpumemsim: error: $TMP/nodump.log:1: the allocator's dump is not there (its chunk map, \"InUse at ... of size ...\"): paste the whole log; TensorFlow and JAX print it with TF_CPP_MIN_LOG_LEVEL=0" \
    oom "$TMP/nodump.log"
printf 'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 50.06MiB.\n' >"$TMP/err.log"
check_fail 3 "gpumemsim: error: $TMP/err.log: the framework's error alone: the allocator's dump that explains it went to the log above it (TensorFlow and JAX print it with TF_CPP_MIN_LOG_LEVEL=0): paste the whole log" \
    oom "$TMP/err.log"
# a size too large to be one (a hostile or mangled message) is refused, not
# read as 0: that would give a verdict and a limit from a wrong number
sed '1s/Of the allocated memory 3.62 GiB/Of the allocated memory 8000000000.00 GiB/' \
    "$O/torch-gpt2.log" >"$TMP/huge.log"
check_fail 3 "gpumemsim: error: $TMP/huge.log:1: no size after \"Of the allocated memory\" (a number and its unit, below 1 EiB)" \
    oom "$TMP/huge.log"
# chunks each below 1 EiB whose sum is not (the fuzzer's: it wrapped, and a
# largest free chunk came out above the free bytes)
sed 's/of size 4294967296 next/of size 1000000000 GB next/' "$O/tf2-shaped.log" >"$TMP/wrap.log"
check_fail 3 "gpumemsim: error: $TMP/wrap.log:$(grep -n 'ran out of memory' "$O/tf2-shaped.log" | head -n 1 | cut -d: -f1): the dump's chunks add up to more than 1 EiB: not a real allocator's" \
    oom "$TMP/wrap.log"
check_fail 2 "gpumemsim: error: no log given" oom
check_fail 3 "gpumemsim: error: $O/torch-frag.log: an out-of-memory log, not a trace: 'gpumemsim oom $O/torch-frag.log' reads it (the allocator's state when it ran out, and what serves it)" \
    run "$O/torch-frag.log"
gzip -c "$J/jax-jit.log" >"$TMP/j.log.gz"
gms oom - --format=json <"$TMP/j.log.gz"
is "$rc $(json_top verdict)" '0 "fragmentation"' "a gzip'd log on standard input"

# --- JAX: the BFC allocator's dump --------------------------------------
# a jitted step too large for its growth pool: the pool at its limit, 604 MiB
# free in it, none of its chunks holds the 288 MiB asked
gms oom "$J/jax-jit.log" --format=json
is "$rc $(json_top verdict) $(json_top framework) $(json_top request)" \
    '0 "fragmentation" "jax" 301990400' "jax-jit.log: fragmentation, in JAX, the rounded 288 MiB request"
is "$(json_in state in_use) $(json_in state largest_free) $(json_in state pool)" \
    "$(fact "$J/jax-jit.facts.json" stats_at_end_of_job bytes_in_use) $(fact "$J/jax-jit.facts.json" stats_at_end_of_job largest_free_block_bytes) $(fact "$J/jax-jit.facts.json" memory_stats pool_bytes)" \
    "... in use, largest free chunk and pool are memory_stats()'s at the OOM"
is "$(json_in state regions) $(json_in state mode)" '7 "growth"' "... seven growth regions"
is "$(zcat "$J/jax-jit.jsonl.gz" | grep -c "\"in_use\":$(json_in state in_use)}")" 5 \
    "... bytes in use the profile recorded before it ran out"
settings | head -n 1 | grep -q '^"XLA_PYTHON_CLIENT_ALLOCATOR=platform '
ok $? "... what serves it: JAX's platform allocator (no pool)"
is "$(fact "$J/jax-jit-rec.facts.json" outcome)" done "... and run so on the H100, the job finished"
is "$(json_top needed)" $((218104064 + 301990400)) "... the job needed what it held and the request"
# the same job's pool filled with 30 MB arrays in growth mode: a shortage
gms oom "$J/jax-frag-growth.log" --format=json
is "$(json_top verdict) $(json_in state in_use) $(json_in state free)" '"shortage" 849346816 2096896' \
    "jax-frag-growth.log: a shortage, 810 MiB in use and 2 MiB free of 812"
is "$(zcat "$J/jax-frag-growth.jsonl.gz" | grep -c '"in_use":849346816}')" 3 "... a bytes in use the profile recorded"
settings | head -n 1 | grep -q '^"XLA_PYTHON_CLIENT_MEM_FRACTION=0.011 '
ok $? "... what serves it: a fraction of 0.011"
# run so on the H100, the request that ran out was served (the job fills
# its pool to the limit, so it ran out later, holding more)
[ "$(fact "$J/jax-frag-growth-rec.facts.json" held)" -gt "$(fact "$J/jax-frag-growth.facts.json" held)" ]
ok $? "... and at 0.011 the request that ran out was served (it held $(fact "$J/jax-frag-growth-rec.facts.json" held) arrays, not $(fact "$J/jax-frag-growth.facts.json" held))"
# arrays kept until the preallocated 1 % is full
gms oom "$J/jax-short.log" --format=json
is "$(json_top verdict) $(json_in state mode) $(json_in state regions) $(json_top request)" \
    '"shortage" "preallocated" 1 52494336' "jax-short.log: a shortage in a preallocated pool, 50.06 MiB asked"
is "$(json_in state pool) $(json_in state limit)" "$(fact "$J/jax-short.facts.json" memory_stats pool_bytes) $(fact "$J/jax-short.facts.json" memory_stats bytes_limit)" \
    "... the pool and its limit memory_stats()'s"
settings | head -n 1 | grep -q '^"XLA_PYTHON_CLIENT_MEM_FRACTION=0.011 '
ok $? "... what serves it: a fraction of the card (0.011) above what it held and asked"
# a larger fraction, run for real, finished; the recommended one served
# the request (20 arrays do not fit in 0.011: it ran out at the next)
is "$(fact "$J/jax-short-frac02.facts.json" outcome)" done \
    "... and at 2 % the same job finished"
is "$(fact "$J/jax-short.facts.json" held) $(fact "$J/jax-short-rec.facts.json" held)" "16 17" \
    "... and at 0.011 the 17th array was served, where 1 % ran out"

# --- PyTorch: the OutOfMemoryError and memory_summary() -----------------
# rep NAME: the snapshot at the OOM replayed under the job's limit: its OOM's
# "size allocated reserved"
rep() {
	gms run "$O/$1.pickle.gz" --capacity="$(fact "$O/$1.facts.json" limit)B" --format=json
	echo "$(json_in oom size) $(json_in oom allocated) $(json_in oom reserved)"
}
# a 400 MiB cached block cut into tensors, every other freed: 200 MiB cached
# in a segment still in use, 700 MiB asked of a 1 GiB limit
set -- $(rep torch-frag)
gms oom "$O/torch-frag.log" --format=json
is "$(json_top request) $(json_in state allocated) $(json_in state reserved)" "$1 $2 $3" \
    "torch-frag.log: request, allocated and reserved are the snapshot's at its OOM"
is "$(json_top verdict) $(json_in state segments) $(json_in state allowed)" '"fragmentation" 1 1073741824' \
    "... fragmentation, in one segment, under the 1 GiB limit"
settings | head -n 1 | grep -q '^"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True '
ok $? "... what serves it: expandable segments"
is "$(fact "$O/torch-frag.expandable.facts.json" env PYTORCH_CUDA_ALLOC_CONF) $(fact "$O/torch-frag.expandable.facts.json" outcome)" \
    "expandable_segments:True done" "... and run so on the H100, the job finished"
# 90 MB tensors kept until the limit is full: a shortage
set -- $(rep torch-short)
gms oom "$O/torch-short.log" --format=json
is "$(json_top verdict) $(json_in state reserved)" "\"shortage\" $3" \
    "torch-short.log: a shortage; reserved (from memory_summary(), in KiB) the snapshot's"
a=$(json_in state allocated)
is "$(awk -v a="$a" -v r="$2" 'BEGIN { d = a - r; if (d < 0) d = -d; print (d <= 5243) }')" 1 \
    "... allocated within the message's 0.01 MiB of the snapshot's ($a, $2)"
settings | head -n 1 | grep -q '^"torch.cuda.set_per_process_memory_fraction(0.014) '
ok $? "... what serves it: a limit of 0.014 of the card, above what it held and asked"
is "$(fact "$O/torch-short.limit2x.facts.json" outcome)" done "... and at 2 GiB the job finished"
# peak allocated: rec_peak NAME.VARIANT is past the as-run's when the request served
peak() {
	fact "$O/$1.facts.json" memory_stats allocated_bytes.all.peak
}
[ "$(peak torch-short.rec)" -gt "$(peak torch-short)" ]
ok $? "... and at 0.014 the request was served: it ran out later, at $(peak torch-short.rec) B allocated"
# HF GPT-2 under 4 GiB
set -- $(rep torch-gpt2)
gms oom "$O/torch-gpt2.log" --format=json
is "$(json_top verdict) $(json_in state reserved) $(json_top request)" "\"shortage\" $3 413138944" \
    "torch-gpt2.log: a shortage, reserved the snapshot's, 394 MiB asked"
is "$(fact "$O/torch-gpt2.expandable.facts.json" outcome)" oom \
    "... where expandable segments, run for real, ran out too (no fragmentation to undo)"
# what serves it reserves the allocated, the 278.57 MiB cached in segments
# still partly in use (memory_summary()'s Non-releasable memory, 285258
# KiB), which the allocator cannot give back, and the request's segment
is "$(json_top to_serve)" "$(($(json_in state allocated) + 285258 * 1024 + 413138944))" \
    "... serving it reserves the allocated, the non-releasable cache and the request"
settings | head -n 1 | grep -q '^"torch.cuda.set_per_process_memory_fraction(0.055) '
ok $? "... what serves it: a limit of 0.055 of the card"
# the first reading (allocated + the request: 0.051), run on the H100, ran
# out at the same request; 0.055 served it and ran out at a later one
[ "$(peak torch-gpt2.rec051)" -eq "$(peak torch-gpt2)" ] && [ "$(fact "$O/torch-gpt2.rec051.facts.json" fraction)" = 0.051 ]
ok $? "... 0.051, without the cache that stays, ran out at the same request on the H100"
[ "$(peak torch-gpt2.rec)" -gt "$(peak torch-gpt2)" ] && [ "$(fact "$O/torch-gpt2.rec.facts.json" fraction)" = 0.055 ]
ok $? "... 0.055 served it (ran out at a later request, $(peak torch-gpt2.rec) B allocated)"
gms oom "$O/torch-gpt2.rec.log" --format=json
[ "$(json_in state allocated)" -gt 4294967296 ]
ok $? "... its log: the request that ran out there came with more than 4 GiB allocated"

done_testing
