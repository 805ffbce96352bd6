#!/bin/sh
# t/cli-snapshots.sh - PyTorch snapshots of every shape users have (issue 11):
# the state at dump as Python's pickle module reads it (t/data/gen/dump_facts.py
# wrote t/data/snapshots/dump-facts.txt) must be the reader's; on every
# snapshot a run may never peak below what the dump shows; and the shapes of
# t/data/shapes (t/data/gen/shapes.py) read with hand-worked numbers.
# Exercises traces/trace-pickle.c and traces/pickle.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

DATA=$TOP_SRCDIR/t/data
SHAPES=$DATA/shapes

# header FILE: the converted trace's header line
header() {
	"$GPUMEMSIM" convert "$1" - 2>/dev/null | head -n 1
}
# num KEY: a number after "KEY": in stdin
num() {
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -n 1
}

while read -r name segs reserved active requested largest; do
	f=
	for d in "$DATA/snapshots" "$TRACES" "$SHAPES" "$DATA/gpu"; do
		[ -f "$d/$name.pickle" ] && f=$d/$name.pickle
	done
	h=$(header "$f")
	dump=$(printf '%s' "$h" | sed -n 's/.*"dump":{"segments":\([0-9]*\),"reserved":\([0-9]*\),"active":\([0-9]*\),"requested":\([0-9]*\),"largest_free":\([0-9]*\)}.*/\1 \2 \3 \4 \5/p')
	is "$dump" "$segs $reserved $active $requested $largest" \
	    "$name: the state at dump is what Python reads (segments, reserved, active, asked, largest free)"
	for placement in model recorded; do
		[ "$segs" -eq 0 ] && [ $placement = recorded ] && continue
		gms run "$f" --placement=$placement --format=json
		pr=$(json_top peak_reserved)
		pl=$(json_top peak_live)
		test "$rc" -eq 0 && test "${pr:-0}" -ge "$reserved" && test "${pl:-0}" -ge "$requested"
		ok $? "$name ($placement): peak reserved $pr >= $reserved at dump, peak live $pl >= $requested"
	done
done <"$DATA/snapshots/dump-facts.txt"

## PyTorch 2.0: blocks without addresses, requests in "history", no trace.
h=$(header "$SHAPES/v20.pickle")
case $h in *'"history":false'*'"starts_mid_run":true'*) ok 0 "v20: no history, starts mid-run" ;;
*) ok 1 "v20: no history, starts mid-run"; echo "# $h" ;; esac
"$GPUMEMSIM" convert "$SHAPES/v20.pickle" "$TMP/v20.jsonl"
is "$(sed -n 3p "$TMP/v20.jsonl")" \
    '{"op":"alloc","id":1,"size":4000000,"stream":0,"addr":139637976727552,"at":"model.py:10 forward","stack":["model.py:10 forward"],"seeded":true}' \
    "v20: the first block at the segment's address, asked 4000000 (history), its site"
is "$(sed -n 4p "$TMP/v20.jsonl" | num addr)" $((139637976727552 + 6 * 1048576)) \
    "v20: the second block after 4 + 2 MiB of blocks before it"
gms run "$SHAPES/v20.pickle" --format=json
# 4000000 B and 8000000 B are large requests under 10 MiB: one 20 MiB segment holds both
is "$(json_top peak_live) $(json_top peak_reserved) $(json_top device_allocs)" "12000000 20971520 1" \
    "v20: 12000000 B live, in one 20 MiB segment"
gms run "$SHAPES/legacy.pickle" --format=json
is "$(json_top peak_live) $(json_top peak_reserved)" "12000000 20971520" \
    "a bare list of segments (torch.cuda.memory_snapshot()) reads as the same state"

## The default stacks: C++ frames with unknown lines (2^64 - 1), protocol 5.
"$GPUMEMSIM" convert "$SHAPES/stacks.pickle" "$TMP/stacks.jsonl"
is "$?" 0 "a 9-byte LONG1 (2^64 - 1) is read, as Python reads it"
is "$(grep '"op":"alloc","id":1,' "$TMP/stacks.jsonl" | sed 's/.*"at":"\([^"]*\)".*/\1/')" "train.py:42 forward" \
    "site: the user's Python frame, not the unwinder nor torch/nn/functional.py"
is "$(grep '"op":"alloc","id":2,' "$TMP/stacks.jsonl" | sed 's/.*"at":"\([^"]*\)".*/\1/')" \
    "MmBackward0 (backward)" \
    "site of a backward-thread block (C++ frames only): the autograd node that ran"
case $(header "$SHAPES/stacks.pickle") in *'"pickle_protocol":5'*) ok 0 "protocol 5" ;; *) ok 1 "protocol 5" ;; esac

is "$(grep '"op":"alloc","id":3,' "$TMP/stacks.jsonl" | sed 's/.*"at":"\([^"]*\)".*/\1/')" \
    "at::cuda::getCurrentCUDABlasHandle" \
    "site with C++ frames only and no autograd node: the first past the plumbing, without its arguments"

is "$(grep '"op":"alloc","id":4,' "$TMP/stacks.jsonl" | sed 's/.*"at":"\([^"]*\)".*/\1/')" \
    "gen.py <module>" "a frame whose line is 0 (unknown) is shown without it"

## A real snapshot with _record_memory_history()'s defaults (H200, PyTorch 2.11):
## every allocation named, by its Python frame when it has one.
GPU=$DATA/gpu
"$GPUMEMSIM" convert "$GPU/default-stacks.pickle" "$TMP/gpu.jsonl"
want_allocs=$(sed -n 's/.*"allocs": \([0-9]*\).*/\1/p' "$GPU/default.facts.json")
want_py=$(sed -n 's/.*"allocs_with_python_frames": \([0-9]*\).*/\1/p' "$GPU/default.facts.json")
is "$(grep -c '"op":"alloc"' "$TMP/gpu.jsonl")" "$want_allocs" "default stacks: every alloc read ($want_allocs)"
is "$(grep '"op":"alloc"' "$TMP/gpu.jsonl" | grep -c '"at":"[^"]*\.py:[0-9]* ')" "$want_py" \
    "the $want_py allocations with Python frames are named by a Python frame"
is "$(grep '"op":"alloc"' "$TMP/gpu.jsonl" | grep -vc '"at":"')" 0 "every allocation has a site"
is "$(grep '"op":"alloc"' "$TMP/gpu.jsonl" | grep -c 'unwind\|CUDACachingAllocator\|"at":"??')" 0 \
    "no site is the unwinder, the allocator or an unknown file"

## PyTorch profiler (Kineto) traces: [memory] events of the busiest CUDA device.
gms run "$SHAPES/kineto.json" --format=json
is "$(json_top events) $(json_top peak_live) $(json_top peak_reserved) $(json_in observed matches)" \
    "5 6144 2097152 true" "kineto: device 1's five events, 6144 B live at most, PyTorch's 2 MiB reproduced"
gms info "$SHAPES/kineto.json" --device=0 --format=json
is "$(json_top events) $(json_top peak_live)" "1 512" "kineto --device=0: its one event"
gms info "$SHAPES/kineto.json" --device=5
is "$rc $(cat "$TMP/err")" "3 gpumemsim: error: $SHAPES/kineto.json: no [memory] events of GPU device 5 in this profile" \
    "kineto --device of no events: refused"
read -r kev kseeds kpeak kbefore ktotal <"$GPU/profile.expect.txt"
gms run "$GPU/profile.pt.trace.json" --format=json
is "$(json_top events) $(json_top peak_allocated) $(json_in incomplete live_before)" \
    "$((kev + kseeds)) $kpeak $kbefore" \
    "a real profile (H200): $kev events and $kseeds blocks from before it, Total Allocated's peak $kpeak, $kbefore B live before it, as Python reads them in the profiler's order"
is "$(cat "$TMP/err")" "" "... and no free is of a block it does not know: those from before are seeded"
"$GPUMEMSIM" convert "$GPU/profile.pt.trace.json" - | head -n 1 | grep -q "\"total_bytes\":$ktotal"
ok $? "the device's memory from deviceProperties: $ktotal B"

# A server that empties the cache after a request: torch.cuda.empty_cache()
# makes no [memory] event, but Total Reserved falls (20 MiB to the 2 MiB of
# the next request's small segment); the replay empties the cache there, so
# it reserves PyTorch's 20 MiB at most, not 22, and gives the segment back.
mem() {	# mem TS BYTES ADDR TOTAL_ALLOCATED TOTAL_RESERVED
	printf '{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":%s,"args":{"Device Type":1,"Device Id":0,"Addr":%s,"Bytes":%s,"Total Allocated":%s,"Total Reserved":%s}}' \
	    "$1" "$3" "$2" "$4" "$5"
}
{
	printf '{"schemaVersion":1,"traceEvents":['
	mem 1 20971520 139637985116160 20971520 20971520; printf ','
	mem 2 -20971520 139637985116160 0 20971520; printf ','
	mem 3 512 139637976727552 512 2097152; printf ','
	mem 4 -512 139637976727552 0 2097152
	printf ']}\n'
} >"$TMP/empty.pt.trace.json"
gms run "$TMP/empty.pt.trace.json" --format=json
is "$(json_top events) $(json_top peak_reserved) $(json_top device_frees) $(json_in observed matches)" \
    "5 20971520 1 true" "kineto: where Total Reserved falls the cache was emptied: 20 MiB at most, as PyTorch reserved"
"$GPUMEMSIM" convert "$TMP/empty.pt.trace.json" - | sed -n '1s/.*"empty_caches":\([0-9]*\).*/\1/p;4p' | tr '\n' ' ' >"$TMP/got"
is "$(cat "$TMP/got")" '1 {"op":"empty_cache","t_us":3} ' "... one empty_cache, before the event Total Reserved fell at"

## Recording started mid-run: the untouched 20 MiB segment is seeded.
h=$(header "$SHAPES/midrun.pickle")
is "$(printf '%s' "$h" | sed -n 's/.*"seeded":{"allocs":\([0-9]*\),"segments":\([0-9]*\).*/\1 \2/p')" "1 1" \
    "midrun: one block and one segment from before the first entry"
gms run "$SHAPES/midrun.pickle" --format=json
is "$(json_top peak_reserved) $(json_top peak_live)" "$((22 * 1048576)) 3005000" \
    "midrun: the old 20 MiB segment and the trace's 2 MiB one; 3000000 + 5000 B live"

## No history: the live set at dump.
gms run "$SHAPES/nohistory.pickle" --format=json
is "$rc $(json_top events) $(json_top peak_live) $(json_top peak_reserved)" "0 2 3000000 20971520" \
    "no history: the state at dump is read (a 20 MiB segment, 3000000 B live)"
gms info "$SHAPES/nohistory.pickle"
grep -q 'mid-run' "$TMP/out"; ok $? "info says it starts mid-run"
gms run "$SHAPES/nohistory.pickle"
grep -q '^  at dump PyTorch held 20.00 MiB reserved, 3.00 MiB in blocks (fragmentation 85.0%), the largest free block 17.00 MiB$' "$TMP/out"
ok $? "no history: the state at dump as PyTorch held it (20 MiB, a 3 MiB block, 17 MiB free)"

## Where the recorded job ran out: RMM's "allocate failure" row (its 5th, event 4).
gms run "$DATA/rmm-log.csv" --format=json
is "$(sed -n '/"recorded_oom":/,/}/p' "$TMP/out" | sed -n 's/.*"\(event\|size\|count\)":[[:space:]]*\([0-9]*\).*/\1=\2/p' | tr '\n' ' ')" \
    "event=4 size=80000000000 count=1 " "run JSON: the recorded job ran out at event 4, asking for 80000000000 B"
gms run "$DATA/rmm-log.csv"
grep -q '^RECORDED OUT OF MEMORY: the job itself ran out at event 4, asking for 74.51 GiB (80000000000 B)$' "$TMP/out"
ok $? "run text says where the recorded job ran out"

## Standard input, any format (gzip'd too).
"$GPUMEMSIM" run - --format=json <"$TRACES/resnet50-train-b32.json" >"$TMP/out" 2>"$TMP/err"
is "$? $(json_top peak_reserved)" "0 3703570432" "run - reads a JSON document from standard input"
gzip -c "$DATA/rmm-log.csv" | "$GPUMEMSIM" info - --format=json >"$TMP/out" 2>"$TMP/err"
is "$? $(json_top events)" "0 9" "info - reads a gzip'd RMM log from standard input"
"$GPUMEMSIM" run - --format=json <"$SHAPES/v20.pickle" >"$TMP/out" 2>"$TMP/err"
is "$? $(json_top peak_live)" "0 12000000" "run - reads a snapshot pickle from standard input"

## torch.cuda.empty_cache(): an op of the native format, inferred in snapshots.
# 25 MiB asked twice, freed and the cache emptied between: the caching policy
# reserves a 26 MiB segment (a large request rounds to 2 MiB), gives it back
# at empty_cache, and reserves it again; without the call it reuses it.
H='{"format":"gpumemsim-trace","version":1'
printf '%s}\n{"op":"alloc","id":1,"size":26214400}\n{"op":"free","id":1}\n{"op":"empty_cache"}\n{"op":"alloc","id":2,"size":26214400}\n' "$H" >"$TMP/ec.jsonl"
gms run "$TMP/ec.jsonl" --format=json
is "$(json_top device_allocs) $(json_top device_frees) $(json_top peak_reserved)" "2 1 27262976" \
    "caching: empty_cache releases the cached 26 MiB segment, the next request reserves it again"
grep -v empty_cache "$TMP/ec.jsonl" >"$TMP/noec.jsonl"
gms run "$TMP/noec.jsonl" --format=json
is "$(json_top device_allocs) $(json_top device_frees)" "1 0" "without it the segment is reused"
gms run "$TMP/ec.jsonl" --policy=grow-only
grep -q "the trace calls torch.cuda.empty_cache() 1 time; grow-only has no such call (its framework keeps what it reserved): ignored" "$TMP/out"
ok $? "grow-only (BFC) says once that it has no such call"
"$GPUMEMSIM" convert "$TMP/ec.jsonl" - | grep -c '^{"op":"empty_cache"}$' >"$TMP/n"
is "$(cat "$TMP/n")" 1 "convert writes it back"
# The H200 snapshot: two tensors freed, empty_cache, a new tensor (t/data/gpu/emptycache.facts.json).
h=$(header "$GPU/emptycache.pickle")
case $h in *'"empty_cache_inferred":1'*) ok 0 "the snapshot's segment_free outside an OOM is an empty_cache" ;;
*) ok 1 "the snapshot's segment_free outside an OOM is an empty_cache" ;; esac
gms run "$GPU/emptycache.pickle" --format=json
want_max=$(sed -n 's/.*"max_reserved": \([0-9]*\).*/\1/p' "$GPU/emptycache.facts.json")
is "$(json_top peak_reserved) $(json_top device_frees) $(json_in observed matches)" "$want_max 1 true" \
    "with it, the simulation equals PyTorch: peak $want_max, one cudaFree"

# An OOM retry (a segment released, a larger one reserved right after) is not an empty_cache.
h=$(header "$SHAPES/retry.pickle")
case $h in *empty_cache_inferred*) ok 1 "an OOM retry's release is no empty_cache" ;;
*) ok 0 "an OOM retry's release is no empty_cache" ;; esac
"$GPUMEMSIM" convert "$SHAPES/retry.pickle" - | grep -c '"op":"empty_cache"' >"$TMP/n"
is "$(cat "$TMP/n")" 0 "... and no empty_cache event is made up"

## roundup_power2_divisions as PyTorch 2.11 reads it: '>' applies after the last
## listed interval (measured on the H200: t/data/roundup-h200.txt).
printf '%s}\n{"op":"alloc","id":1,"size":314572800}\n{"op":"alloc","id":2,"size":104857600}\n' "$H" >"$TMP/ru.jsonl"
while read -r bytes conf; do
	case $bytes in '#'*) continue ;; esac
	[ "$conf" = - ] && conf=
	gms run "$TMP/ru.jsonl" --alloc-conf="$conf" --format=json
	is "$(json_top peak_allocated)" "$bytes" "300 + 100 MiB under '${conf:-the default}': PyTorch's $bytes B allocated"
done <"$DATA/roundup-h200.txt"

## Every report says, once, that an input is incomplete (text and JSON).
MID=$SHAPES/midrun.pickle
gms run "$MID"
is "$(grep -c '^STARTS MID-RUN: midrun was recorded after the job began; 1 block and 1 segment live before its first event are seeded from the dump, so peaks are lower bounds$' "$TMP/out")" 1 \
    "run: one line says it starts mid-run, and what was seeded"
gms run "$MID" --format=json
is "$(json_in incomplete history) $(json_in incomplete seeded_allocs) $(json_in incomplete seeded_segments)" \
    "true 1 1" "run JSON: incomplete, with history, 1 block and 1 segment seeded"
gms run "$SHAPES/nohistory.pickle" --format=json
is "$(json_in incomplete history)" "false" "run JSON: a snapshot without history says so"
gms run "$SHAPES/nohistory.pickle"
grep -q '^NO HISTORY: nohistory holds only the state at dump (1 block in 1 segment)' "$TMP/out"
ok $? "run text: no history, only the state at dump"
gms run "$TRACES/resnet50-train-b32.json" --format=json
is "$(json_top incomplete)" "null" "a whole trace: incomplete is null"
gms compare "$MID" --format=json
is "$(grep -c '"incomplete"' "$TMP/out") $(json_in incomplete starts_mid_run)" "1 true" \
    "compare JSON: said once, not per policy"
gms compare "$MID"
is "$(grep -c '^STARTS MID-RUN' "$TMP/out")" 1 "compare text: said once"
gms check "$MID" --max-fragmentation=1 --format=tap
grep -q '^# STARTS MID-RUN' "$TMP/out"; ok $? "check TAP: a comment says it"
gms check "$MID" --max-fragmentation=1 --format=json
is "$(json_in incomplete starts_mid_run)" true "check JSON: incomplete"
gms plan "$MID"
grep -q '^STARTS MID-RUN' "$TMP/out"; ok $? "plan text says it"
gms tune "$MID" --format=json
is "$(json_in incomplete seeded_segments)" 1 "tune JSON: incomplete"

# A profile recorded on an AMD GPU: ROCm's PyTorch writes "Device Type" 6
# (HIP) and runs the same caching allocator (issue 54: refused as a profile
# without memory events). The real profile of kineto-whole, as ROCm writes
# it: the same run, and info says the device kind.
K=$TOP_SRCDIR/t/data/users/kineto-whole.pt.trace.json.gz
gzip -dc "$K" | sed 's/"Device Type": 1,/"Device Type": 6,/g' >"$TMP/rocm.pt.trace.json"
[ "$(grep -c '"Device Type": 6,' "$TMP/rocm.pt.trace.json")" -gt 0 ] || echo "# the sed did not apply"
gms run "$K" --format=json
want=$(grep -v '"trace":\|"path":' "$TMP/out")
peak=$(json_top peak_reserved)
gms run "$TMP/rocm.pt.trace.json" --format=json
is "$rc $(json_top peak_reserved)" "0 $peak" "a ROCm profile (Device Type 6): read, its peak the CUDA one's ($peak B)"
is "$(grep -v '"trace":\|"path":' "$TMP/out")" "$want" "... the same run as the CUDA one"
gms info "$TMP/rocm.pt.trace.json"
is "$(sed -n 3p "$TMP/out")" "  device          HIP (ROCm) device 0" "... info says the device kind"
gms info "$K"
is "$(sed -n 3p "$TMP/out")" "  device          CUDA device 0" "... and CUDA for the CUDA one"

done_testing

