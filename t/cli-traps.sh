#!/bin/sh
# t/cli-traps.sh - the places a new user was misled without an error (issue
# 28), each as it was seen: settings PyTorch refuses, advice that did not
# work, a verdict the JSON contradicted, GPU names, JAX's variable's name.
. "${TOP_SRCDIR:-.}/t/lib.sh"

LOG=$TRACES/synth-lognormal-1.json
GPT2=$TRACES/gpt2-train-varlen-bf16.jsonl.gz

# Sizes: a number without a unit is refused wherever a size is read (0
# aside): --capacity=24 meant 24 GiB, not 24 bytes.
unit="invalid size '24': a size needs a unit, e.g. 24GiB or 24GB (or 24B for bytes)"
check_fail 3 "gpumemsim: error: --capacity: $unit" run "$LOG" --capacity=24
check_fail 3 "gpumemsim: error: --must-fit: $unit" check "$LOG" --must-fit=24
check_fail 3 "gpumemsim: error: grow-only: option limit: $unit" run "$LOG" --policy 'grow-only limit=24'
check_fail 3 "gpumemsim: error: --job 1: limit= $unit" \
    share --capacity=8GiB --job "$LOG policy=grow-only limit=24 duration=1s" --job "$LOG duration=1s"
printf '{"capacity": 24, "jobs": [{"trace": "a.json"}, {"trace": "b.json"}]}' >"$TMP/sc.json"
check_fail 3 "gpumemsim: error: $TMP/sc.json: \"capacity\" is not a size above 0 (80GiB): $unit" \
    share --scenario "$TMP/sc.json"
gms run "$LOG" --capacity=24G --format=json
is "$rc $(json_top capacity)" "0 25769803776" "24G is 24 GiB"
gms run "$LOG" --capacity=24GB --format=json
is "$rc $(json_top capacity)" "0 24000000000" "24GB is 24 billion bytes"
gms run "$LOG" --capacity=24GB
is "$(sed -n 2p "$TMP/out")" "policy caching, capacity 22.35 GiB, 24.00 GB, placement model" \
    "... and the run says it in both units"
gms run "$LOG" --capacity=24GiB
is "$(sed -n 2p "$TMP/out")" "policy caching, capacity 24.00 GiB, placement model" "24GiB: in one"
gms run "$LOG" --capacity=3150157824B --format=json
is "$rc $(json_top capacity)" "0 3150157824" "B for bytes"

gms run --help
grep -q '^Sizes need a unit: B, KiB, MiB, GiB, TiB (powers of 1024; 24G is 24 GiB)$' "$TMP/out" &&
    grep -q '^or KB, MB, GB, TB (powers of 1000; 24GB is 22.35 GiB); ratios are 0.2 or 20%.$' "$TMP/out"
ok $? "--help says a size needs a unit, and which units are decimal"

# Settings: what PyTorch 2.11 refuses, with its reason (measured on the H200).
check_fail 3 "gpumemsim: error: caching: PYTORCH_CUDA_ALLOC_CONF 'max_split_size_mb:0' at character 19 ('0'): CachingAllocator option max_split_size_mb too small, must be >= 20" \
    run "$LOG" --alloc-conf=max_split_size_mb:0
check_fail 3 "gpumemsim: error: caching: PYTORCH_CUDA_ALLOC_CONF 'roundup_power2_divisions:3' at character 26 ('3'): For roundups, the divisons has to be power of 2 " \
    run "$LOG" --alloc-conf=roundup_power2_divisions:3
check_fail 3 "gpumemsim: error: caching: PYTORCH_CUDA_ALLOC_CONF 'per_process_memory_fraction:1.5' at character 29 ('1.5'): per_process_memory_fraction is invalid, set it in [0.0, 1.0]" \
    run "$LOG" --alloc-conf=per_process_memory_fraction:1.5
gms run "$LOG" --alloc-conf=roundup_power2_divisions:4294967296
ok $rc "roundup_power2_divisions:4294967296 is accepted, as PyTorch accepts it"

# Advice that works: a fraction of the card named by --gpu, or of --capacity.
check_fail 3 "gpumemsim: error: caching: per_process_memory_fraction is a fraction of the device's memory, and the trace does not say how much it has (give --gpu, or --capacity as the device's memory)" \
    run "$LOG" --alloc-conf=per_process_memory_fraction:0.5
# the H200's memory as CUDA reports it: 150109880320 B (t/data/xplane's
# profiles' memory_size; the shared traces' device.total_bytes)
gms run "$LOG" --gpu=H200 --alloc-conf=per_process_memory_fraction:0.5 --format=json
is "$rc $(json_top capacity)" "0 75054940160" \
    "following the advice, --gpu: half the H200's memory is the capacity"
gms run "$LOG" --capacity=8GiB --alloc-conf=per_process_memory_fraction:0.5 --format=json
is "$rc $(json_top capacity)" "0 4294967296" "... or --capacity as the device's memory: half of 8 GiB"

# A verdict the numbers contradicted: every number matches, only the segments
# differ (the placement model's doing); the text says that, and so does JSON.
gms run "$GPT2" --placement=model
is "$(grep '^observed' "$TMP/out")" \
    "observed (pytorch-caching, as recorded): the 6 numbers reproduced, not every segment" \
    "the GPT-2 sample: the numbers are reproduced, not every segment"
grep -q '^  segments        [0-9]* events differ, the first at event [0-9]*: where the driver put segments decides which are reused, and this run placed them by the placement model (without --placement=model a run follows the recorded addresses)$' "$TMP/out"
ok $? "... and it says why, and what to do"
gms run "$GPT2" --placement=model --format=json
is "$(json_in observed matches) $(json_in observed numbers_match)" "false true" \
    "JSON agrees: not every segment, every number"
gms run "$GPT2"
is "$(grep '^observed' "$TMP/out") $(grep -c 'placement recorded$' "$TMP/out")" \
    "observed (pytorch-caching, as recorded): reproduced exactly (6 numbers and every segment) 1" \
    "following the advice, the default: as recorded, reproduced exactly"
gms run "$GPT2" --placement=recorded --format=json
is "$(json_in observed matches) $(json_in options placement)" "true \"recorded\"" \
    "... as --placement=recorded, in JSON too"

# A GPU name that means more than one card is refused with the choices, in
# every command that takes one.
a100="GPU 'A100' names more than one card: give A100-40GB or A100-80GB"
check_fail 3 "gpumemsim: error: --gpu: $a100" run "$LOG" --gpu=A100
check_fail 3 "gpumemsim: error: --gpu: $a100" compare "$LOG" --gpu=A100
check_fail 3 "gpumemsim: error: --must-fit takes a size or a GPU model: $a100" \
    check "$LOG" --must-fit=A100
check_fail 3 "gpumemsim: error: --gpus: GPU 'h100' names more than one card: give H100-80GB (SXM), H100-PCIe or H100-NVL (94 GB)" \
    plan "$LOG" --gpus=h100
gms share --gpu=v100 --job "$LOG" --job "$LOG"
is "$rc $(head -n 1 "$TMP/err")" \
    "3 gpumemsim: error: --gpu: GPU 'v100' names more than one card: give V100-16GB or V100-32GB" \
    "share --gpu=v100: refused, with the choices"
check_fail 3 "gpumemsim: error: --gpu: GPU 'GH200' names more than one card: give GH200-96GB, or for a 144 GB GH200 its memory as --capacity" \
    run "$LOG" --gpu=GH200
gms run "$LOG" --gpu=A100-80GB
ok $rc "--gpu=A100-80GB: one card"
gms run --gpu=list
is "$rc $(grep -c . "$TMP/out") $(sed -n 's/^H200 *\([0-9]*\) B .*/\1/p' "$TMP/out")" \
    "0 $("$GPUMEMSIM" plan --help | sed -n '/^GPU models/,/^$/p' | grep -c '^  [A-Z]') 150109880320" \
    "--gpu=list: the catalogue, a line a card, with its bytes (no trace needed)"
# Cards people name, each from a deviceQuery listing cited in sim/gpus.c: its
# total less the 512 MiB of CUDA context a run leaves it.
for card in "RTX3090 25327697920" "3090 25327697920" "A40 47608692736" "a6000 51160023040" \
    "GH200-480GB 102005473280" "V100-16GB 16928342016"; do
	set -- $card
	gms run "$LOG" --gpu="$1" --format=json
	is "$rc $(json_top capacity)" "0 $(($2 - 536870912))" "--gpu=$1: $2 B less the context"
done
gms plan "$LOG" --gpu=A10
is "$rc $(sed -n '/^  GPU /,/^$/p' "$TMP/out" | grep -c '^  [A-Z0-9]')" "0 2" "plan --gpu=A10: the table of that one card"
gms plan "$LOG" --gpus=A10,4GiB --policy=caching
is "$rc $(sed -n 's/^  4GiB  *\([0-9.]* GiB\)  *OOM @[0-9]*$/\1/p' "$TMP/out")" "0 4.00 GiB" \
    "plan --gpus takes a size for a card the catalogue lacks (4GiB: too small here)"
check_fail 2 "gpumemsim: error: give --gpu (one model) or --gpus (a list), not both" \
    plan "$LOG" --gpu=A10 --gpus=T4

# Every output that names a policy or a job names it whole: plan's columns,
# plot's legend (names with blanks, quotes and non-ASCII letters).
gms plan "$LOG" --policy caching --policy 'caching alloc_conf=expandable_segments:True' --gpus=A10
is "$(sed -n 's/^  GPU  *memory  *//p' "$TMP/out" | sed 's/  *$//')" \
    "caching           caching expandable_segments:True" \
    "plan's GPU table heads each column with the policy's whole name (alloc_conf's value alone)"
# ... which, given back as a policy, is that policy
gms run "$LOG" --policy 'caching expandable_segments:True' --format=json
a=$(json_top peak_reserved)
gms run "$LOG" --policy 'caching alloc_conf=expandable_segments:True' --format=json
is "$a" "$(json_top peak_reserved)" "... 'caching expandable_segments:True' is caching with that alloc_conf"
if command -v gnuplot >/dev/null 2>&1; then
	gms plot "$LOG" --policy caching --policy 'caching alloc_conf=expandable_segments:True' \
	    -o "$TMP/p.svg"
	is "$rc $(grep -c '>caching reserved<' "$TMP/p.svg") $(grep -c '>caching alloc_conf=expandable_segments:True reserved<' "$TMP/p.svg")" \
	    "0 2 2" "plot: two settings of one policy, each curve named whole (its title and its key)"
	abs=$(cd "$(dirname "$LOG")" && pwd)/$(basename "$LOG")	# a scenario's paths are its own
	cat >"$TMP/mix.json" <<EOF
{"capacity": "24GiB", "jobs": [
 {"trace": "$abs", "name": "job \\"one\\" \\u00e9", "duration": "10s"},
 {"trace": "$abs", "name": "two words", "duration": "10s"}]}
EOF
	gms share --scenario "$TMP/mix.json" --plot="$TMP/s.svg"
	is "$rc $(grep -c '>job "one" \(é\|&#233;\)<' "$TMP/s.svg") $(grep -c '>two words<' "$TMP/s.svg")" "0 2 2" \
	    "share --plot: names with quotes, blanks and non-ASCII letters each name their job"
else
	for k in 1 2; do ok 0 "# SKIP gnuplot not installed"; done
fi

# JAX's variable, as JAX spells it.
gms policies
is "$(grep -c 'XLA_PYTHON_CLIENT_MEM_FRACTION' "$TMP/out") $(grep -c 'XLA_CLIENT_MEM_FRACTION' "$TMP/out")" \
    "1 0" "policies names XLA_PYTHON_CLIENT_MEM_FRACTION, JAX's variable"

done_testing
