#!/bin/sh
# t/cli-xplane.sh - TensorFlow's and JAX's profiler files (issue 26): real
# JAX 0.11 jobs recorded on an H200 under jax.profiler.trace()
# (t/data/gen/record_jax.py): op by op and jitted, growth and preallocated,
# small fractions, two that ran out of memory, a profile begun mid-run.
# Each NAME.facts.json holds device.memory_stats() when the job ended (the
# expected numbers); NAME.expect.json what t/data/gen/xplane_facts.py, a
# second reader sharing nothing with gpumemsim's, counts in the file.
. "${TOP_SRCDIR:-.}/t/lib.sh"

X=$TOP_SRCDIR/t/data/xplane

# fact NAME KEY: the first number NAME.facts.json gives KEY (memory_stats' come first)
fact() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$X/$1.facts.json" | head -n 1
}
# expect NAME KEY: a number of NAME.expect.json
expect() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$X/$1.expect.json" | head -n 1
}
observed_line() {
	grep '^observed' "$TMP/out"
}

# First the profiles made by hand (small: a mutant they kill dies fast).
# A window that began after the job's peak: every event's peak_bytes_in_use
# says the allocator once held 402356992 B (t/data/gen/xplane_synth.py
# --window), the window 8 MiB at most. What it held is a fact of the job:
# check and plan honour it and say it came from before (issue 54, item 5:
# --must-fit=300MB passed)
W=$X/window-peak.xplane.pb
gms info "$W" --format=json
is "$(json_in source peak_in_use_before) $(json_top peak_live)" "402356992 8388608" \
    "a window after the peak: peak_in_use_before said, the window's own live peak 8 MiB"
gms check "$W" --must-fit=300MB
is "$rc $(grep -c 'FAIL  must_fit .*the allocator recorded 383.72 MiB in use before the profile.s window (its peak_bytes_in_use), more than 286.10 MiB$' "$TMP/out")" "1 1" \
    "check --must-fit=300MB fails: the job held 383.72 MiB before the window"
gms check "$W" --must-fit=400MiB
is "$rc" 0 "... and 400 MiB passes"
gms check "$W" --capacity=300MB --placements=2
is "$rc $(grep -c 'FAIL  fits .*before the profile.s window' "$TMP/out")" "1 1" "... under placements too"
gms plan "$W" --gpus=300MiB,1GiB --context-overhead=0 --format=json
is "$(sed -n "s/^$TAB$TAB$TAB\"min_capacity\":$TAB\([0-9]*\),*/\1/p" "$TMP/out" | sort -u) $(json_top peak_in_use_before) $(grep -c '"before_window":	true' "$TMP/out")" \
    "402653184 402356992 5" "plan: every minimum at least the peak before the window (to 2 MiB); 300 MiB does not fit any policy"
gms plan "$W" --gpus=300MiB --context-overhead=0
is "$(grep -c '^  (at least 383.72 MiB for every policy: the allocator recorded it in use before the profile.s window (its peak_bytes_in_use))$' "$TMP/out") $(grep -c '^  300MiB .*OOM before' "$TMP/out")" \
    "1 1" "... said in text"
# run and tune honour it too (issue 54, item 5: they went by the window alone)
gms run "$W" --capacity=300MB --format=json
is "$(json_top peak_in_use_before) $(json_top oom_before_window)" "402356992 true" \
    "run under 300 MB: the peak before the window said, and that it runs out before it"
gms run "$W" --capacity=400MiB --format=json
is "$(json_top oom_before_window)" false "... not under 400 MiB"
gms run "$W" --capacity=300MB
grep -q '^  before window     383.72 MiB       402356992 B  what the allocator held before the profile began: more than the capacity, OUT OF MEMORY BEFORE IT$' "$TMP/out"
ok $? "... said in text"
gms tune "$W" --format=json
is "$(json_top bfc_min_growth_limit) $(json_top bfc_min_preallocated)" "402653184 402653184" \
    "tune: no limit below the peak before the window (to 2 MiB; the window alone fits in 10 MiB)"
gms tune "$W" --capacity=300MB
is "$(grep -c '^  growth, TensorFlow      14.00 MiB  OOM before ' "$TMP/out") $(grep -c '^  growth does not fit in 286.10 MiB with any limit$' "$TMP/out")" \
    "1 1" "... and under 300 MB no mode fits: OOM before the window"

# A window begun mid-run whose first request (22151168 B) got a free chunk of
# 28937472 made before it, whole (t/data/gen/xplane_synth.py --whole-chunks,
# shaped after seven public TensorFlow profiles): the replay cuts the request
# instead and reads 6786304 B low; the allocator's recorded peak in the
# window is a fact every command holds the job to (issue 54, item 4)
WC=$X/whole-chunks.xplane.pb
gms info "$WC" --format=json
is "$(json_in source peak_in_use_window) $(json_in source whole_chunks) $(json_in source whole_chunk_bytes)" \
    "$((104857600 + 28937472 + 4194304)) 1 $((28937472 - 22151168))" \
    "a window with a chunk handed out whole: its recorded peak, the chunk, the bytes beyond the request"
gms run "$WC" --format=json
is "$(json_top peak_allocated) $(json_top peak_in_use_before)" "$((104857600 + 22151168 + 4194304)) 137989376" \
    "run: the replay's peak allocated is the requests', the recorded peak said beside it"
gms run "$WC"
grep -q '^  in the window     131.60 MiB       137989376 B  what the allocator recorded in use: free chunks made before the window, handed out whole, are not in the replay$' "$TMP/out"
ok $? "... in text, saying why the replay is lower"
gms run "$WC" --capacity=130MiB
grep -q '^  in the window     131.60 MiB       137989376 B  what the allocator recorded in use: free chunks made before the window, handed out whole, are not in the replay: more than the capacity, OUT OF MEMORY$' "$TMP/out"
ok $? "under 130 MiB: the recorded peak is more than the capacity, said"
gms run "$WC" --capacity=130MiB --format=json
is "$(json_top oom_before_window)" true "... and in JSON"
gms plan "$WC" --gpus=1GiB --context-overhead=0
grep -q '^  (at least 131.60 MiB for every policy: the allocator recorded it in use in the profile.s window (free chunks made before it, handed out whole))$' "$TMP/out"
ok $? "plan: every minimum at least the recorded peak, said"

# 1. Every whole profile: the events are the file's GPU_0_bfc events, the
# mode is the job's, and the simulation is the allocator, number for number.
for n in op-growth oom-growth oom-prealloc jit-prealloc share-a share-b; do
	if grep -q '"XLA_PYTHON_CLIENT_PREALLOCATE": "false"' "$X/$n.facts.json"; then
		mode=grow-only
	else
		mode=preallocate
	fi
	gms info "$X/$n.xplane.pb.gz"
	is "$rc $(sed -n 's/^  events *\([0-9]*\): \([0-9]*\) allocs, \([0-9]*\) frees.*/\1 \2 \3/p' "$TMP/out")" \
	    "0 $(expect $n events) $(expect $n allocs) $(expect $n frees)" \
	    "$n: the events read are the file's GPU_0_bfc MemoryAllocation and MemoryDeallocation events"
	gms run "$X/$n.xplane.pb.gz" --format=json
	is "$(json_top policy) $(json_in options limit) $(json_in options flavor)" \
	    "\"$mode\" \"$(fact $n bytes_limit)B\" \"jax\"" \
	    "$n: runs the job's mode ($mode) with its bytes_limit, as JAX"
	is "$(json_top peak_allocated)" "$(fact $n peak_bytes_in_use)" \
	    "$n: simulated peak in use is memory_stats()['peak_bytes_in_use']"
	is "$(json_top peak_reserved)" "$(fact $n pool_bytes)" \
	    "$n: simulated pool is memory_stats()['pool_bytes']"
	is "$(json_deep observed in_use observed) $(json_deep observed in_use match)" \
	    "$(expect $n events) true" "$n: bytes in use equal bytes_allocated at every event"
	gms run "$X/$n.xplane.pb.gz"
	is "$(sed -n 2p "$TMP/out")" \
	    "policy $mode (flavor=jax, limit=$(fact $n bytes_limit)B, as recorded), capacity unlimited, placement model" \
	    "$n: the text says the mode and limit are the recording's"
	is "$(observed_line)" \
	    "observed (jax-bfc, as recorded): reproduced exactly (3 numbers and the bytes in use at every event)" \
	    "$n: reproduced exactly"
done
for n in oom-prealloc jit-prealloc; do
	gms run "$X/$n.xplane.pb.gz" --format=json
	is "$(json_top peak_reserved) $(json_top device_allocs)" "$(fact $n bytes_limit) 1" \
	    "$n: preallocated, the pool is the limit, in one region"
done

# The checks can fail: the wrong mode, the wrong allocator, a smaller limit.
gms run "$X/jit-prealloc.xplane.pb.gz" --policy=grow-only --format=json
is "$(json_in observed matches) $(sed -n '/"mismatches":/,/}$/p' "$TMP/out" | grep -c '"device_allocs":')" "false 1" \
    "grow-only on a preallocated job: not reproduced, its regions named"
gms run "$X/jit-prealloc.xplane.pb.gz" --policy=grow-only
is "$(observed_line)" "observed (jax-bfc, as recorded): a what-if (another mode than the recording's): not comparable" \
    "... a what-if, which the text does not hold to the recording"
gms run "$X/op-growth.xplane.pb.gz" --policy=caching --format=json
is "$(json_in observed matches) $(json_in observed comparable)" "false false" \
    "PyTorch's allocator on a JAX job: not reproduced, and not comparable"
# PyTorch rounds the first request (256 B) to 512: the bytes in use differ
# from event 0
is "$(sed -n '/"in_use":/,/}/p' "$TMP/out" | tr -d '\t\n')" \
    '"in_use":{"observed":868,"match":false,"mismatches":866,"first_mismatch_event":0,"first_simulated":512,"first_observed":256}' \
    "... the bytes in use still compared: where they first differ, and how often"
gms run "$X/op-growth.xplane.pb.gz" --policy=caching
is "$(observed_line)" "observed (jax-bfc, as recorded): a what-if (another allocator than the recording's): not comparable" \
    "... which the text says"
gms run "$X/oom-growth.xplane.pb.gz" --policy 'grow-only flavor=jax limit=1GB' --format=json
is "$(json_in options limit) $(json_in observed matches)" '"1GB" false' \
    "a limit of one's own replaces the recorded one"

# 2. The jobs that ran out of memory: the failed request is not in a profile
# (the allocator records only what it hands out); what it handed out is.
for n in oom-growth oom-prealloc; do
	grep -q '"oom": {' "$X/$n.facts.json"
	ok $? "$n: the job ran out of memory (RESOURCE_EXHAUSTED)"
	gms run "$X/$n.xplane.pb.gz" --format=json
	is "$(json_top oom)" null "$n: at its own limit every recorded allocation fits, as it did"
	gms run "$X/$n.xplane.pb.gz" --capacity=$(($(fact $n peak_bytes_in_use) - 1))B --policy 'grow-only flavor=jax'
	grep -q '^OUT OF MEMORY at event ' "$TMP/out"
	ok $? "$n: below its peak in use it runs out"
done

# 3. A profile begun mid-run: what was live before it is seeded; nothing is
# held to the recording's numbers, and the mode is the frameworks' default.
gms run "$X/midrun.xplane.pb.gz" --format=json
is "$rc $(json_top events)" "0 $(($(expect midrun events) + 2))" \
    "midrun: the file's events, after two seeded blocks (one freed in the profile, the rest)"
is "$(json_top policy) $(json_top observed)" '"preallocate" null' \
    "midrun: preallocate, JAX's default; nothing compared"
is "$(json_top peak_allocated)" "$(expect midrun max_bytes_allocated)" \
    "midrun: what was live before counts: the peak in use is the file's largest bytes_allocated"
gms run "$X/midrun.xplane.pb.gz"
before=$(sed -n '/"stats_before"/,/}/s/.*"bytes_in_use": \([0-9]*\).*/\1/p' "$X/midrun.facts.json")
grep -q "^STARTS MID-RUN: midrun covers a window of the job: $((before >> 20)).00 MiB were live before it" "$TMP/out"
ok $? "midrun: says it starts mid-run, with what was live (memory_stats() before the profile)"
grep -q "^  the profile began after the allocator's first allocation, so its regions are not in it: preallocate is simulated" "$TMP/out"
ok $? "midrun: says why the mode is the default"

# 4. Where the file is: a log directory, a run's directory, standard input.
mkdir -p "$TMP/log/plugins/profile/2026_12_01_10_00_00" "$TMP/log/plugins/profile/2026_12_02_10_00_00"
gzip -dc "$X/share-a.xplane.pb.gz" >"$TMP/log/plugins/profile/2026_12_01_10_00_00/h.xplane.pb"
gzip -dc "$X/share-b.xplane.pb.gz" >"$TMP/log/plugins/profile/2026_12_02_10_00_00/h.xplane.pb"
gms run "$TMP/log" --format=json
is "$rc $(json_top events)" "0 $(expect share-b events)" \
    "a log directory: the newest run's profile is read"
gms run "$TMP/log/plugins/profile/2026_12_01_10_00_00" --format=json
is "$rc $(json_top events)" "0 $(expect share-a events)" "a run's directory: its profile"
gms run - --format=json <"$X/share-a.xplane.pb.gz"
is "$rc $(json_top events)" "0 $(expect share-a events)" "standard input"
cp "$TMP/log/plugins/profile/2026_12_02_10_00_00/h.xplane.pb" "$TMP/log/plugins/profile/2026_12_02_10_00_00/g.xplane.pb"
check_fail 3 "gpumemsim: error: $TMP/log: a profile of 2 hosts ($TMP/log/plugins/profile/2026_12_02_10_00_00/g.xplane.pb, $TMP/log/plugins/profile/2026_12_02_10_00_00/h.xplane.pb): give the file of one" \
    run "$TMP/log"
# 2000 hosts: the first 8 named, the rest counted (issue 55: an 87 KB
# message, built in quadratic time)
R=$TMP/log/plugins/profile/2026_12_02_10_00_00
python3 -c 'import os, sys
for i in range(2000):
    os.symlink("h.xplane.pb", "%s/host%d.xplane.pb" % (sys.argv[1], i))' "$R"
gms run "$TMP/log"
is "$rc $(grep -c 'a profile of 2002 hosts (.*/g.xplane.pb, .*/h.xplane.pb, .*/host0.xplane.pb, .* and 1994 more): give the file of one' "$TMP/err")" \
    "3 1" "a profile of 2002 hosts: 8 named, 1994 more counted"
[ "$(wc -c <"$TMP/err")" -lt 2000 ]
ok $? "... in a message under 2000 bytes"
rm -f "$R"/host*.xplane.pb
mkdir "$TMP/empty"
check_fail 4 "gpumemsim: error: cannot read trace '$TMP/empty': a directory, with no profile in it (NAME.xplane.pb, plugins/profile/RUN/NAME.xplane.pb, or that in a directory of it: train/plugins/profile/...)" \
    run "$TMP/empty"
# a preallocated pool's overhead is not a percentage of the job's need (issue
# 54: "overhead 3814597.3%")
gms run "$X/tf-synth.xplane.pb" --device=0
grep -q '^  overhead                 -  a preallocated pool: its limit, reserved whole at the first allocation$' "$TMP/out"
ok $? "preallocate: the overhead line says the pool is the limit, not a percentage"

# a JAX profile's job that names a BFC mode stays JAX's (issue 54: policy=
# preallocate dropped its flavor and simulated TensorFlow's)
gms share --job "$X/op-growth.xplane.pb.gz policy=preallocate" --job "$X/jit-prealloc.xplane.pb.gz" \
    --capacity=2GiB
grep -q '^  op-growth     preallocate flavor=jax ' "$TMP/out"
ok $? "share: a JAX profile's job named policy=preallocate is JAX's preallocation"
gms share --job "$X/op-growth.xplane.pb.gz policy=preallocate flavor=tensorflow" \
    --job "$X/jit-prealloc.xplane.pb.gz" --capacity=2GiB
grep -q '^  op-growth     preallocate flavor=tensorflow     0.000 s    1.28 GiB' "$TMP/out"
ok $? "... and with flavor=tensorflow, TensorFlow's, without JAX's fraction"

# a two-GPU TensorFlow profile as two share jobs, one per device (issue 54:
# device=0 was taken for a caching option)
gms share --job "$X/tf-synth.xplane.pb device=0" --job "$X/tf-synth.xplane.pb device=1 name=gpu1" \
    --capacity=16GiB
is "$rc" 0 "share: a job per device of a two-GPU profile (device=)"
grep -q '^  gpu1      preallocate flavor=tensorflow ' "$TMP/out"
ok $? "... each as TensorFlow's allocator, as recorded"
check_fail 3 "gpumemsim: error: --job 1: $X/tf-synth.xplane.pb: no events of device 7's allocator (the profile has GPU_0_bfc (6 events), GPU_1_bfc (2 events))" \
    share --job "$X/tf-synth.xplane.pb device=7" --job "$X/op-growth.xplane.pb.gz" --capacity=16GiB

# a profile whose memory events are another allocator's is named as such, and
# an empty one as empty (issue 54: both were asked "with the host tracer on?")
check_fail 3 "gpumemsim: error: $X/host-only.xplane.pb: its memory events are of gpu_host_bfc (2 events), not of a GPU's BFC allocator (GPU_<n>_bfc): gpumemsim replays GPU allocators" \
    run "$X/host-only.xplane.pb"
: >"$TMP/empty.xplane.pb"
check_fail 3 "gpumemsim: error: $TMP/empty.xplane.pb: an empty profile (0 bytes)" run "$TMP/empty.xplane.pb"

# TensorBoard's memory_profile.json is recognised and pointed to its profile
# (issue 54: it was told '"format" must be "gpumemsim-trace"')
printf '{"memoryProfilePerAllocator":{"GPU_0_bfc":{"memoryProfileSnapshots":[]}},"numHosts":1,"memoryIds":["GPU_0_bfc"]}\n' \
    >"$TMP/memory_profile.json"
check_fail 3 "gpumemsim: error: $TMP/memory_profile.json: TensorBoard's memory profile (memory_profile.json): it holds a sample of the allocator's events, not each one; give the profile it was made from, the HOST.xplane.pb beside it in plugins/profile/RUN/ (or that directory)" \
    run "$TMP/memory_profile.json"

# the framework from the profile itself, or said to be assumed (issue 54,
# item 2: never assume silently): a tf.function graph's name says TensorFlow
gms info "$X/tf-function.xplane.pb" --format=json
is "$(json_in source framework_from)" "\"its tf.function graphs' names (__inference_...)\"" \
    "a tf.function graph (__inference_...) says TensorFlow"
gms run "$X/tf-synth.xplane.pb" --device=0
grep -q "^  the profile does not say whether TensorFlow or JAX ran it: TensorFlow's allocator taken (--option flavor=jax for JAX's)$" "$TMP/out"
ok $? "a profile that says neither: run says TensorFlow's is taken, and how to take JAX's"
gms run "$X/tf-function.xplane.pb"
grep -q "does not say whether TensorFlow or JAX" "$TMP/out"
is "$?" 1 "... not when the profile says it"

# Keras's TensorBoard callback: logs/fit/RUN/train/plugins/profile/TIME/ (issue
# 54: logs/fit/RUN was refused where logs/fit/RUN/train worked)
K=$TMP/logs/fit/20261207-101500
mkdir -p "$K/train/plugins/profile/2026_12_07_10_15_03" "$K/validation"
gzip -dc "$X/op-growth.xplane.pb.gz" >"$K/train/plugins/profile/2026_12_07_10_15_03/host.xplane.pb"
gms run "$X/op-growth.xplane.pb.gz" --format=json
want=$(json_top peak_reserved)
gms run "$K" --format=json
is "$rc $(json_top peak_reserved)" "0 $want" "a Keras log directory (RUN/train/plugins/profile/...) reads its run's profile"
check_fail 3 "gpumemsim: error: $X/share-a.xplane.pb.gz: no events of device 1's allocator (the profile has GPU_0_bfc (18 events))" \
    run "$X/share-a.xplane.pb.gz" --device=1

# A profile of TensorFlow's shape (hand-made, t/data/gen/xplane_synth.py says
# what is in it): two GPUs, the pinned host allocator, sites, threads' events
# out of time order, strings by reference.
T=$X/tf-synth.xplane.pb
check_fail 3 "gpumemsim: error: $T: the profile holds the allocators of several devices, GPU_0_bfc (6 events), GPU_1_bfc (2 events): give --device=N" \
    run "$T"
gms convert "$T" "$TMP/tf.jsonl" --device=0
is "$rc $(sed -n 's/.*"op":"\([a-z]*\)".*"at":"\([^"]*\)".*/\1 \2/p; s/.*"op":"free","id":\([0-9]*\).*/free \1/p' "$TMP/tf.jsonl" | tr '\n' ',')" \
    "0 alloc conv1/Conv2D [32,64,64,1],alloc dense/MatMul,free 1,alloc conv1/Conv2D [32,64,64,1],free 2,free 3," \
    "device 0: its events in time order across the threads, sites from tf_op and tensor_shape, the host allocator's left out"
is "$(sed -n 's/.*"in_use":\([0-9]*\)}$/\1/p' "$TMP/tf.jsonl" | tr '\n' ' ')" "262144 393216 131072 393216 262144 0 " \
    "... each with the bytes_allocated recorded after it"
grep -q '"framework":"tensorflow",.*"device":{"name":"Tesla T4","total_bytes":16106127360}' "$TMP/tf.jsonl"
ok $? "TensorFlow (no jax_version), and the card's name and memory from its device plane"
gms run "$T" --device=0
is "$(sed -n 2p "$TMP/out")" \
    "policy preallocate (flavor=tensorflow, limit=15000000000B, as recorded), capacity unlimited, placement model" \
    "TensorFlow's flavor; the regions of two GPUs cannot be told apart, so the default mode"
grep -q "^  the profile does not show the allocator's regions: preallocate is simulated, the framework's default (--policy=grow-only for a job run with memory growth on)$" "$TMP/out"
ok $? "... and says so"
gms info "$T" --device=1
is "$(sed -n 's/^  events *\([0-9]*\):.*/\1/p' "$TMP/out")" 2 "--device=1: the other GPU's allocator"

# 5. Kept as a native trace: the observed bytes in use travel with it.
gms convert "$X/oom-prealloc.xplane.pb.gz" "$TMP/o.jsonl"
is "$rc $(grep -c '"in_use":' "$TMP/o.jsonl")" "0 $(expect oom-prealloc events)" \
    "convert: every event keeps its recorded bytes in use"
gms run "$TMP/o.jsonl" --format=json
is "$(json_top policy) $(json_top peak_allocated) $(json_in observed matches)" \
    "\"preallocate\" $(fact oom-prealloc peak_bytes_in_use) true" \
    "the converted trace runs as recorded, and is reproduced"
is "$(json_deep observed in_use observed) $(json_deep observed in_use match)" \
    "$(expect oom-prealloc events) true" "... with its bytes in use at every event"
gms run "$X/op-growth.xplane.pb.gz" --by-site
is "$rc $(observed_line)" \
    "0 observed (jax-bfc, as recorded): reproduced exactly (3 numbers and the bytes in use at every event)" \
    "--by-site (the profile held in memory for its second pass): reproduced exactly too"

# 6. Bad files: an error naming the file and the byte, never a crash.
gzip -dc "$X/share-a.xplane.pb.gz" | head -c 5000 >"$TMP/cut.xplane.pb"
gms run "$TMP/cut.xplane.pb"
is "$rc $(sed -n 's/^gpumemsim: error: \([^:]*\): at byte [0-9]*: the file ends inside a.*/\1/p' "$TMP/err")" \
    "3 $TMP/cut.xplane.pb" "a profile cut short: exit 3, the file and the byte"
printf '\n\377\377\377\377\377\377\377\377\377\377\377' >"$TMP/bad.xplane.pb"
gms run "$TMP/bad.xplane.pb"
is "$rc $(grep -c 'at byte' "$TMP/err")" "3 1" "garbage: exit 3, at a byte"

# 7. Two of these JAX jobs on one H200, as they really ran side by side
# (record_jax.py pair: a holds 30 GB, b then asks 10, 10, 10 and 20 GB):
# share-SETTING.facts.json holds each job's outcome and memory_stats().
# pair SETTING ROLE KEY: a value of that job's record
pair() {
	sed -n "/^ \"$2\": {/,/^ }/p" "$X/share-$1.facts.json" |
	    sed -n "s/^  \"$3\": \"*\([^\",]*\)\"*,*\$/\1/p" | head -n 1
}
pool() {
	sed -n "/^ \"$2\": {/,/^ }/p" "$X/share-$1.facts.json" |
	    sed -n '/"memory_stats"/,/}/s/.*"pool_bytes": \([0-9]*\).*/\1/p'
}
outcome() {	# the share JSON's outcome of job NAME: done, or the OOM's size
	sed -n "/\"name\":$TAB\"$1\"/,/\"incomplete\"/p" "$TMP/out" |
	    sed -n "s/^$TAB$TAB$TAB$TAB\"size\":$TAB\([0-9]*\),*/\1/p" | head -n 1
}
A=$X/share-a.xplane.pb.gz
B=$X/share-b.xplane.pb.gz
gms share --gpu=H200 --job "$A" --job "$B start=1s" --format=json
is "$rc $(pair growth a outcome) $(pair growth b outcome) $(json_top fits)" "0 done done true" \
    "growth (as both were recorded): both fit, as they did"
is "$(sed -n "s/^$TAB$TAB$TAB\"peak_reserved\":$TAB\([0-9]*\),/\1/p" "$TMP/out" | tr '\n' ' ')" \
    "$(pool growth a) $(pool growth b) " "growth: each job's pool is its memory_stats()['pool_bytes'] beside the other"
gms share --gpu=H200 --job "$A policy=preallocate flavor=jax" \
    --job "$B start=1s policy=preallocate flavor=jax" --format=json
gib=$(pair default b message | sed -n 's/.*allocate \([0-9.]*\)GiB.*/\1 GiB/p')
is "$rc $(pair default a outcome) $(pair default b outcome) $(json_top fits)" "0 done oom false" \
    "JAX's default, preallocating 75% each: the second runs out, as it did"
is "$(outcome share-a) $(./gpumemsim convert "$B" - 2>/dev/null |
    grep '"op":"alloc"' | sed -n "$(($(pair default b failed_alloc) * 3 + 3))p" |
    sed 's/.*"size":\([0-9]*\).*/\1/')" " $(outcome share-b)" \
    "... at b's big allocation number $(pair default b failed_alloc) (from 0; each comes after two of 1 byte), the one that failed"
gms share --gpu=H200 --job "$A policy=preallocate flavor=jax" \
    --job "$B start=1s policy=preallocate flavor=jax"
grep -q "^  share-b ran out of memory at event [0-9]* (pass 1) at [0-9.]* s, asking for $gib;" "$TMP/out"
ok $? "... asking for what JAX said it could not allocate ($gib)"
gms share --gpu=H200 --job "$A policy=preallocate flavor=jax fraction=.45" \
    --job "$B start=1s policy=preallocate flavor=jax fraction=.45" --format=json
is "$rc $(pair fraction45 a outcome) $(pair fraction45 b outcome) $(json_top fits)" "0 done done true" \
    "XLA_PYTHON_CLIENT_MEM_FRACTION=.45 each: both fit, as they did"

# A TensorFlow op's name scopes are its stack: after event 1 the two live
# blocks, conv1/Conv2D's 256 KiB and dense/MatMul's 128 KiB
gms run "$T" --device=0 --folded --at 1
is "$rc $(tr '\n' '|' <"$TMP/out")" "0 conv1;Conv2D 262144|dense;MatMul 131072|" \
    "tf-synth: each op's name scopes, outermost first in folded form, hold its block"

# A JAX profile without a jax_version stat (older JAX, the public ROCm
# profiles) is JAX's by its jitted functions' names (jit_...), never taken
# for TensorFlow's (issue 54, item 2): op-growth with its stat renamed runs
# as JAX's allocator, as the real one does; a TensorFlow profile stays TF's
gzip -dc "$X/op-growth.xplane.pb.gz" | LC_ALL=C sed 's/jax_version/jax_versioX/g' >"$TMP/nojax.xplane.pb"
[ "$(LC_ALL=C grep -c -a jax_versioX "$TMP/nojax.xplane.pb")" -gt 0 ] || echo "# the sed did not apply"
gms run "$X/op-growth.xplane.pb.gz" --format=json
want=$(grep -v '"trace":\|"path":' "$TMP/out")
gms run "$TMP/nojax.xplane.pb" --format=json
is "$rc $(json_top policy) $(json_in options flavor)" '0 "grow-only" "jax"' "a JAX profile without jax_version: run as JAX's"
is "$(grep -v '"trace":\|"path":' "$TMP/out")" "$want" "... exactly as the profile that has it (JAX's flavor, its limit)"
gms info "$TMP/nojax.xplane.pb" --format=json
is "$(sed -n 's/^.*"framework_from":[[:space:]]*"\(.*\)",*$/\1/p' "$TMP/out" | head -n 1)" \
    "its jitted functions' names (jit_...): no jax_version stat" "... info says how JAX was known"
gms info "$X/op-growth.xplane.pb.gz" --format=json
is "$(grep -c '"framework_from"' "$TMP/out")" 0 "... the real one is JAX's by its jax_version stat (its metadata plane kept)"
gms info "$X/tf-synth.xplane.pb" --device=0 --format=json
is "$(sed -n 's/^.*"framework":[[:space:]]*"\(.*\)",*$/\1/p' "$TMP/out" | head -n 1)" "tensorflow" \
    "a TensorFlow profile (no jit_ function): TensorFlow's"

done_testing

