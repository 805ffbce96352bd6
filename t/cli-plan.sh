#!/bin/sh
# cli-plan.sh - `gpumemsim plan` (sim/cmd-plan.c, analysis/plan.c) against
# PyTorch's real runs under limits (t/data/pytorch.json): ResNet-50 ran out at
# 3150157824 bytes and fitted at 3288510976; GPT-2 ran out at 15863924224 and
# fitted at 16433283071.  The smallest capacity found must lie between, fit,
# and 2 MiB less must not.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json
GPT2=$TRACES/gpt2-train-varlen-bf16.jsonl.gz

gms plan --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim plan [options] <trace>" "plan --help"

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
	gms run "$1" --capacity="$min" --format=json
	grep -q '"oom":[[:space:]]*null' "$TMP/out"; ok $? "$name: a run in that capacity fits"
	gms run "$1" --capacity=$((min - 2097152)) --format=json
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
grep -q '^  T4  .*OOM @' "$TMP/out"; ok $? "GPT-2 runs out on a T4"
grep -q '^  H200  .*fits +' "$TMP/out"; ok $? "and fits on an H200"
gms plan "$RESNET" --policies=caching --gpus=T4
grep -q '^  T4  .*fits +10.79 GiB' "$TMP/out"
ok $? "ResNet-50 on a T4: 15291383808 - 3703570432 B = 10.79 GiB of headroom"

gms plan "$RESNET" --policies=caching,grow-only --format=json --jobs=1
cp "$TMP/out" "$TMP/one"
gms plan "$RESNET" --policies=caching,grow-only --format=json --jobs=3
cmp -s "$TMP/one" "$TMP/out"; ok $? "the same plan on 1 or 3 threads"

check_fail 3 "gpumemsim: error: --gpus: unknown GPU 'X9000' (known: T4, A10, A10G, L4, RTX4090, V100-32GB, RTX5090, A100-40GB, A100-80GB, L40S, H100-80GB, H100-NVL, H200, B200, MI300X)" \
    plan "$RESNET" --gpus=X9000
check_fail 2 "gpumemsim: error: no trace given" plan
done_testing
