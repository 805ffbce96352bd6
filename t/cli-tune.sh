#!/bin/sh
# cli-tune.sh - `gpumemsim tune` (sim/cli/cmd-tune.c, analysis/tune.c).  The
# numbers it recommends on are checked against PyTorch's real runs
# (t/data/pytorch.json): with expandable_segments:True ResNet-50 reserved
# 3177185280 bytes in 110 segments, with the default 3703570432.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json

gms tune --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim tune [options] <trace> | --ranks <trace|dir>..." "tune --help"

gms tune "$RESNET" --format=json
is "$rc" 0 "tune exits 0"
is "$(json_in recommended PYTORCH_CUDA_ALLOC_CONF)" '"expandable_segments:True"' "tune recommends expandable segments for ResNet-50"
is "$(json_in recommended peak_reserved)" 3177185280 "its peak reserved is what PyTorch reserved with it"
is "$(json_in recommended default_peak_reserved)" 3703570432 "the default's is PyTorch's default"
is "$(json_top peak_live)" 3127304348 "the live peak"
# The search starts from every single change to the default (analysis/tune.c's
# dimensions, uncapped: no GC): all twelve must be among the candidates.
missing=
for c in expandable_segments:True max_split_size_mb:20 max_split_size_mb:32 max_split_size_mb:64 \
    max_split_size_mb:128 max_split_size_mb:256 max_split_size_mb:512 max_split_size_mb:1024 \
    roundup_power2_divisions:2 roundup_power2_divisions:4 roundup_power2_divisions:8 \
    roundup_power2_divisions:16 ''; do
	grep -q "\"alloc_conf\":[[:space:]]*\"$c\"," "$TMP/out" || missing="$missing $c"
done
is "$missing" "" "the default and every single change from it were tried"
test "$(json_top tried)" -ge 13; ok $? "tried counts them (13 or more: $(json_top tried))"
# Candidates rank: those that fit first, by peak reserved, then device calls
# (those that run out rank by how far they get, which the JSON does not show).
check_rank() {	# DESCRIPTION
	sed -n '/"caching":/,/"bfc":/p' "$TMP/out" |
	    sed -n 's/^[[:space:]]*"\(fits\|peak_reserved\|device_allocs\|device_frees\)":[[:space:]]*\([a-z0-9]*\),*$/\2/p' |
	    paste - - - - >"$TMP/ranked"
	awk 'BEGIN { bad = 0 }
	    { f = ($1 == "true"); calls = $3 + $4
	      if (NR > 1 && (f > pf || (f && pf && ($2 < pr || ($2 == pr && calls < pc))))) bad = 1
	      pf = f; pr = $2; pc = calls; fits += f }
	    END { exit bad }' "$TMP/ranked"
	ok $? "$1: candidates in rank order, fitting first, then peak reserved, then device calls"
}
check_rank "uncapped"

gms tune "$RESNET"
grep -q "^  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\$" "$TMP/out"; ok $? "text: a ready PYTORCH_CUDA_ALLOC_CONF line"
grep -q "^  peak reserved 2.96 GiB, 502.00 MiB (14.2%) less than the default's 3.45 GiB\$" "$TMP/out"
ok $? "text: the saving against the default (3703570432 - 3177185280 = 502 MiB)"
grep -q "^  1.6% over ideal (the live peak)" "$TMP/out"; ok $? "text: the overhead over ideal"
grep -q "^  runner-ups" "$TMP/out"; ok $? "text: runner-ups"
grep -q "^  growth, JAX  *4.00 GiB  fits" "$TMP/out"; ok $? "text: JAX growth reserves 4292870144 (JAX's own peak pool)"
grep -q "^  growth fits in a limit of" "$TMP/out"; ok $? "text: the smallest BFC limit that fits"

gms tune "$RESNET" --format=json --jobs=1
cp "$TMP/out" "$TMP/one"
gms tune "$RESNET" --format=json --jobs=4
cmp -s "$TMP/one" "$TMP/out"; ok $? "the same result on 1 or 4 threads"

# Where PyTorch ran out at event 2381: nothing in the space fits.
gms tune "$RESNET" --capacity=3150157824B
is "$rc" 1 "tune under a capacity that nothing fits exits 1"
grep -q "^  no PyTorch setting fits in 2.93 GiB (the live peak is 2.91 GiB)\$" "$TMP/out"; ok $? "and says so"
gms tune "$RESNET" --capacity=3.3GiB --format=json
grep -q '"alloc_conf":.*"garbage_collection_threshold:0.8"' "$TMP/out"; ok $? "under a capacity, GC thresholds are tried"
check_rank "in 3.3 GiB"
grep -q '"fits":[[:space:]]*false' "$TMP/out"; ok $? "in 3.3 GiB some candidates run out (so the order is tested)"

# tune takes a max_split_size_mb setting's result from the same setting
# without it when every segment of that run is under the size
# (analysis/tune.c), and TensorFlow's growth without a limit from JAX's:
# each such row must be what its own run gives.
same_as_runs() {	# TRACE DESCRIPTION [OPTION]
	gms tune "$1" ${3:+"$3"} --format=json
	sed -n '/"caching":/,/"bfc":/p' "$TMP/out" |
	    sed -n -e 's/^[[:space:]]*"alloc_conf":[[:space:]]*"\([^"]*\)",$/\1/p' \
	    -e 's/^[[:space:]]*"\(peak_reserved\|device_allocs\|device_frees\)":[[:space:]]*\([0-9]*\),*$/\2/p' |
	    paste - - - - | grep max_split >"$TMP/rows"
	tf=$(sed -n '/"growth, TensorFlow"/,/peak_reserved/s/^[[:space:]]*"peak_reserved":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out")
	bad= n=0
	while read -r conf peak allocs frees; do
		gms run "$1" ${3:+"$3"} --alloc-conf="$conf" --format=json
		got="$(json_top peak_reserved) $(json_top device_allocs) $(json_top device_frees)"
		[ "$got" = "$peak $allocs $frees" ] || bad="$bad $conf: tune $peak $allocs $frees, run $got;"
		n=$((n + 1))
	done <"$TMP/rows"
	is "$bad" "" "$2: each of $n max_split_size_mb rows is its own run's"
	gms run "$1" ${3:+"$3"} --policy='grow-only flavor=tensorflow' --format=json
	is "$tf" "$(json_top peak_reserved)" "$2: TensorFlow's growth row is its own run's"
}
same_as_runs "$RESNET" "ResNet-50"
same_as_runs "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" "GPT-2"
same_as_runs "$TOP_SRCDIR/t/data/users/lim-gcsplit-k4.pickle.gz" "a recording with max_split_size_mb:128"
# under its limit the GC thresholds are tried too: its own setting
# (garbage_collection_threshold:0.6,max_split_size_mb:128) runs at its
# recorded addresses, and its siblings with other sizes under the model
same_as_runs "$TOP_SRCDIR/t/data/users/lim-gcsplit-k4.pickle.gz" \
    "a recording with max_split_size_mb:128, under its limit" --capacity=994193152B
same_as_runs "$TOP_SRCDIR/t/data/scale/xfmr-seq-256.pickle.gz" "a default-setting recording whose segments the model places elsewhere (the default at its recorded addresses)"
# The same recording said to be made with max_split_size_mb:64 (every
# segment of it is 32 MiB or less, so the setting changes nothing): that
# setting is now the recording's own and runs at the recorded addresses,
# never taken from the default's run, which the model places
gms convert "$TOP_SRCDIR/t/data/scale/xfmr-seq-256.pickle.gz" "$TMP/x.jsonl"
sed '1s/"alloc_conf":""/"alloc_conf":"max_split_size_mb:64"/' "$TMP/x.jsonl" >"$TMP/x64.jsonl"
same_as_runs "$TMP/x64.jsonl" "a recording made with max_split_size_mb:64 above its segments"
gms tune "$TMP/x64.jsonl" --format=json
is "$(sed -n 's/.*"recorded_peak_reserved":[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/out")" 404750336 \
    "and its own row is PyTorch's (memory_stats' peak reserved), not the model's 402653184"
# Requests of 8 MiB only, in a segment of 20 MiB: freed whole, that segment
# is a block of 20 MiB, which max_split_size_mb:20 keeps from the next 8 MiB
# request (a second segment); the size is compared with segments too.
cat >"$TMP/small.jsonl" <<'EOF'
{"format":"gpumemsim-trace","version":1,"name":"small"}
{"op":"alloc","id":1,"size":8388608}
{"op":"free","id":1}
{"op":"alloc","id":2,"size":8388608}
{"op":"free","id":2}
EOF
same_as_runs "$TMP/small.jsonl" "8 MiB requests in 20 MiB segments"
gms run "$TMP/small.jsonl" --alloc-conf=max_split_size_mb:20 --format=json
is "$(json_top device_allocs)" 2 "there max_split_size_mb:20 takes a second segment (the default one)"

# Regions of 2 and 4 MiB, freed whole; 7 MiB then needs a region of 8 MiB:
# in 8 MiB only TensorFlow's garbage collection makes room (under a limit
# its growth is not JAX's).
cat >"$TMP/gc.jsonl" <<'EOF'
{"format":"gpumemsim-trace","version":1,"name":"gc"}
{"op":"alloc","id":1,"size":1048576}
{"op":"alloc","id":2,"size":3145728}
{"op":"free","id":1}
{"op":"free","id":2}
{"op":"alloc","id":3,"size":7340032}
EOF
gms tune "$TMP/gc.jsonl" --capacity=8MiB --format=json
sed -n '/"bfc":/,/"preallocated"/s/^[[:space:]]*"\(fits\|peak_reserved\)":[[:space:]]*\([a-z0-9]*\),*$/\2/p' \
    "$TMP/out" | tr '\n' ' ' >"$TMP/modes"
is "$(cat "$TMP/modes")" "true 8388608 false 6291456 " \
    "in 8 MiB TensorFlow's growth collects its free regions and fits; JAX's runs out"

check_fail 2 "gpumemsim: error: no trace given" tune
check_fail 3 "gpumemsim: error: --jobs takes a number from 1 to 1024, not 'x'" tune "$RESNET" --jobs=x
done_testing
