#!/bin/sh
# cli-rmm.sh - RMM's memory resources from the command line, on RMM logs
# (t/data/rmm): cudaMallocAsync's pool against the runs measured on the H200,
# the freeing stream each log row names, compare's and plan's
# default resources for an RMM log, plan's smallest pool (worked by hand in
# the comments), and every resource replayed with --check (every invariant
# after every event) over random logs (t/data/gen/rmm-random.py) at three
# capacities.  t/policy-rmm.c holds the request-by-request rules.
. "${TOP_SRCDIR:-.}/t/lib.sh"

D=$TOP_SRCDIR/t/data/rmm

# streams.csv, a pool of 8 KiB: 1 KiB on stream 9 (at 0) and on stream 3 (at
# 1 KiB), 6 KiB on the default stream (at 2 KiB); the first freed on stream 3,
# the second on stream 9: each goes to its freeing stream's list.  1 KiB on the
# default stream then takes stream 9's list first (used first): the block at
# 1 KiB.  The 6 KiB freed; 7 KiB on stream 3: its own [0, 1 KiB) and the
# default's [2 KiB, 8 KiB) merged are not contiguous: out of memory at event 7.
gms run "$D/streams.csv" --policy 'rmm-pool initial=8KiB maximum=8KiB' --check --format=json
is "$rc $(json_in oom event) $(json_in oom size)" "0 7 7168" \
    "rmm-pool: a block goes to the list of the stream that freed it (runs out at event 7)"
sed 's/free,0x1000,1024,0x3/free,0x1000,1024,0x9/; s/free,0x2000,1024,0x9/free,0x2000,1024,0x3/' \
    "$D/streams.csv" >"$TMP/own.csv"
gms run "$TMP/own.csv" --policy 'rmm-pool initial=8KiB maximum=8KiB' --check --format=json
is "$rc $(json_top oom)" "0 null" \
    "rmm-pool: freed on their own streams, the 7 KiB fits at 1 KiB"

# ptds.csv is streams.csv on the per-thread default stream (0x2) of threads 9
# and 3: each thread's is a stream of its own, so it runs out at event 7 too
# (one stream for both would have merged the two 1 KiB blocks and fitted)
gms run "$D/ptds.csv" --policy 'rmm-pool initial=8KiB maximum=8KiB' --check --format=json
is "$rc $(json_in oom event)" "0 7" "rmm-pool: the per-thread default stream is a stream per thread"
gms convert "$D/ptds.csv" -
is "$(grep -o '"stream":[0-9]*' "$TMP/out" | sort -u | tr '\n' ' ')" \
    '"stream":0 "stream":1099511627778 "stream":2199023255554 ' \
    "convert: thread 9's per-thread stream is 2 + 2^40, thread 3's 2 + 2^41"
is "$(grep '"op":"free"' "$TMP/out" | grep -o '"stream":[0-9]*' | tr '\n' ' ')" \
    '"stream":2199023255554 "stream":1099511627778 "stream":0 ' "convert: each free keeps the stream it was logged on"
gms convert "$D/ptds.csv" "$TMP/ptds.json"
is "$rc $(tr -d ' \t\n' <"$TMP/ptds.json" | grep -o '"op":"free","id":[0-9]*,"stream":[0-9]*' | sed 's/.*://' | tr '\n' ' ')" \
    "0 2199023255554 1099511627778 0 " "convert to a JSON document: the same"

# compare on an RMM log: RMM's resources, with no-cache and ideal
gms compare "$D/plan.csv" --capacity=1GiB --format=json
is "$rc $(grep -o '"policy":[[:space:]]*"[a-z-]*"' "$TMP/out" | sed 's/.*"\([a-z-]*\)"$/\1/' | tr '\n' ' ')" \
    "0 no-cache ideal rmm-pool rmm-arena rmm-binning cuda-async " "compare: an RMM log's default resources"
cp "$D/plan.csv" "$TMP/log.txt"
gms compare "$TMP/log.txt" --capacity=1GiB --format=json
is "$rc $(grep -o '"policy":[[:space:]]*"[a-z-]*"' "$TMP/out" | sed 's/.*"\([a-z-]*\)"$/\1/' | tr '\n' ' ')" \
    "0 no-cache ideal rmm-pool rmm-arena rmm-binning cuda-async " "compare: an RMM log by its content, whatever its name"
gms compare "$D/plan.csv" --format=json
is "$rc $(grep -c '"needs":' "$TMP/out")" "0 3" \
    "compare: without a capacity the pool, arena and binning need one (half the GPU's free memory)"
gms compare "$D/plan.csv"
grep -q '^  rmm-pool  *-  needs --capacity or --gpu' "$TMP/out"; ok $? "compare: ... said in the table"
# a trace that says its GPU (150754820096 B): run makes the pool of half of it,
# which compare still counts as no result without a capacity
gms run "$D/gpu-known.json" --policy rmm-pool --format=json
is "$rc $(json_top peak_reserved)" "0 75377410048" "run: the default pool is half the trace's GPU"
gms compare "$D/gpu-known.json" --policy rmm-pool --policy caching --format=json
is "$rc $(grep -c '"needs":' "$TMP/out")" "0 1" \
    "compare: a pool sized from the recording GPU needs a capacity too"
check_fail 3 "gpumemsim: error: rmm-pool: its initial pool is half the GPU's free memory: give --capacity or --gpu, or --option initial=SIZE (an RMM log does not say its GPU)" \
    run "$D/plan.csv" --policy=rmm-pool

# plan.csv: 1000, 3000, the 1000 freed, 2000.  A pool of P that never grows:
# 1024 at 0, 3072 at 1024, then 2048 fits the 1 KiB hole only after the 3 KiB:
# P = 6144 (6143 - 255 leaves 1792 after it).  The arena: 1 MiB, its least.
# Binning: its bins' first chunks take 128 x (256 KiB + ... + 4 MiB) = 992 MiB
# of the pool at the start, and every request fits the 256 KiB bin.
gms plan "$D/plan.csv" --gpus=A100-40GB --format=json
is "$rc $(grep -o '"min_pool":[[:space:]]*[0-9]*' "$TMP/out" | sed 's/.*[[:space:]]//' | tr '\n' ' ')" \
    "0 6144 1048576 1040187392 " "plan: the smallest pool of rmm-pool, rmm-arena, rmm-binning, to 256 B"
is "$(grep -c '"pool_verified":[[:space:]]*true' "$TMP/out")" 3 "plan: each verified (256 B less fails)"
for spec in "rmm-pool initial=6144B maximum=6144B|null" "rmm-pool initial=5888B maximum=5888B|3" \
    "rmm-arena size=1MiB|null" "rmm-binning initial=992MiB maximum=992MiB|null" \
    "rmm-binning initial=1040187136B maximum=1040187136B|0"; do
	want=${spec##*|}
	pol=${spec%|*}
	gms run "$D/plan.csv" --policy "$pol" --format=json
	if [ "$want" = null ]; then got=$(json_top oom); else got=$(json_in oom event); fi
	is "$rc $got" "0 $want" "run --policy '$pol': out of memory at event $want (null: fits)"
done
# the capacity (RMM's default: a pool of half of it, growing): binning's
# 512 MiB bin chunk needs the pool to grow by 512 MiB beside 512 MiB
gms plan "$D/plan.csv" --policies=rmm-binning --gpus=A100-40GB --format=json
is "$(sed -n 's/^[[:space:]]*"min_capacity":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")" 1073741824 \
    "plan: rmm-binning's smallest capacity is 1 GiB"
gms plan "$D/plan.csv" --policies='rmm-pool initial=1MiB' --format=json
is "$rc $(grep -c '"min_pool"' "$TMP/out")" "0 0" "plan: a pool sized by the user is not searched"

# tune on plan.csv: the fixed pool of 6144 B reserves least; a pool growing
# from nothing takes 1024, max(3072, 1024) and max(2048, 4096): 8 KiB in three;
# the arena its 1 MiB; cudaMallocAsync a 32 MiB granule; cudaMalloc last
gms tune "$D/plan.csv" --format=json
is "$rc $(grep -o '"policy":[[:space:]]*"[^"]*"' "$TMP/out" | sed 's/^"policy":[[:space:]]*//' | tr '\n' ' ')" \
    '0 "rmm-pool initial=6144B maximum=6144B" "rmm-pool initial=0" "rmm-arena size=1048576B" "cuda-async" "no-cache" ' \
    "tune: RMM's settings on an RMM log, best first, cudaMalloc last"
is "$(grep -o '"peak_reserved":[[:space:]]*[0-9]*' "$TMP/out" | sed 's/.*[[:space:]]//' | head -n 4 | tr '\n' ' ')" \
    "6144 8192 1048576 33554432 " "tune: each one's peak reserved, worked by hand"
is "$(json_top min_pool) $(json_top min_arena) $(json_top fits)" "6144 1048576 true" \
    "tune: the smallest pool and arena, and that it fits"
gms tune "$D/plan.csv"
grep -q '^  rmm.reinitialize(pool_allocator=True, initial_pool_size=6144, maximum_pool_size=6144)$' "$TMP/out"
ok $? "tune: the winner as the Python line that sets it"
grep -q 'give --capacity or --gpu to try them' "$TMP/out"; ok $? "tune: the GPU-sized defaults need a capacity, said"
gms tune "$D/plan.csv" --capacity=1GiB --format=json
is "$rc $(grep -c '"policy":[[:space:]]*"rmm-\(pool\|arena\|binning\)"' "$TMP/out")" "0 3" \
    "tune with a capacity: RMM's defaults too (pool, arena, binning)"
# a log the replay refuses: said with the event, by tune as by plan
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,0.1,allocate,0x1000,100,0x0\n1,0.2,free,0x2000,100,0x0\n' >"$TMP/bad.csv"
check_fail 3 "gpumemsim: error: $TMP/bad.csv: event 1: free of unknown id 8192" tune "$TMP/bad.csv"
check_fail 3 "gpumemsim: error: $TMP/bad.csv: event 1: free of unknown id 8192" plan "$TMP/bad.csv"

# cudaMallocAsync competes with the top of its range: on random-1 its model
# reserves less than the smallest arena, its range's top more
gms tune "$D/random-1.csv" --capacity=16GiB --format=json
first=$(grep -o '"policy":[[:space:]]*"[^"]*"' "$TMP/out" | head -n 1 | sed 's/^"policy":[[:space:]]*//')
async_fit=$(grep -A3 '"policy":[[:space:]]*"cuda-async"' "$TMP/out" | sed -n 's/.*"peak_reserved":[[:space:]]*\([0-9]*\).*/\1/p')
first_peak=$(grep -o '"peak_reserved":[[:space:]]*[0-9]*' "$TMP/out" | head -n 1 | sed 's/.*[[:space:]]//')
test "$first" = '"rmm-arena size=2545298944B"' && test "$async_fit" -lt "$first_peak"
ok $? "tune: the smallest arena ($first_peak) wins over cuda-async's model ($async_fit), whose range reaches higher"
gms tune "$D/plan.csv" --capacity=4KiB --format=json
is "$rc $(json_top fits)" "1 false" "tune: exit 1 when no pool fits the capacity"

# cuda-async against the pools measured on the H200 (t/data/rmm/async/h200.txt):
# bound=low below and bound=high above every run, synchronized or not;
# bound=fit equal to the synchronized run but on the three fresh random logs,
# where it is within 4 granules (128 MiB)
G=33554432
while read -r name sync unsync; do
	case $name in '#'*) continue ;; esac
	f=$D/async/$name.csv.gz
	[ -f "$f" ] || f=$D/$name.csv
	for b in low fit high; do
		gms run "$f" --policy "cuda-async bound=$b" --check --format=json
		eval "$b=\$(json_top peak_reserved)"
	done
	test "$low" -le "$sync" && test "$low" -le "$unsync" && test "$high" -ge "$sync" &&
	    test "$high" -ge "$unsync"
	ok $? "cuda-async $name: measured $sync (synchronized) and $unsync within [$low, $high]"
	case $name in
	random-1[123])
		d=$((fit > sync ? fit - sync : sync - fit))
		test $((d % G)) = 0 && test $((d / G)) -le 4
		ok $? "cuda-async $name: fit $fit within 4 granules of $sync" ;;
	*)	is "$fit" "$sync" "cuda-async $name: fit is the synchronized run's peak" ;;
	esac
done <"$D/async/h200.txt"

# every invariant after every event, every resource, three capacities
for f in "$D/random-1.csv" "$D/random-2.csv"; do
	for cap in 16GiB 1GiB 300MiB; do
		bad=
		for pol in rmm-pool 'rmm-pool initial=0 maximum=256MiB' 'rmm-pool order=handle' \
		    rmm-arena rmm-binning 'rmm-binning upstream=cuda' cuda-async \
		    'cuda-async bound=low' 'cuda-async bound=high' \
		    'rmm-fixed block_size=64MiB blocks=4'; do
			gms run "$f" --policy "$pol" --capacity=$cap --check --format=json
			[ "$rc" = 0 ] || bad="$bad [$pol: $(head -n 1 "$TMP/err")]"
		done
		is "$bad" "" "$(basename "$f") at $cap: every resource keeps its invariants"
	done
done

# An RMM log through a pipe is an RMM log (issue 55: tune, compare and plan
# of standard input answered in PyTorch's terms): the same answer as the file.
RMMLOG=$TOP_SRCDIR/t/data/rmm-log.csv
cat "$RMMLOG" | "$GPUMEMSIM" tune - >"$TMP/out" 2>"$TMP/err"
is "$? $(grep -c '^  rmm.reinitialize(pool_allocator=True' "$TMP/out") $(grep -c PYTORCH_CUDA_ALLOC_CONF "$TMP/out")" "0 1 0" \
    "tune of an RMM log piped in: RMM's resources, no PyTorch setting"
for c in compare plan; do
	"$GPUMEMSIM" $c "$RMMLOG" --format=json 2>/dev/null | grep -v '"trace":' >"$TMP/want"
	cat "$RMMLOG" | "$GPUMEMSIM" $c - --format=json 2>"$TMP/err" | grep -v '"trace":' >"$TMP/got"
	cmp -s "$TMP/want" "$TMP/got"
	same=$?
	rmm=$(grep -c '"policy":.*"rmm-pool"' "$TMP/got")
	is "$same $([ "$rmm" -gt 0 ] && echo rmm) $(grep -c '"policy":.*"caching' "$TMP/got")" "0 rmm 0" \
	    "$c of an RMM log piped in: the file's answer, RMM's resources, not PyTorch's (the name aside)"
done

done_testing
