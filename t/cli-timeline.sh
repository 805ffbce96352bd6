#!/bin/sh
# cli-timeline.sh - `run --timeline`, `compare --timeline`, `--points` and
# `--gpu`/`--context-overhead` (sim/cli/cmd-run.c, sim/cli/cmd-compare.c,
# analysis/timeline.c, sim/gpus.c), against PyTorch's real runs
# (t/data/pytorch.json): ResNet-50's reservation grew to 2097152 bytes at
# event 1, 4194304 at 86, 6291456 at 117 and peaked at 3703570432 at event
# 1918, 3127304348 bytes live at most; GPT-2 ran out of memory at event 12772
# under every limit from 14155847680 to 15863924224 bytes.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json
GPT2=$TRACES/gpt2-train-varlen-bf16.jsonl.gz

gms run "$RESNET" --timeline="$TMP/t.csv"
is "$rc" 0 "run --timeline exits 0"
is "$(head -n 1 "$TMP/t.csv")" "event,t_us,live,allocated,reserved" "the CSV header"
is "$(awk -F, 'NR > 1 && $5 != p { printf "%s:%s ", $1, $5; p = $5; if (++n == 3) exit }' "$TMP/t.csv")" \
    "1:2097152 86:4194304 117:6291456 " "reserved changes at PyTorch's events, to its bytes"
is "$(awk -F, 'NR > 1 && $5 > m { m = $5; e = $1 } END { print e ":" m }' "$TMP/t.csv")" "1918:3703570432" \
    "the peak at PyTorch's event"
is "$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m }' "$TMP/t.csv")" 3127304348 "the live peak"
is "$(awk -F, 'NR > 1 && ($3 != l || $4 != a || $5 != r) { n++ } { l = $3; a = $4; r = $5 } END { print n + 0 }' "$TMP/t.csv")" \
    "$(($(wc -l <"$TMP/t.csv") - 1))" "a row at every change and only there"

gms run "$RESNET" --timeline="$TMP/p.csv" --points=40
test "$(($(wc -l <"$TMP/p.csv") - 1))" -le 40; ok $? "--points=40: at most 40 rows"
is "$(awk -F, 'NR > 1 && $5 > m { m = $5; e = $1 } END { print e ":" m }' "$TMP/p.csv")" "1918:3703570432" \
    "the envelope keeps the peak, at its event"
gms run "$RESNET" --timeline=- --format=json
is "$(head -n 1 "$TMP/out")" "event,t_us,live,allocated,reserved" "--timeline=- writes to stdout"

gms compare "$RESNET" --policies=caching,grow-only --timeline="$TMP/c.csv"
is "$(head -n 1 "$TMP/c.csv")" "event,t_us,live,caching_allocated,caching_reserved,grow-only_allocated,grow-only_reserved" \
    "compare --timeline: a column pair per policy"
is "$(awk -F, 'NR > 1 && $5 > m { m = $5 } END { print m }' "$TMP/c.csv")" 3703570432 "caching's peak in its column"
is "$(awk -F, 'NR > 1 && $7 > m { m = $7 } END { print m }' "$TMP/c.csv")" 4292870144 \
    "grow-only's: JAX's real peak pool for this trace (t/data/jax.json.gz)"

# --gpu: T4's 15828254720 bytes less 512 MiB of context.
gms run "$GPT2" --gpu=T4 --format=json
is "$(json_top capacity)" 15291383808 "--gpu=T4: the capacity is its memory less the context"
is "$(json_in oom event)" 12772 "GPT-2 runs out on a T4 at event 12772, as PyTorch did"
gms run "$GPT2" --gpu=T4 --context-overhead=0 --format=json
is "$(json_top capacity)" 15828254720 "--context-overhead=0: the whole card"
gms run "$RESNET" --gpu=T4
grep -q "capacity 14.24 GiB (T4 less the context)" "$TMP/out"; ok $? "text names the GPU"
gms compare "$GPT2" --gpu=H200 --policies=caching --format=json
grep -q '^'"$TAB$TAB$TAB"'"oom":'"$TAB"'null,$' "$TMP/out"; ok $? "compare --gpu=H200: GPT-2 fits"
grep -q '"peak_reserved":[[:space:]]*16433283072,' "$TMP/out"; ok $? "reserving PyTorch's uncapped 16433283072"

check_fail 2 "gpumemsim: error: give --capacity or --gpu, not both" run "$RESNET" --gpu=T4 --capacity=3GiB
check_fail 3 "gpumemsim: error: --points takes a number from 1 to 100000000, not '0'" \
    run "$RESNET" --timeline=- --points=0
check_fail 4 "gpumemsim: error: cannot create '$TMP/none/t.csv': No such file or directory" \
    run "$RESNET" --timeline="$TMP/none/t.csv"
done_testing
