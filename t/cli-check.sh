#!/bin/sh
# cli-check.sh - `gpumemsim check` (sim/cli/cmd-check.c, analysis/check.c), the CI
# gate: exit 0 when every check holds, 1 when one fails.  Thresholds are set
# on either side of what PyTorch's real allocator did with ResNet-50
# (t/data/pytorch.json): peak reserved 3703570432, peak allocated 3150157824
# in 118 segments by default; 4146069504 in 129 with max_split_size_mb:64.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json

gms check --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim check [options] <trace> | --ranks <trace|dir>..." "check --help"

gms check "$RESNET" --max-peak-reserved=3703570432B
is "$rc" 0 "peak reserved at most PyTorch's 3703570432: passes"
gms check "$RESNET" --max-peak-reserved=3703570431B
is "$rc" 1 "at most one byte less: fails, exit 1"
grep -q '^  FAIL  peak_reserved  *3.45 GiB (3703570432 B) <= 3.45 GiB (3703570431 B)$' "$TMP/out"
ok $? "text: the failing check with both values"
is "$(tail -n 1 "$TMP/out")" "1 of 1 check failed" "text: the summary"

# fragmentation 1 - 3150157824 / 3703570432 = 0.14943
gms check "$RESNET" --max-fragmentation=0.1495 --max-overhead=0.1843 --max-device-allocs=118
is "$rc" 0 "fragmentation 0.1494, overhead 3703570432/3127304348 - 1 = 0.1843 (rounded up), 118 segments: pass"
gms check "$RESNET" --max-fragmentation=0.1494
is "$rc" 1 "fragmentation at most 0.1494: fails"
gms check "$RESNET" --max-device-allocs=117
is "$rc" 1 "at most 117 segments: fails"

gms check "$RESNET" --max-peak-reserved=4GiB --max-device-allocs=117 --format=tap
is "$rc" 1 "TAP: exit 1 when one fails"
is "$(head -n 1 "$TMP/out")" "1..2" "TAP: the plan first"
is "$(grep -c '^ok ' "$TMP/out") $(grep -c '^not ok ' "$TMP/out")" "1 1" "TAP: one ok, one not ok"

gms check "$RESNET" --max-peak-reserved=4GiB --format=json
is "$(json_top passed)" true "JSON: passed"
is "$(json_top failed)" 0 "JSON: no failures"

# A saved run as the baseline; max_split_size_mb:64 against it.
gms run "$RESNET" --format=json
cp "$TMP/out" "$TMP/base.json"
gms check "$RESNET" --baseline="$TMP/base.json"
is "$rc" 0 "the same run against its own baseline passes"
gms check "$RESNET" --alloc-conf=max_split_size_mb:64 --baseline="$TMP/base.json" --tolerance=10%
is "$rc" 1 "max_split_size_mb:64 (4146069504 B, 11.9% more) fails a 10% tolerance"
grep -q '^  FAIL  baseline peak_reserved  *3.86 GiB (4146069504 B)' "$TMP/out"; ok $? "on peak reserved"
grep -q '^  FAIL  baseline device_allocs  *129 <= 129' "$TMP/out"; test $? -ne 0
ok $? "129 segments is within 10% of 118 (129.8)"
gms check "$RESNET" --alloc-conf=max_split_size_mb:64 --baseline="$TMP/base.json" --tolerance=0.12 \
    --format=json
is "$(sed -n '/"baseline peak_reserved"/,/}/s/^[[:space:]]*"pass":[[:space:]]*\(.*\),$/\1/p' "$TMP/out")" true \
    "and passes 12%"

# Must fit: PyTorch ran out at 3150157824 and fitted at 3288510976.
gms check "$RESNET" --must-fit=3288510976B
is "$rc" 0 "must fit in 3288510976 (PyTorch fitted): passes"
gms check "$RESNET" --must-fit=3150157824B
is "$rc" 1 "must fit in 3150157824 (PyTorch ran out): fails"
grep -q 'does not fit in 2.93 GiB: out of memory at event 2381 (a request for 12.25 MiB) at conv.py:548 _conv_forward$' "$TMP/out"
ok $? "and says where it ran out: event 2381, 12.25 MiB, as PyTorch did"
gms check "$RESNET" --must-fit=T4
is "$rc" 0 "must fit on a T4: passes"
gms check "$RESNET" --gpu=T4 --max-peak-reserved=3703570432B
is "$rc" 0 "run on a T4 (--gpu), it fits and reserves 3703570432: passes"
gms check "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" --gpu=T4
is "$rc" 1 "GPT-2 run on a T4 (--gpu) runs out: fails"
gms check "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" --must-fit=T4
is "$rc" 1 "GPT-2 (16433283072 B uncapped) must fit on a T4: fails"

check_fail 2 "gpumemsim: error: nothing to check: give a threshold, --must-fit, --capacity, --gpu, --baseline or --must-be-complete" \
    check "$RESNET"
check_fail 4 "gpumemsim: error: cannot open baseline '$TMP/none.json': No such file or directory" \
    check "$RESNET" --baseline="$TMP/none.json"
echo '{"peak_reserved": "x"}' >"$TMP/bad.json"
gms check "$RESNET" --baseline="$TMP/bad.json"
is "$rc" 3 "a baseline that is not a run result: exit 3"
# The baseline reader, fuzzed: every cut of a real baseline, metrics no run
# could give, random bytes: each is refused (exit 3, naming the file), never
# a crash and never a pass.
len=$(wc -c <"$TMP/base.json")
bad=0
n=1
while [ "$n" -lt "$len" ]; do
	head -c "$n" "$TMP/base.json" >"$TMP/cut.json"
	"$GPUMEMSIM" check "$RESNET" --baseline="$TMP/cut.json" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne 3 ] || ! grep -q "^gpumemsim: error: $TMP/cut.json: " "$TMP/err"; then
		bad=$((bad + 1))
		echo "# cut at $n bytes: exit $rc, $(head -n 1 "$TMP/err")"
	fi
	n=$((n + 53))
done
is "$bad" 0 "every cut of a saved baseline is refused, naming the file"
for doc in '{"peak_reserved": -1}' '{"peak_reserved": 1e400}' '{"peak_reserved": 1.5}' \
    '{"peak_reserved": 9007199254740993e3}' '{"peak_reserved": 5, "fragmentation": 1.01}' \
    '{"peak_reserved": 5, "device_allocs": "118"}' '{"peak_reserved": 5, "alloc_retries": -0.5}' \
    '{"peak_reserved": 5, "peak_allocated": null}'; do
	printf '%s' "$doc" >"$TMP/odd.json"
	gms check "$RESNET" --baseline="$TMP/odd.json"
	is "$rc" 3 "a baseline of $doc is refused"
done
i=0
while [ "$i" -lt 20 ]; do
	head -c 600 /dev/urandom >"$TMP/junk.json"
	gms check "$RESNET" --baseline="$TMP/junk.json"
	[ "$rc" -eq 3 ] || break
	i=$((i + 1))
done
is "$i" 20 "20 baselines of random bytes are refused"
check_fail 3 "gpumemsim: error: --max-fragmentation takes a ratio: 0.2 or 20%, not 'lots'" \
    check "$RESNET" --max-fragmentation=lots

# Two settings at once, each checked (PyTorch reserved 3703570432 by default
# and 3177185280 with expandable segments; 3.3 GiB is 3543348019 bytes).
gms check "$RESNET" --policy=caching --policy 'caching alloc_conf=expandable_segments:True' \
    --max-peak-reserved=3.3GiB
is "$rc" 1 "two policies: one fails, so the check fails"
grep -q "^  FAIL  caching  *peak_reserved  *3.45 GiB (3703570432 B) <= 3.30 GiB" "$TMP/out"; ok $? "the default fails, named by its label"
grep -q "^  PASS  caching alloc_conf=expandable_segments:True peak_reserved 2.96 GiB (3177185280 B) <= 3.30 GiB" "$TMP/out"; ok $? "expandable segments pass, named by theirs"
grep -q "^check resnet50-train-b32: policies caching, caching alloc_conf=expandable_segments:True, capacity unlimited\$" "$TMP/out"; ok $? "the title names both"
check_fail 2 "gpumemsim: error: --baseline is one policy's saved run: give one --policy" \
    check "$RESNET" --policy=caching --policy=grow-only --baseline="$TMP/base.json"
# --placements: "fits" under every placement.  synth-thresholds-6 in
# 1944059904 bytes: the model fits, one placement of 16 does not (t/cli-run.sh).
TH=$TRACES/synth-thresholds-6.json
gms check "$TH" --capacity=1944059904B
is "$rc" 0 "the model's placement fits"
gms check "$TH" --capacity=1944059904B --placements=16 --format=tap
is "$rc $(sed -n 1p "$TMP/out")" "1 1..1" "--placements=16: one of them does not: exit 1"
grep -q "^# out of memory under 1 of 16 placements, at event [0-9]*\$" "$TMP/out"; ok $? "--placements: which share, and where"
gms check "$TH" --must-fit=1944059904B --placements=16 --format=json
is "$rc $(json_top placements)" "1 16" "--must-fit under every placement: fails too"
gms check "$TH" --capacity=2218786816B --placements=16
is "$rc" 0 "--placements: in plan's every-placement answer all fit"
grep -q "under every one of 16 placements" "$TMP/out"; ok $? "--placements: said"

# A recording cut short by its OOM fits where it got to: --must-be-complete
# makes such a trace fail, and says why; a whole job passes it.
U=$TOP_SRCDIR/t/data/users
gms check "$U/oom-except.pickle.gz" --must-fit=80GiB
is "$rc" 0 "a trace cut short by its OOM passes --must-fit as far as it goes"
gms check "$U/oom-except.pickle.gz" --must-fit=80GiB --must-be-complete
is "$rc" 1 "... and fails --must-be-complete: exit 1"
grep -q '^  FAIL  complete  *incomplete: cut short by its out of memory$' "$TMP/out"
ok $? "... saying it was cut short by its out of memory"
gms check "$U/oom-except.pickle.gz" --must-be-complete --format=json
tr -d '\n\t' <"$TMP/out" | grep -q '"check":"complete","pass":false,"complete":false,"detail":"cut short by its out of memory"'
ok $? "... in JSON: complete false, and why"
gms check "$RESNET" --must-be-complete
is "$rc" 0 "the whole ResNet-50 recording passes --must-be-complete"
grep -q '^  PASS  complete  *the whole job$' "$TMP/out"; ok $? "... as the whole job"
# the baseline's values said as the run's are: a fraction to four places
gms check "$RESNET" --baseline="$TMP/base.json" --tolerance=2%
grep -q '^  PASS  baseline fragmentation     0\.1494 <= 0\.1524: the baseline'"'"'s 0\.1494 plus 2%$' "$TMP/out"
ok $? "check --baseline: the fragmentation limit reads 0.1494 plus 2%, not 17 digits"
check_fail 2 "gpumemsim: error: --frames is for --baseline: give one" \
    check "$RESNET" --max-fragmentation=50% --frames='*.py*'
check_fail 2 "gpumemsim: error: --tolerance is for --baseline: give one" \
    check "$RESNET" --max-fragmentation=50% --tolerance=2%

done_testing

