#!/bin/sh
# run-gpu.sh - the measurements behind replay/RESULTS.md, on a machine with an
# NVIDIA GPU: every bundled sample replayed with every policy (every block
# written, --touch), uncapped and under the first limit at which PyTorch ran
# out of memory on the H200 (t/data/pytorch.json); then PyTorch's own
# allocator on the same traces (replay/torch_replay.py), uncapped, under
# that limit and with expandable segments.  Results go to DIR as JSON;
# replay/results.py turns them into the tables.
#
#   GPUMEMSIM=./gpumemsim replay/run-gpu.sh DIR [PYTHON]
set -u
BIN=${GPUMEMSIM:-./gpumemsim}
OUT=${1:?usage: run-gpu.sh DIR [PYTHON]}
PY=${2:-python3}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$OUT/gpu.txt" 2>&1
"$BIN" --version >"$OUT/version.txt" 2>&1

# trace, then the first limit PyTorch ran out under
set -- \
	resnet50-train-b32.json:3150157824 \
	resnet50-train-b32-prefetch.json:3172308992 \
	gpt2-train-varlen-bf16.jsonl.gz:14155847680 \
	synth-training-fixed-3.json:1941180928 \
	synth-thresholds-6.json:1598039040 \
	synth-swiss-cheese-8.json:2539153408 \
	synth-lognormal-1.json:3408680960 \
	synth-kvcache-10.json:1417691136

# Our replays one at a time: each reads the whole GPU's memory in use.
for tl in "$@"; do
	t=${tl%%:*}; cap=${tl##*:}; name=${t%%.*}
	for p in caching grow-only preallocate no-cache; do
		"$BIN" replay "traces/$t" --policy=$p --touch --format=json \
		    >"$OUT/replay.$name.$p.json" 2>"$OUT/replay.$name.$p.err"
		"$BIN" replay "traces/$t" --policy=$p --touch --capacity="$cap" --format=json \
		    >"$OUT/replay.$name.$p.capped.json" 2>"$OUT/replay.$name.$p.capped.err"
	done
	"$BIN" replay "traces/$t" --alloc-conf=expandable_segments:True --touch --format=json \
	    >"$OUT/replay.$name.expandable.json" 2>"$OUT/replay.$name.expandable.err"
done
"$BIN" replay traces/resnet50-train-b32.json --no-cache-baseline >"$OUT/baseline.txt" 2>&1

# PyTorch's allocator, one process at a time (each measures its context).
for tl in "$@"; do
	t=${tl%%:*}; cap=${tl##*:}; name=${t%%.*}
	echo "traces/$t 0 - $OUT/torch.$name.json"
	echo "traces/$t $cap - $OUT/torch.$name.capped.json"
	echo "traces/$t 0 expandable_segments:True $OUT/torch.$name.expandable.json"
done | xargs -L 1 sh -c '
	conf=$3; [ "$conf" = - ] && conf=
	'"$PY"' replay/torch_replay.py "$1" --capacity "$2" --alloc-conf "$conf" >"$4" 2>"$4.err"' sh
echo "done: $(ls "$OUT" | wc -l) files"
