#!/bin/sh
# cli-plan.sh - `gpumemsim plan` (sim/cli/cmd-plan.c, analysis/plan.c) against
# PyTorch's real runs under limits (t/data/pytorch.json): ResNet-50 ran out at
# 3150157824 bytes and fitted at 3288510976; GPT-2 ran out at 15863924224 and
# fitted at 16433283071.  The smallest capacity found must lie between, fit,
# and 2 MiB less must not.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json
GPT2=$TRACES/gpt2-train-varlen-bf16.jsonl.gz

gms plan --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim plan [options] <trace> | --ranks <trace|dir>..." "plan --help"

# min_capacity of a one-policy plan, from the JSON in $TMP/out.
min_capacity() {
	sed -n 's/^[[:space:]]*"min_capacity":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out" | head -n 1
}

for spec in "$RESNET 3150157824 3288510976" "$GPT2 15863924224 16433283071"; do
	set -- $spec
	name=$(basename "$1")
	gms plan "$1" --policies=caching --gpus=H200 --format=json
	is "$rc" 0 "plan $name exits 0"
	min=$(min_capacity)
	test -n "$min" && test "$min" -gt "$2" && test "$min" -le "$3"
	ok $? "$name: the smallest capacity ($min) is above where PyTorch ran out ($2) and at most where it fitted ($3)"
	gms run "$1" --capacity="${min}B" --format=json
	grep -q '"oom":[[:space:]]*null' "$TMP/out"; ok $? "$name: a run in that capacity fits"
	gms run "$1" --capacity=$((min - 2097152))B --format=json
	grep -q '"oom":[[:space:]]*{' "$TMP/out"; ok $? "$name: 2 MiB less runs out"
done

gms plan "$RESNET" --policies=caching --format=json
is "$(sed -n 's/^[[:space:]]*"unbounded_peak_reserved":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")" 3703570432 \
    "ResNet-50 unbounded: PyTorch's uncapped peak reserved"
is "$(json_top peak_live)" 3127304348 "the live peak is PyTorch's peak requested"

# The GPU table: T4 (15828254720 B, less 512 MiB of context) fits ResNet-50,
# and GPT-2's 16433283072 uncapped peak does not fit it.
gms plan "$GPT2" --policies=caching --gpus=T4,H200
is "$rc" 0 "plan with a GPU table exits 0"
grep -q '^  T4  .*OOM @12772$' "$TMP/out"; ok $? "GPT-2 runs out on a T4 (text: the event)"
gms plan "$GPT2" --policies=caching --gpus=T4 --format=json
t4oom=$(sed -n 's/.*"oom_event":[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/out" | head -n 1)
gms run "$GPT2" --policy=caching --gpu=T4 --format=json
is "$t4oom" "$(json_in oom event)" "... event 12772, the one run --gpu=T4 names"
gms plan "$GPT2" --policies=caching --gpus=T4,H200
grep -q '^  H200  .*fits +' "$TMP/out"; ok $? "and fits on an H200"
gms plan "$RESNET" --policies=caching --gpus=T4
grep -q '^  T4  .*fits +10.79 GiB' "$TMP/out"
ok $? "ResNet-50 on a T4: 15291383808 - 3703570432 B = 10.79 GiB of headroom"

gms plan "$RESNET" --policies=caching,grow-only --format=json --jobs=1
cp "$TMP/out" "$TMP/one"
gms plan "$RESNET" --policies=caching,grow-only --format=json --jobs=3
cmp -s "$TMP/one" "$TMP/out"; ok $? "the same plan on 1 or 3 threads"

# Every policy's minimum, worked by hand (issue 12) on 3 MiB, 5 MiB, free the
# 3, 4 MiB (peak live 9 MiB), at the plan's 2 MiB resolution:
#   caching      20 MiB: requests under 10 MiB share one 20 MiB large segment
#   grow-only    10 MiB: regions 4 + 8 MiB uncapped; under 10 MiB the second is
#                cut to 6 MiB, which holds 5; at 8 MiB only 4 are left: OOM
#   preallocate  14 MiB: one pool split [3|5|6]; the 4 MiB takes the 6; at 12
#                MiB the 9 MiB rest is not split for 5 and the 3 MiB hole is small
#   no-cache     10 MiB: the driver backs 4 + 6, then 6 + 4 MiB
#   ideal        10 MiB: 9 MiB live, rounded up to the 2 MiB resolution
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":3145728}\n{"op":"alloc","id":2,"size":5242880}\n{"op":"free","id":1}\n{"op":"alloc","id":3,"size":4194304}\n{"op":"free","id":2}\n{"op":"free","id":3}\n' \
    >"$TMP/small.jsonl"
gms plan "$TMP/small.jsonl" --format=json
is "$(sed -n 's/^[[:space:]]*"min_capacity":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out" | tr '\n' ' ')" \
    "20971520 10485760 14680064 10485760 10485760 " \
    "plan: each policy's minimum, as worked by hand (caching, grow-only, preallocate, no-cache, ideal)"
is "$(grep -c '"verified":[[:space:]]*true' "$TMP/out")" 5 "plan: every minimum verified by a run"
for p in caching grow-only preallocate no-cache ideal; do
	gms plan "$TMP/small.jsonl" --policies=$p --format=json
	m=$(min_capacity)
	gms run "$TMP/small.jsonl" --policy=$p --capacity="${m}B" --format=json
	a=$(json_top oom)
	gms run "$TMP/small.jsonl" --policy=$p --capacity=$((m - 2097152))B --format=json
	is "$a $(grep -c '"oom":[[:space:]]*{' "$TMP/out")" "null 1" "plan: $p fits in $m B, not in 2 MiB less"
done
# A fit that is not monotone: preallocate on synth-thresholds-6 fits at its
# minimum but runs out at a larger capacity, and plan says where.
gms plan "$TRACES/synth-thresholds-6.json" --policies=preallocate --format=json
m=$(min_capacity)
above=$(sed -n '/"fails_above_min"/s/.*\[\([0-9]*\).*/\1/p' "$TMP/out")
test -n "$above" && test "$above" -gt "$m"; ok $? "preallocate: fails above its minimum ($above > $m)"
gms run "$TRACES/synth-thresholds-6.json" --policy=preallocate --capacity="${above}B" --format=json
grep -q '"oom":[[:space:]]*{' "$TMP/out"; ok $? "... and a run at $above B does run out"
gms run "$TRACES/synth-thresholds-6.json" --policy=preallocate --capacity="${m}B" --format=json
grep -q '"oom":[[:space:]]*null' "$TMP/out"; ok $? "... while one at $m B fits"

check_fail 3 "gpumemsim: error: --gpus: unknown GPU 'X9000' (known: T4, A10, A10G, L4, RTX3090, RTX4090, V100-16GB, V100-32GB, RTX5090, A100-40GB, A100-80GB, L40S, L40, A40, RTX-A6000, H100-80GB, H100-PCIe, H100-NVL, H200, H200-NVL, GH200-96GB, B200, MI300X)" \
    plan "$RESNET" --gpus=X9000
check_fail 2 "gpumemsim: error: no trace given" plan
# A GPU above the uncapped peak changes nothing for the caching allocator,
# unless garbage_collection_threshold acts at a share of it: at 0.2 of a
# T4 the threshold (2.9 GiB) is below ResNet-50's peak, so the cell must be
# its own run, the same as `run --gpu=T4`, and below PyTorch's uncapped
# 3703570432.
gms plan "$RESNET" --policy=caching --alloc-conf=garbage_collection_threshold:0.2 --gpus=T4 --format=json
cell=$(sed -n 's/^\t\t\t\t\t"peak_reserved":\t\([0-9]*\),*$/\1/p' "$TMP/out")
gms run "$RESNET" --alloc-conf=garbage_collection_threshold:0.2 --gpu=T4 --format=json
is "$cell" "$(json_top peak_reserved)" "plan's T4 cell under GC is the run on a T4"
test "${cell:-0}" -gt 0 && test "$cell" -lt 3703570432; ok $? "... which GC keeps below the uncapped 3703570432 ($cell)"
# grow-only gets the framework's limit on a GPU, below the memory it has:
# JAX's 75% of a T4's 15828254720 B is 11871191040.  Regions of 4 GiB (for
# 3 GiB) and 8 GiB (for 5 GiB) make 12 GiB uncapped, under the T4's
# 15291383808, but with the limit the second region is what is left of it,
# 11871191040 - 4294967296 = 7576223744 B: the cell is its own run, and fits
# at 11871191040.
printf '%s\n' '{"format":"gpumemsim-trace","version":1}' \
    '{"op":"alloc","id":1,"size":3221225472}' '{"op":"alloc","id":2,"size":5368709120}' \
    '{"op":"free","id":1}' '{"op":"free","id":2}' >"$TMP/two.jsonl"
gms plan "$TMP/two.jsonl" --policy=grow-only:flavor=jax --gpus=T4 --format=json
is "$(sed -n 's/^[[:space:]]*"unbounded_peak_reserved":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")" \
    12884901888 "grow-only, no limit: regions of 4 and 8 GiB"
is "$(sed -n 's/^\t\t\t\t\t"peak_reserved":\t\([0-9]*\),*$/\1/p' "$TMP/out")" 11871191040 \
    "on a T4 JAX's limit cuts the second region: 11871191040, not the uncapped run's"
# --placements: the capacity that fits under every one of 16 placements.
# synth-thresholds-6 fits the model's placement in its minimum, but one of
# 16 placements runs out there (t/cli-run.sh); plan's answer must fit all 16
# (run says so) and, 2 MiB less, not.
TH=$TRACES/synth-thresholds-6.json
gms plan "$TH" --policies=caching --placements=16 --format=json
min=$(min_capacity)
every=$(sed -n 's/^[[:space:]]*"min_capacity_every_placement":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")
is "$rc $min $(json_top placements)" "0 1944059904 16" "--placements: the model's minimum is unchanged"
[ -n "$every" ] && [ "$every" -gt "$min" ]
ok $? "--placements: every placement needs more ($every)"
grep -q '"every_placement_verified":[[:space:]]*true' "$TMP/out"; ok $? "--placements: verified"
gms run "$TH" --placements=16 --capacity="${every}B" --format=json
is "$rc $(sed -n 's/^[[:space:]]*"count":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")" "0 0" "run: all 16 fit in plan's answer"
gms run "$TH" --placements=16 --capacity=$((every - 2097152))B --format=json
c=$(sed -n 's/^[[:space:]]*"count":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")
[ "$c" -gt 0 ]; ok $? "run: 2 MiB less, $c of 16 run out"
gms plan "$TH" --policies=caching --placements=16 --gpus=A10
grep -q "^  under every one of 16 placements" "$TMP/out" &&
    grep -q "^  caching .* $every B  (" "$TMP/out"
ok $? "--placements: the text gives it beside the model's"
# On the recordings of t/data/scale/limits.json (real runs under limits they
# were not recorded at), plan's minimum lies between the largest limit that
# ran out and the smallest that fitted (if any did), for every job: following the recorded
# addresses (the default); the placement model alone misses three of five.
S=$TOP_SRCDIR/t/data/scale
{ tr -d ' \n' <"$S/limits.json"; echo; } | sed 's/},{"device_total"/}\n{"device_total"/g' |
    sed -n 's/.*"family":"\([a-z-]*\)".*"limit":\([0-9]*\),.*"ran_out":\([a-z]*\),.*"value":\([0-9]*\).*/\1-\4 \2 \3/p' >"$TMP/lim"
between= model=0
for job in $(cut -d' ' -f1 "$TMP/lim" | sort -u); do
	out=$(awk -v j="$job" '$1 == j && $3 == "true" && $2 > m { m = $2 } END { print m + 0 }' "$TMP/lim")
	fit=$(awk -v j="$job" '$1 == j && $3 == "false" && (f == "" || $2 < f) { f = $2 } END { print (f == "" ? "none" : f) }' "$TMP/lim")
	gms plan "$S/$job.pickle.gz" --policies=caching --format=json
	m=$(min_capacity)
	[ "$m" -gt "$out" ] && { [ "$fit" = none ] || [ "$m" -le "$fit" ]; } && between="$between $job"
	gms plan "$S/$job.pickle.gz" --policies=caching --placement=model --format=json
	m=$(min_capacity)
	[ "$m" -gt "$out" ] && { [ "$fit" = none ] || [ "$m" -le "$fit" ]; } && model=$((model + 1))
done
is "$between" " xfmr-batch-16 xfmr-batch-4 xfmr-batch-8 xfmr-seq-256 xfmr-seq-384" \
    "plan's minimum lies between the real runs that ran out and those that fitted, on 5 of 5 recordings"
is "$model" 2 "... under --placement=model on 2 of 5"
# --placements samples the model's placements: the first is the model's own.
X=$S/xfmr-batch-8.pickle.gz
gms plan "$X" --policies=caching --placement=model --format=json
mmin=$(min_capacity)
gms plan "$X" --policies=caching --placements=2 --format=json
is "$(min_capacity)" "$mmin" "--placements: the first is the model's placement ($mmin), not the recording's"
check_fail 2 "gpumemsim: error: --placements samples the placement model's placements: it does not go with --placement=recorded" \
    plan "$X" --placement=recorded --placements=2

# Checkpoints (sim/checkpoint.h) and runs shared by pool (preallocate's
# pool_slack) change no answer: forced on every trace however short, plan's
# whole JSON (and tune's text on two) is the same as with them off, on every
# bundled trace and on recordings with settings, a limit, an OOM and a
# TensorFlow/JAX profile's own limit (a run without a limit that is another
# run).
for t in "$TRACES"/* $TOP_SRCDIR/t/data/users/set-gcsplit.pickle.gz \
    $TOP_SRCDIR/t/data/users/set-expandable.pickle.gz $TOP_SRCDIR/t/data/users/oom-observer.pickle.gz \
    $TOP_SRCDIR/t/data/users/lim-gcsplit-k4.pickle.gz $TOP_SRCDIR/t/data/xplane/*.xplane.pb*; do
	test -f "$t" || continue
	GMS_CHECKPOINTS=never gms plan "$t" --format=json
	cp "$TMP/out" "$TMP/never"
	echo "$rc" >>"$TMP/never"
	GMS_CHECKPOINTS=always gms plan "$t" --format=json
	echo "$rc" >>"$TMP/out"
	cmp -s "$TMP/never" "$TMP/out"
	ok $? "checkpoints: plan $(basename "$t") answers the same"
done
for t in "$RESNET" "$GPT2"; do
	GMS_CHECKPOINTS=never gms tune "$t"
	cp "$TMP/out" "$TMP/never"
	GMS_CHECKPOINTS=always gms tune "$t"
	cmp -s "$TMP/never" "$TMP/out"
	ok $? "checkpoints: tune $(basename "$t") answers the same"
done

done_testing
