#!/bin/sh
# cli-share.sh - `gpumemsim share` (sim/cli/cmd-share.c, analysis/share*.c)
# from the command line: jobs from --job and from a scenario file, the
# report in text and JSON, --fail-on-oom, --timeline, --offsets reproducible
# by seed whatever the threads, --recommend checked, and bad jobs and
# scenarios refused with exit 3 and a message naming the job or the key.
# The numbers are t/share.c's seed story: two JAX growth jobs on 8.5 GiB,
# the first grows to 6845104128 bytes, the second dies at its event 0.
. "${TOP_SRCDIR:-.}/t/lib.sh"

mib=1048576
{
	echo '{"format":"gpumemsim-trace","version":1,"name":"a"}'
	i=0
	while [ $i -lt 17 ]; do
		echo "{\"op\":\"alloc\",\"id\":$((i + 1)),\"size\":$((235 * mib + mib / 2)),\"t_us\":$((i * 1000000))}"
		i=$((i + 1))
	done
	echo '{"op":"mark","label":"eval","t_us":100000000}'
	i=0
	while [ $i -lt 17 ]; do
		echo "{\"op\":\"free\",\"id\":$((i + 1)),\"t_us\":$((101000000 + i))}"
		i=$((i + 1))
	done
} >"$TMP/a.jsonl"
printf '%s\n' '{"format":"gpumemsim-trace","version":1,"name":"b"}' \
    '{"op":"alloc","id":1,"size":2684354560,"t_us":0}' \
    '{"op":"free","id":1,"t_us":1000000}' >"$TMP/b.jsonl"
A="$TMP/a.jsonl policy=grow-only flavor=jax"
B="$TMP/b.jsonl policy=grow-only flavor=jax start=20s"

gms share --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim share [options]" "share --help"

gms share --capacity=8.5GiB --context-overhead=0 --job "$A" --job "$B"
is "$rc" 0 "the story runs: exit 0"
grep -q '^  verdict: b runs out of memory$' "$TMP/out"; ok $? "text: the verdict names b"
grep -q '^  b ran out of memory at event 0 (pass 1) at 20.000 s, asking for 2.50 GiB; the card had 2.12 GiB free$' \
    "$TMP/out"; ok $? "text: where, when, what it asked and what was free"
grep -q '^    held then: a 6.38 GiB, b 0 B' "$TMP/out"; ok $? "text: what each job held"

gms share --capacity=8.5GiB --context-overhead=0 --job "$A" --job "$B" --fail-on-oom
is "$rc" 1 "--fail-on-oom: exit 1 when a job runs out"
gms share --capacity=8.5GiB --context-overhead=0 --job "$A limit=4.25GiB" \
    --job "$B limit=4.25GiB" --fail-on-oom
is "$rc" 0 "--fail-on-oom: exit 0 when, capped at 4.25 GiB each, both fit"

gms share --capacity=8.5GiB --context-overhead=0 --job "$A" --job "$B" --format=json
is "$(json_keys)" "schema capacity gpu context_overhead jobs ooms peak_used fits" "JSON: its keys"
is "$(json_top fits)" "false" "JSON: fits false"
is "$(json_top peak_used)" "6845104128" "JSON: the card's peak use"
is "$(grep -c '"oom":	null' "$TMP/out")" 1 "JSON: one job's oom is null"
grep -q '"gpu_free":	2281701376' "$TMP/out"; ok $? "JSON: the card's free bytes at the OOM"

# a scenario file, traces relative to it, the GPU from it
cat >"$TMP/mix.json" <<'EOF'
{"capacity": "8.5GiB", "context_overhead": 0,
 "jobs": [{"trace": "a.jsonl", "policy": "grow-only", "flavor": "jax"},
          {"trace": "b.jsonl", "policy": "grow-only", "flavor": "jax", "start": "20s"}]}
EOF
gms share --scenario "$TMP/mix.json" --format=json
is "$rc $(json_top fits) $(json_top peak_used)" "0 false 6845104128" \
    "--scenario: the same story, traces found beside the file"
gms share --scenario "$TMP/mix.json" --capacity=16GiB --format=json
is "$(json_top fits)" "true" "--capacity on the command line wins over the file's"

# the timeline: a column per job, the card's use and free memory
gms share --scenario "$TMP/mix.json" --timeline="$TMP/tl.csv"
is "$(head -n 1 "$TMP/tl.csv")" "t_us,a,b,used,free" "--timeline: its header"
grep -q '^16000000,6845104128,0,6845104128,2281701376$' "$TMP/tl.csv"
ok $? "--timeline: a's last region at 16 s, the card's use and free memory"

# the picture: both jobs in its key, the out-of-memory point, the timeline still written
if command -v gnuplot >/dev/null 2>&1; then
	gms share --scenario "$TMP/mix.json" --plot="$TMP/mix.svg" --timeline="$TMP/tl2.csv"
	is "$rc" 0 "--plot: exit 0"
	grep -q '<svg' "$TMP/mix.svg" && grep -q '>out of memory<' "$TMP/mix.svg" &&
	    grep -q '>the GPU, 8.50 GiB<' "$TMP/mix.svg"
	ok $? "--plot: an SVG with the GPU's line and the out-of-memory point in its key"
	cmp -s "$TMP/tl.csv" "$TMP/tl2.csv"; ok $? "--plot with --timeline: the same timeline"
else
	ok 0 "# SKIP gnuplot is not installed"
	ok 0 "# SKIP gnuplot is not installed"
	ok 0 "# SKIP gnuplot is not installed"
fi

# offsets: the same seed, the same answer, on one thread or two
gms share --scenario "$TMP/mix.json" --offsets=40 --seed=3 --jobs=1 --format=json
cp "$TMP/out" "$TMP/one"
gms share --scenario "$TMP/mix.json" --offsets=40 --seed=3 --jobs=2 --format=json
cmp -s "$TMP/one" "$TMP/out"; ok $? "--offsets: seed 3 gives the same on 1 and 2 threads"
is "$(json_in offsets samples) $(json_in offsets seed)" "40 3" "--offsets: samples and seed"
gms share --scenario "$TMP/mix.json" --offsets=40 --seed=3
grep -q '^  start offsets: 40 samples (seed 3)' "$TMP/out"; ok $? "--offsets: said in text"

# recommend: limits that work, checked
gms share --scenario "$TMP/mix.json" --recommend
grep -q '^  checked: with these limits no job runs out of memory$' "$TMP/out"
ok $? "--recommend: a split is found and checked"
grep -q 'XLA_PYTHON_CLIENT_MEM_FRACTION=0\.[0-9]\{4\}$' "$TMP/out"
ok $? "--recommend: in JAX's own terms"
gms share --capacity=4GiB --context-overhead=0 --job "$A" --job "$B" --recommend \
    --format=json
grep -q '"fits":	false' "$TMP/out"; ok $? "--recommend: none on 4 GiB (a alone needs 4.23)"

# bad jobs and scenarios: exit 3, the job or key named
check_fail 2 "gpumemsim: error: share needs two jobs or more: give --job 'TRACE key=value ...' for each, or --scenario FILE.json" \
    share --capacity=8GB --job "$A"
check_fail 2 "gpumemsim: error: share needs the GPU: give --gpu=MODEL or --capacity=SIZE (its whole memory), or \"gpu\" or \"capacity\" in the scenario" \
    share --job "$A" --job "$B"
check_fail 3 "gpumemsim: error: --job 2: start='soon' is not a time (30s, 1.5ms, 250us, 2m) or event:N" \
    share --capacity=8GB --job "$A" --job "$TMP/b.jsonl start=soon"
check_fail 3 "gpumemsim: error: --job 1: 'grow-only' is not key=value (one trace per --job, then its settings)" \
    share --capacity=8GB --job "$TMP/a.jsonl grow-only" --job "$B"
check_fail 3 "gpumemsim: error: --job 1: limit= is BFC's memory_limit (grow-only, preallocate); for caching give fraction= (set_per_process_memory_fraction)" \
    share --capacity=8GB --job "$TMP/a.jsonl limit=4GB" --job "$B"
check_fail 3 "gpumemsim: error: every job repeats until the others end: give one of them a number of passes (repeat=N)" \
    share --capacity=8GB --job "$A repeat=until-end" --job "$B repeat=until-end"
check_fail 3 "gpumemsim: error: --job 2: fraction='2' is not a fraction of the card above 0, at most 1" \
    share --capacity=8GB --job "$A" --job "$B fraction=2"
printf '{"jobs":[\n{"trace":"a.jsonl",}]}' >"$TMP/bad.json"
check_fail 3 "gpumemsim: error: $TMP/bad.json:2:21: invalid JSON" share --scenario "$TMP/bad.json"
echo '{"jobs":[{"trace":"a.jsonl"},{"trace":"b.jsonl","repeat":0}],"capacity":"8GB"}' >"$TMP/bad.json"
check_fail 3 "gpumemsim: error: $TMP/bad.json: jobs[1]: repeat='0' is not a number of passes (1 or more) or until-end" \
    share --scenario "$TMP/bad.json"
echo '{"jobs":[{"trace":"a.jsonl"},{"trace":"b.jsonl"}],"capacity":"8GB","gpus":1}' >"$TMP/bad.json"
check_fail 3 "gpumemsim: error: $TMP/bad.json: unknown key \"gpus\" (a scenario has: jobs, gpu, capacity, context_overhead)" \
    share --scenario "$TMP/bad.json"
echo '{"jobs":[{"trace":"a.jsonl","polcy":"x"},{"trace":"b.jsonl"}],"capacity":"8GB"}' >"$TMP/bad.json"
check_fail 3 "gpumemsim: error: $TMP/bad.json: jobs[0]: policy 'caching' has no option 'polcy' (it has: alloc_conf) (a job also takes: policy, name, start, repeat, duration, limit, fraction, cc, after, device)" \
    share --scenario "$TMP/bad.json"
printf '%s\n' '{"format":"gpumemsim-trace","version":1}' '{"op":"alloc","id":1,"size":5}' >"$TMP/untimed.jsonl"
check_fail 3 "gpumemsim: error: job untimed: $TMP/untimed.jsonl has no times: give duration= (one pass of the trace, e.g. duration=60s) to spread its events over" \
    share --capacity=8GB --job "$A" --job "$TMP/untimed.jsonl"
gms share --capacity=8GB --job "$A" --job "$TMP/untimed.jsonl duration=10s"
is "$rc" 0 "... and with duration= it runs"
# no scenario runs for ever: a job repeating until a million passes of a
# 104 s job end, 1 us a pass, would be 10^14 passes
check_fail 3 "gpumemsim: error: the scenario would replay more than 10^10 events (job untimed: 103970604000001 passes of 1 events); give fewer passes or a longer duration" \
    share --capacity=8GB --job "$A repeat=1000000" --job "$TMP/untimed.jsonl repeat=until-end duration=1us"

# after=hold: a job that is done but stays alive keeps what it reserved.  The
# outcomes of real PyTorch and JAX processes on the H200 doing so
# (replay/results-h200/share-hold.json, replay/RESULTS.md) are the expected.
H=$TOP_SRCDIR/replay/results-h200/share-hold.json
for n in hold-caching-exit hold-caching-hold hold-jax-exit hold-jax-hold; do
	real=$(sed -n "/^ \"$n\": {/,/^ }/p" "$H" | sed -n 's/^ *"outcome": "\([a-z]*\)",*/\1/p' | tr '\n' ' ')
	gms share --scenario "$TOP_SRCDIR/replay/scenarios/$n.json" --format=json
	sim=$(sed -n "s/^$TAB$TAB$TAB\"oom\":$TAB\(.\).*/\1/p" "$TMP/out" | sed 's/n/fits/; s/{/oom/' | tr '\n' ' ')
	is "$rc $sim" "0 $real" "$n: each job's outcome is what the real processes did ($real)"
done
gms share --scenario "$TOP_SRCDIR/replay/scenarios/hold-caching-hold.json"
grep -q '^  first   caching     0.000 s           -       6.00 GiB  done: 1 pass at 0.500 s, held its memory to 1.000 s$' "$TMP/out"
ok $? "hold: the table says when the work was done and until when the memory was held"
grep -q '^    held then: first 6.00 GiB, second 0 B' "$TMP/out"
ok $? "... and the second job's OOM names what the first still held"
gms share --scenario "$TOP_SRCDIR/replay/scenarios/hold-caching-hold.json" --format=json
is "$(sed -n "s/^$TAB$TAB$TAB\"\(after\|done_us\|end_us\)\":$TAB\([^,]*\),*/\1=\2/p" "$TMP/out" | tr '\n' ' ')" \
    'end_us=1000000 after="hold" done_us=500000 end_us=1000000 after="exit" done_us=1000000 ' \
    "JSON: after, done_us and end_us of each job"
check_fail 3 "gpumemsim: error: --job 1: after='stay' is not exit (the process ends, its memory back) or hold (it stays alive holding what it reserved until the scenario ends)" \
    share --capacity=8GB --job "$A after=stay" --job "$A"
# The seeds' story: two TensorFlow growth jobs on an 8 GiB card. The classic
# fix, 4 GiB each, forgets each process's CUDA context: said beside the
# limits that work (issue 54, item 7)
J="$TOP_SRCDIR/traces/resnet50-train-b32.json policy=grow-only flavor=tensorflow"
gms share --gpu=8GiB --job "$J" --job "$J" --recommend
is "$(grep -c '^  not 4.00 GiB each (the card split evenly: resnet50-train-b32-2 runs out at event 2359): each process.s CUDA context (512.00 MiB) comes on top of its limit, so 2 limits and 2 contexts would need 9.00 GiB of 8.00 GiB$' "$TMP/out")" 1 \
    "share --recommend: why 4 GiB each does not do on 8 GiB (the second job runs out, as without limits)"
gms share --gpu=8GiB --job "$J" --job "$J" --recommend --format=json
is "$(sed -n 's/^[[:space:]]*"even_split_limit":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out") $(sed -n 's/^[[:space:]]*"even_split_fits":[[:space:]]*\([a-z]*\),*$/\1/p' "$TMP/out")" \
    "4294967296 false" "... and in JSON"
gms share --gpu=24GiB --job "$J" --job "$J" --recommend --format=json
is "$(grep -c even_split "$TMP/out")" 0 "... not said where the card split evenly fits both (24 GiB)"

done_testing

