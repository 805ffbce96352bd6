#!/bin/sh
# settings-gpu.sh - the runs where the simulation with the placement model
# missed PyTorch's recorded result under a setting (replay/settings-
# mismatches.txt, from t/groundtruth-settings: trace, PYTORCH_CUDA_ALLOC_CONF,
# limit), replayed on a GPU with the caching policy and run through PyTorch's
# own allocator in the same session: whether the simulation's logic or the
# driver's placement made the difference.  Results go to DIR.
#
#   GPUMEMSIM=./gpumemsim replay/settings-gpu.sh DIR [PYTHON]
set -u
BIN=${GPUMEMSIM:-./gpumemsim}
OUT=${1:?usage: settings-gpu.sh DIR [PYTHON]}
PY=${2:-python3}
mkdir -p "$OUT"
i=0
while read -r trace conf limit; do
	f=$(ls "traces/$trace.json" "traces/$trace.jsonl.gz" 2>/dev/null | head -n 1)
	cap=
	[ "$limit" != 0 ] && cap=--capacity=$limit
	"$BIN" replay "$f" --alloc-conf="$conf" $cap --format=json \
	    >"$OUT/settings.$i.replay.json" 2>"$OUT/settings.$i.replay.err"
	"$PY" replay/torch_replay.py "$f" --capacity "$limit" --alloc-conf "$conf" \
	    >"$OUT/settings.$i.torch.json" 2>"$OUT/settings.$i.torch.err"
	i=$((i + 1))
done <replay/settings-mismatches.txt
echo "done: $i runs"
