#!/bin/sh
# cli-replay.sh - `gpumemsim replay` (sim/cli/cmd-replay.c, replay/): built or
# not, it says so and exits as gpumemsim(1) says; on a machine with a GPU the
# replays must agree with PyTorch's real runs of ResNet-50 on the H200
# (t/data/pytorch.json): 3703570432 bytes reserved in 118 cudaMalloc calls
# uncapped, out of memory at event 2381 under 3150157824 bytes.  Without a
# GPU those tests skip, saying why.  The logic itself is tested everywhere
# over a fake GPU (t/replay.c).
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json

gms replay --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim replay [options] [<trace>]" "replay --help"
check_fail 2 "gpumemsim: error: no trace given (or --job/--scenario: several jobs)" replay
check_fail 3 "gpumemsim: error: unknown policy 'fastest' (known: caching, grow-only, preallocate, no-cache, ideal, rmm-pool, rmm-arena, rmm-binning, cuda-async, rmm-fixed)" \
    replay "$RESNET" --policy=fastest
# An option the mode at hand would ignore is refused, built or not.
for o in --touch --device-log --no-cache-baseline --policy=caching --option=gc=0.5 \
    --alloc-conf=expandable_segments:True; do
	check_fail 2 "gpumemsim: error: ${o%%=*} goes with one trace, not --job/--scenario" \
	    replay --job "$RESNET" --job "$RESNET" --capacity=40GiB "$o"
done
for o in --gpu=H200 --context-overhead=500MiB; do
	check_fail 2 "gpumemsim: error: ${o%%=*} goes with --job/--scenario, not one trace" \
	    replay "$RESNET" "$o"
done
check_fail 2 "gpumemsim: error: give a trace or --job/--scenario, not both" \
    replay "$RESNET" --job "$RESNET" --job "$RESNET" --capacity=40GiB

gms --version
if grep -q "^cuda replay: not built" "$TMP/out"; then
	check_fail 2 "gpumemsim: error: replay support not built; reconfigure with --with-cuda" \
	    replay "$RESNET"
	done_testing
	exit
fi
gms replay "$RESNET" --format=json
if [ "$rc" -ne 0 ]; then
	is "$rc" 4 "built, without a usable GPU: exit 4"
	grep -q "^gpumemsim: error: no NVIDIA GPU or driver found " "$TMP/err"; ok $? "saying so: $(cat "$TMP/err")"
	echo "# the GPU tests skip: $(cat "$TMP/err")"
	done_testing
	exit
fi

# On a GPU.
grep -q '"peak_reserved":[[:space:]]*3703570432,' "$TMP/out"; ok $? "caching reserves PyTorch's 3703570432"
is "$(grep -c '"device_allocs":[[:space:]]*118,' "$TMP/out")" 3 "118 cudaMalloc: simulated, replayed, re-simulated"
is "$(sed -n '/"agree":/,/}/p' "$TMP/out" | grep -c ':[[:space:]]*true')" 5 \
    "everything agrees: peak reserved, device allocs and frees, the OOM, the re-simulation"
gms replay "$RESNET" --capacity=3150157824B --format=json --fail-on-mismatch
is "$rc" 0 "capped at 3150157824: agrees with the simulation"
is "$(grep -c '"oom_event":[[:space:]]*2381$' "$TMP/out")" 3 "out of memory at event 2381, as PyTorch"
gms replay "$RESNET" --policy=no-cache --touch --no-cache-baseline
is "$rc" 0 "no-cache with --touch and --no-cache-baseline"
grep -q "^  cudaMalloc  *3836 calls" "$TMP/out"; ok $? "a cudaMalloc per allocation"
gms replay "$RESNET" --alloc-conf=expandable_segments:True --format=json --fail-on-mismatch
is "$rc" 0 "expandable segments over the driver's virtual memory API agree"
grep -q '"peak_reserved":[[:space:]]*3177185280,' "$TMP/out"; ok $? "reserving PyTorch's 3177185280"
gms replay "$RESNET" --cuda-device=99
is "$rc" 4 "--cuda-device=99: exit 4"
grep -q "^gpumemsim: error: no GPU 99 here (there" "$TMP/err"; ok $? "saying there is no GPU 99"
done_testing
