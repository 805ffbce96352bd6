#!/bin/sh
# cli-compare.sh - `gpumemsim compare` and `gpumemsim policies`
# (sim/cli/cmd-compare.c, sim/cli/cmd-policies.c, analysis/report-compare.c).
# Expected numbers come from the real allocators (t/data/pytorch.json,
# t/data/jax.json.gz, t/data/nocache-h200.json).
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json

gms compare --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim compare [options] <trace> [<after>] | --ranks <trace|dir>..." "compare --help"
for opt in --policies --capacity --placement --option --jobs --format; do
	grep -q -- "$opt" "$TMP/out"; ok $? "compare --help documents $opt"
done

gms policies
is "$rc" 0 "policies exits 0"
for p in caching grow-only preallocate no-cache ideal; do
	grep -q "^$p\$" "$TMP/out"; ok $? "policies lists $p"
done
grep -q "set_memory_growth" "$TMP/out"; ok $? "policies says which framework setting grow-only models"
grep -q "^    --option flavor=...  (default: tensorflow)\$" "$TMP/out"; ok $? "policies lists options with defaults"
gms policies --format=json
grep -q '"name":.*"preallocate"' "$TMP/out"; ok $? "policies --format=json"
is "$(json_keys)" "schema policies" "policies --format=json: an object, its schema and the list"
tr -d '\n\t' <"$TMP/out" | grep -q '{"key":"alloc_conf","default":"",'
ok $? "policies --format=json: caching's alloc_conf defaults to the empty string, not '\"\"'"

# A PyTorch snapshot: PyTorch's allocators by default (its caching allocator
# as recorded and with expandable segments, cudaMallocAsync, no caching) and
# the bound.  Real numbers: PyTorch reserved 3703570432 in 118 segments, and
# 3177185280 in 110 with expandable segments; with caching off the H200
# backed 3330277376; the live peak is 3127304348.
gms compare "$RESNET" --format=json
is "$rc" 0 "compare exits 0"
is "$(sed -n "s/^$TAB$TAB$TAB\"label\":$TAB//p" "$TMP/out" | tr -d '"' | tr '\n' '|')" \
    "caching|caching alloc_conf=expandable_segments:True|cuda-async|no-cache|ideal|" \
    "compare on a PyTorch snapshot runs PyTorch's allocators by default, and the bound"
is "$(json_top framework) $(json_top other_frameworks)" '"PyTorch" []' \
    "... and says whose they are, none another framework's"
cat >"$TMP/expect" <<'X'
caching 3703570432 118
caching_alloc_conf=expandable_segments:True 3177185280 110
no-cache 3330277376 3836
ideal 3127304348 3836
X
awk -F'\t' '
	/^\t\t\t"peak_reserved":/ { gsub(/,/, "", $5); r = $5 }
	/^\t\t\t"device_allocs":/ { gsub(/,/, "", $5); d = $5 }
	/^\t\t\t"label":/ { gsub(/"/, "", $5); gsub(/ /, "_", $5); if ($5 != "cuda-async") print $5, r, d }
' "$TMP/out" >"$TMP/got"
is "$(cat "$TMP/got")" "$(cat "$TMP/expect")" "compare: each policy's peak reserved and device allocations equal the real allocators'"
is "$(json_top winner)" '"cuda-async"' "balanced: no-cache reserves less than the recorded setting but its driver time rules it out; cudaMallocAsync's pool reserves least"
is "$(json_top by)" '"balanced"' "JSON says how the winner was picked"
is "$(json_top peak_live)" 3127304348 "compare reports the live peak"
# every framework's allocators, one flag away: the others shown, never the winner
gms compare "$RESNET" --policies=all --format=json
is "$(grep -c "^$TAB$TAB$TAB\"label\":" "$TMP/out") $(json_top winner)" '10 "cuda-async"' \
    "--policies=all: every policy side by side; the winner still one this PyTorch job can use"
tr -d '\n\t' <"$TMP/out" | grep -q '"other_frameworks":\["grow-only", "preallocate", "rmm-pool", "rmm-arena", "rmm-binning", "rmm-fixed"\]'
ok $? "... and says which are other frameworks'"
awk -F'\t' '
	/^\t\t\t"peak_reserved":/ { gsub(/,/, "", $5); r = $5 }
	/^\t\t\t"device_allocs":/ { gsub(/,/, "", $5); d = $5 }
	/^\t\t\t"label":/ { gsub(/"/, "", $5); if ($5 == "grow-only") print $5, r, d }
' "$TMP/out" >"$TMP/got"
is "$(cat "$TMP/got")" "grow-only 4292870144 11" "... grow-only as JAX grew its pool (4292870144 in 11 regions)"
gms compare "$RESNET" --policies=all
grep -q "^  not PyTorch's allocators, which its users cannot set (shown beside, never the\$" "$TMP/out"
ok $? "text: the other frameworks' rows are said to be so"
gms compare "$RESNET" --format=json --by=memory --policies=caching,grow-only,no-cache,ideal
is "$(json_top winner)" '"no-cache"' "--by=memory: the winner fits and reserves least (3330277376 < 3703570432)"

gms compare "$RESNET" --policies=caching,grow-only:flavor=jax,no-cache --by=memory
grep -q "^  caching  *3.45 GiB  *18.4%  *14.9%  *118 / 0  *[0-9.]* ms  *[0-9.]* ms  *fits\$" "$TMP/out"; ok $? "text: the caching row"
grep -q "^  grow-only:flavor=jax  *4.00 GiB  *37.3%" "$TMP/out"; ok $? "text: a policy with options is labelled with them"
grep -q "^winner: no-cache fits and reserves least: 3.10 GiB" "$TMP/out"; ok $? "text: the winner and why"
grep -q "with 7669 device calls against 118\$" "$TMP/out"; ok $? "text: why mentions what the winner costs in device calls"

# Capped where PyTorch ran out at event 2381: no policy but the bound fits.
gms compare "$RESNET" --capacity=3150157824B --policies=caching,grow-only:flavor=jax,ideal --format=json
is "$(json_top winner)" null "capped: no winner"
grep -q '"event":.2381,' "$TMP/out"; ok $? "capped: caching's OOM at PyTorch's event"
grep -q "only a perfect allocator would" "$TMP/out"; ok $? "capped: why there is no winner"

# Ties go to fewer device calls: two identical policies but one.
gms compare "$RESNET" --policies=ideal,caching,caching --format=json
is "$(json_top winner)" '"caching"' "ties: equal policies, the first wins; ideal never does"

# Results do not depend on how many threads ran them.
gms compare "$RESNET" --format=json --jobs=1
cp "$TMP/out" "$TMP/one"
gms compare "$RESNET" --format=json --jobs=8
cmp -s "$TMP/one" "$TMP/out"; ok $? "--jobs=1 and --jobs=8 give the same output"

# --option: to every policy with the key, or POLICY.KEY to one.
gms compare "$TRACES/synth-kvcache-10.json" --capacity=1417691136B --policies=grow-only,preallocate --option flavor=jax --format=json
is "$(grep -c '"flavor":.*"jax"' "$TMP/out")" 2 "--option KEY=VALUE reaches every policy that has KEY"
gms compare "$RESNET" --policies=caching,grow-only --option flavor=jax --format=json
is "$(grep -c '"error":' "$TMP/out") $(grep -c '"flavor":.*"jax"' "$TMP/out")" "0 1" \
    "--option KEY=VALUE skips a policy without KEY (caching has no flavor) and reaches grow-only"
gms compare "$RESNET" --policies=caching,grow-only --option grow-only.gc=off --format=json
is "$(grep -c '"gc":.*"off"' "$TMP/out")" 1 "--option POLICY.KEY=VALUE reaches that policy only"

# A policy that cannot run is shown, not fatal; a bad trace is fatal.
gms compare "$TRACES/synth-thresholds-6.json" --policies=caching,preallocate
grep -q "^  preallocate  *not run: preallocate needs a limit to reserve" "$TMP/out"; ok $? "a policy that cannot run says why"
check_fail 3 "gpumemsim: error: --policies: unknown policy 'bfc' (known: caching, grow-only, preallocate, no-cache, ideal, rmm-pool, rmm-arena, rmm-binning, cuda-async, rmm-fixed)" \
    compare "$RESNET" --policies=caching,bfc
check_fail 3 "gpumemsim: error: --policies: policy 'grow-only:gc': expected KEY=VALUE after ':', not 'gc'" \
    compare "$RESNET" --policies=grow-only:gc
check_fail 3 "gpumemsim: error: --jobs takes a number from 1 to 1024, not '0'" compare "$RESNET" --jobs=0
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"free","id":9}\n' >"$TMP/bad.jsonl"
check_fail 3 "gpumemsim: error: $TMP/bad.jsonl:2: free of unknown id 9" compare "$TMP/bad.jsonl"
check_fail 2 "gpumemsim: error: no trace given" compare

# --by-site, on t/data/sites/handworked.json in 60 MiB, by hand: no-cache
# reserves each request rounded to 2 MiB, so it peaks at event 2 with 8 + 8
# + 30 MiB of a.py (38) and b.py (8); caching at event 4 (t/attrib.c).
HAND=$TOP_SRCDIR/t/data/sites/handworked.json
gms compare "$HAND" --policies=caching,no-cache --by-site --capacity=60MiB
is "$rc" 0 "compare --by-site exits 0"
grep -q "^no-cache: At the peak reservation (event 2, 46.00 MiB reserved), what holds the memory:\$" "$TMP/out"
ok $? "compare --by-site: no-cache's peak"
grep -q "^    8.00 MiB       1   17.4%          1-1          b.py:2 g\$" "$TMP/out"
ok $? "compare --by-site: b.py's 8 MiB there"
grep -q "^caching: At the peak reservation (event 4, 52.00 MiB reserved)" "$TMP/out"
ok $? "compare --by-site: caching's peak"
gms compare "$HAND" --policies=caching,no-cache,preallocate --by-site --capacity=60MiB --format=json
is "$(grep -c '"moment":' "$TMP/out")" 6 "compare --by-site JSON: each result's peak and OOM (preallocate's too)"
gms compare "$HAND" --policies=caching,preallocate --by-site --format=json
is "$rc $(grep -c '"moment":' "$TMP/out")" "0 1" "compare --by-site JSON: nothing for a policy that needs a capacity"

done_testing
