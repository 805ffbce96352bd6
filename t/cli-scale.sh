#!/bin/sh
# t/cli-scale.sh - the ground truth of issue 30 (the job you have not run),
# held to its own numbers: three real job families recorded on the H200,
# each at seven values of one size (t/data/scale, made by
# t/data/gen/record_scale.py: a CNN's batch, a transformer's sequence
# length with quadratic attention, a transformer's batch), uncapped, and
# each value again under one capacity per family that some fit and some do
# not.  Every number asserted is PyTorch's own: memory_stats() in
# FAMILY-VALUE.facts.json and .capped.json.  What the placement model misses
# is listed by name, so that any change, better or worse, is seen.
# Exercises traces/trace-pickle.c, sim/policy-caching.c, sim/placement-driver.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

S=$TOP_SRCDIR/t/data/scale
# num FILE KEY: a number from one of the recordings' JSON files
num() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1
}
names="cnn-batch-4 cnn-batch-8 cnn-batch-12 cnn-batch-16 cnn-batch-24 cnn-batch-32 cnn-batch-48
xfmr-seq-64 xfmr-seq-128 xfmr-seq-192 xfmr-seq-256 xfmr-seq-384 xfmr-seq-512 xfmr-seq-768
xfmr-batch-2 xfmr-batch-4 xfmr-batch-6 xfmr-batch-8 xfmr-batch-12 xfmr-batch-16 xfmr-batch-24"

recorded=0 model=0 missed= capped=0 cmissed=
for n in $names; do
	want="$(num "$S/$n.facts.json" reserved_bytes.all.peak) $(num "$S/$n.facts.json" num_device_alloc)"
	gms run "$S/$n.pickle.gz" --placement=recorded --format=json
	[ "$rc $(json_top peak_reserved) $(json_top device_allocs)" = "0 $want" ] && recorded=$((recorded + 1))
	gms run "$S/$n.pickle.gz" --format=json
	if [ "$(json_top peak_reserved) $(json_top device_allocs)" = "$want" ]; then
		model=$((model + 1))
	else
		missed="$missed $n"
	fi
	# under the family's capacity: out of memory, or not, as PyTorch was
	limit=$(num "$S/$n.capped.json" limit)
	gms run "$S/$n.pickle.gz" --capacity="${limit}B" --format=json
	grep -q '"oom":	{' "$TMP/out" && sim=true || sim=false
	real=$(sed -n 's/.*"ran_out": \(true\|false\).*/\1/p' "$S/$n.capped.json")
	if [ "$sim" = "$real" ]; then
		capped=$((capped + 1))
	else
		cmissed="$cmissed $n"
	fi
done
is "$recorded" 21 "with the recorded addresses, all 21 recordings reproduce PyTorch's peak reserved and device allocations"
is "$model" 17 "under the placement model, 17 of 21"
is "$missed" " xfmr-seq-256 xfmr-batch-4 xfmr-batch-8 xfmr-batch-16" \
    "... the four it misses (a segment placed where the driver did not put it: issue 25)"
is "$capped" 20 "under each family's capacity, 20 of 21 outcomes are PyTorch's (fits or runs out)"
is "$cmissed" " cnn-batch-24" "... the one it misses: ResNet-18 at batch 24, which PyTorch finished"
# ... because cuDNN caught its out-of-memory errors: the job tried workspaces
# the capacity could not hold, 20 times, and fell back to other algorithms,
# which the uncapped recording never asked for.
is "$(num "$S/cnn-batch-24.capped.json" num_ooms) $(sed -n 's/.*"ran_out": \(true\|false\).*/\1/p' "$S/cnn-batch-24.capped.json")" \
    "20 false" "cnn-batch-24 in its capacity: 20 caught OOMs, and it did not run out"
# The sizes grow as the family says: the sequence family's attention is
# quadratic (peak reserved grows 6 times from 64 to 768 tokens a row).
is "$(num "$S/xfmr-seq-64.facts.json" reserved_bytes.all.peak) $(num "$S/xfmr-seq-768.facts.json" reserved_bytes.all.peak)" \
    "209715200 1254096896" "xfmr-seq: 200 MiB at length 64, 1196 MiB at 768"

done_testing
