#!/bin/sh
# cli-run.sh - `gpumemsim run`, --help and --version as a user and a script
# meet them (sim/cli/main.c, sim/cli/cmd-run.c, analysis/report-run.c).  Expected
# numbers are what PyTorch 2.11's real allocator did (t/data/pytorch.json)
# or facts of the sample traces, never this program's own output.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json

# A count's noun agrees with it: one free, one alloc of the device
printf '{"format":"gpumemsim-trace","version":1,"name":"one"}\n{"op":"alloc","id":1,"size":512}\n{"op":"alloc","id":2,"size":512}\n{"op":"free","id":1}\n' >"$TMP/one.jsonl"
gms run "$TMP/one.jsonl"
is "$(sed -n 1p "$TMP/out")" "one: 3 events (2 allocs, 1 free)" "run: '1 free', not '1 frees'"
grep -q '^  device calls    1 alloc, 0 frees, 0 retries$' "$TMP/out"; ok $? "... '1 alloc' of the device"
gms info "$TMP/one.jsonl"
grep -q '^  events          3: 2 allocs, 1 free, 0 marks, 0 observed$' "$TMP/out"; ok $? "info: '1 free'"

gms --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim <command> [options] <trace>" "--help: usage on stdout, exit 0"
grep -q "^  run " "$TMP/out"; ok $? "--help lists the run command"

gms run --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim run [options] <trace> | --ranks <trace|dir>..." "run --help: usage, exit 0"
for opt in --policy --capacity --placement --format --fail-on-oom --unknown-frees --check; do
	grep -q -- "$opt" "$TMP/out"; ok $? "run --help documents $opt"
done
grep -q "^  caching " "$TMP/out"; ok $? "run --help lists the caching policy"

gms ru --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim run [options] <trace> | --ranks <trace|dir>..." "a unique prefix names the command"
gms r --help
is "$rc $(head -n 1 "$TMP/err")" "2 gpumemsim: error: ambiguous command 'r', could be: run report replay" "an ambiguous one is an error"

gms --version
is "$rc" 0 "--version exits 0"
grep -q "^gpumemsim [0-9]" "$TMP/out"; ok $? "--version names the version"
grep -q "^cuda replay: \(built\|not built (reconfigure with --with-cuda)\)\$" "$TMP/out"
ok $? "--version says whether CUDA replay was built"

# Uncapped: PyTorch reserved 3703570432 bytes in 118 segments and never freed one.
gms run "$RESNET" --format=json
is "$rc" 0 "run --format=json exits 0"
is "$(json_keys)" "schema trace policy options capacity events peak_live peak_reserved peak_allocated peak_requested device_allocs device_frees alloc_retries fragmentation oom observed incomplete" \
    "JSON has exactly the keys of the CLI contract, in order"
is "$(json_top trace)" '"resnet50-train-b32"' "trace is the trace's name"
is "$(json_top policy)" '"caching"' "caching is the default policy"
is "$(json_top capacity)" null "capacity is null when unlimited"
is "$(json_top events)" 7787 "events: 3836 allocs + 3833 frees + 118 segment_allocs"
is "$(json_top peak_reserved)" 3703570432 "peak_reserved equals PyTorch's"
is "$(json_top peak_allocated)" 3150157824 "peak_allocated equals PyTorch's"
is "$(json_top peak_requested)" 3127304348 "peak_requested equals PyTorch's"
is "$(json_top device_allocs)" 118 "device_allocs equals PyTorch's"
is "$(json_top device_frees)" 0 "device_frees equals PyTorch's"
is "$(json_top alloc_retries)" 0 "alloc_retries equals PyTorch's"
is "$(json_top oom)" null "no OOM uncapped"
is "$(json_in observed matches)" true "observed: the recording is reproduced"
frag=$(json_top fragmentation)
is "$(echo "$frag" | cut -c1-6)" "0.1494" "fragmentation is 1 - 3150157824/3703570432"

# Capped at the limit PyTorch enforced: it ran out at event 2381 (12845056 bytes,
# conv.py:548), with 3141533696 bytes at its peak.
for placement in model recorded; do
	gms run "$RESNET" --capacity=3150157824B --placement=$placement --format=json
	is "$rc" 0 "capped ($placement): an OOM is a result, exit 0"
	is "$(json_top capacity)" 3150157824 "capped ($placement): capacity in bytes"
	is "$(json_top peak_reserved)" 3141533696 "capped ($placement): peak reserved equals PyTorch's"
	is "$(json_in oom event)" 2381 "capped ($placement): OOM at PyTorch's event"
	is "$(json_in oom size)" 12845056 "capped ($placement): the failing request's size"
	is "$(json_in oom reserved)" 3141533696 "capped ($placement): reserved at the OOM equals PyTorch's"
	is "$(json_in oom allocated)" 3055474176 "capped ($placement): allocated at the OOM equals PyTorch's"
	is "$(json_in oom at)" '"conv.py:548 _conv_forward"' "capped ($placement): where in the program"
	is "$(json_in observed matches)" false "capped ($placement): the uncapped recording is not reproduced"
done

gms run "$RESNET" --capacity=3150157824B --fail-on-oom --format=json
is "$rc" 1 "--fail-on-oom: exit 1 when the run runs out of memory"
gms run "$RESNET" --fail-on-oom --format=json
is "$rc" 0 "--fail-on-oom: exit 0 when it does not"

gms run "$RESNET" --capacity=3004.224609375MiB
is "$rc" 0 "capacity with a unit (3004.224609375 MiB = 3150157824 B)"
grep -q "^OUT OF MEMORY at event 2381: a request for 12.25 MiB (12845056 B) on stream 0, at conv.py:548 _conv_forward\$" "$TMP/out"
ok $? "text: the OOM story names the event, size, stream and place"
grep -q "^  peak reserved  .* 3141533696 B\$" "$TMP/out"; ok $? "text: peak reserved in bytes"
grep -q "^  fragmentation " "$TMP/out"; ok $? "text: fragmentation"
! grep -q "^  overhead " "$TMP/out"; ok $? "text: no overhead figure for a run cut short by an OOM"
grep -q "^  device calls    148 allocs, 47 frees, 5 retries\$" "$TMP/out"
ok $? "text: device calls equal PyTorch's (148 allocs, 47 frees, 5 retries)"

gms run "$RESNET"
grep -q "^observed (pytorch-caching, as recorded): reproduced exactly" "$TMP/out"
ok $? "text: says the recording is reproduced"

# The same trace gzip-compressed, and GPT-2 kept as gzip'd JSON Lines.
gzip -c "$RESNET" >"$TMP/r.json.gz"
gms run "$TMP/r.json.gz" --format=json
is "$(json_top peak_reserved)" 3703570432 ".json.gz reads the same"
cp "$RESNET" "$TMP/noext"
gms run "$TMP/noext" --format=json
is "$(json_top peak_reserved)" 3703570432 "a trace without extension is recognised by content"
gms run "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" --format=json
is "$(json_top peak_reserved)" 16433283072 ".jsonl.gz: GPT-2's peak reserved equals PyTorch's"
is "$(json_top device_allocs)" 184 ".jsonl.gz: GPT-2's 184 segments"
gms run "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" --capacity=12740262912B --placement=recorded --format=json
is "$(json_in oom event)" 1053 "GPT-2 capped at 12740262912: OOM at PyTorch's event 1053"

# Two streams: the prefetch trace's side stream never reuses stream 0's cache.
gms run "$TRACES/resnet50-train-b32-prefetch.json" --format=json
is "$(json_top peak_reserved)" 3707764736 "two streams: peak reserved equals PyTorch's"
is "$(json_top device_allocs)" 111 "two streams: 111 segments, as PyTorch"

# Marks: the swiss-cheese trace marks its rounds; the OOM names the last one.
gms run "$TRACES/synth-swiss-cheese-8.json" --capacity=2539153408B --format=json
is "$(json_in oom event)" 205 "synthetic trace capped: OOM at PyTorch's event 205"
is "$(json_in oom mark)" '"round 0"' "the OOM names the last mark before it"

gms run "$RESNET" --check --format=json
is "$rc $(json_top peak_reserved)" "0 3703570432" "--check: invariants hold after every event"

# --by-site on t/data/sites/handworked.json, worked out by hand (t/attrib.c
# says how): in 60 MiB the peak is 52 MiB at event 4, 38 MiB of it a.py's
# two allocations (73.1%); event 7's 100 MiB runs out, the retry leaves the
# small pool's 2 MiB segment.
HAND=$TOP_SRCDIR/t/data/sites/handworked.json
gms run "$HAND" --by-site --capacity=60MiB
is "$rc" 0 "run --by-site exits 0"
grep -q "^At the peak reservation (event 4, 52.00 MiB reserved), what holds the memory:\$" "$TMP/out"
ok $? "--by-site: the peak reservation's moment"
grep -q "^   38.00 MiB       2   73.1%          0-2          a.py:1 f\$" "$TMP/out"
ok $? "--by-site: a.py's row: bytes, count, share of the reservation, events"
grep -q "^At the OOM (event 7, 2.00 MiB reserved), what holds the memory:\$" "$TMP/out"
ok $? "--by-site: the OOM's moment, after the failed retry"
grep -q "^  = 1000 B live in 1 allocation + 24 B of block rounding + " "$TMP/out"
ok $? "--by-site: what makes up the reservation at the OOM"
cp "$TMP/out" "$TMP/by-site.txt"
gms run - --by-site --capacity=60MiB <"$HAND"
cmp -s "$TMP/out" "$TMP/by-site.txt"; ok $? "--by-site reads standard input twice as well"
gms run "$HAND" --by-site --capacity=60MiB --format=json
is "$(json_keys)" "schema trace policy options capacity events peak_live peak_reserved peak_allocated peak_requested device_allocs device_frees alloc_retries fragmentation oom observed incomplete sites" \
    "--by-site: JSON gains sites, last"
is "$(grep -c '"moment":' "$TMP/out")" 2 "--by-site: two moments in the JSON"
grep -q "\"largest_free\":${TAB}2096128," "$TMP/out"; ok $? "--by-site JSON: the OOM's largest free block, 2 MiB - 1024"
grep -q "\"reserved_free\":${TAB}14679040," "$TMP/out"; ok $? "--by-site JSON: 52 MiB reserved - 38 MiB - 1024 allocated at the peak"
gms run "$HAND" --by-site --top=1
grep -q "^      1000 B       1    0.0%          4-4          (1 other sites)\$" "$TMP/out"
ok $? "--top=1 folds the rest into one row"
gms info "$HAND"
grep -q "^At the live peak (event 7, 100.00 MiB live), what holds the memory:\$" "$TMP/out"
ok $? "info: the live peak's sites"
gms info "$HAND" --format=json
is "$(json_in sites moment)" '"live_peak"' "info JSON: sites at the live peak"
is "$(json_in sites live)" 104858600 "info JSON: live there"

# The placement model (the driver's rules measured on the H200) gives
# PyTorch's own run of GPT-2 on the H200 in 14155847680 bytes (the shared
# ground truth: peak 13908312064, out of memory at event 12772), where the
# old two-region model did not; "driver" is another name for it.
gms run "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" --capacity=14155847680B --format=json
is "$rc $(json_top peak_reserved) $(json_in oom event)" "0 13908312064 12772" "placement model: GPT-2 in 14155847680 as PyTorch"
gms run "$TRACES/gpt2-train-varlen-bf16.jsonl.gz" --placement=driver --capacity=14155847680B --format=json
is "$rc $(json_top peak_reserved) $(json_in oom event) $(json_in options placement)" "0 13908312064 12772 \"model\"" "--placement=driver is the model"

# --placements (issue 17): PyTorch ran synth-kvcache-10 in 1417691136 bytes
# twice, in a fresh process (peak 1413480448, out of memory at event 5528)
# and in one that had reserved before (peak 1413480448, event 5418): both
# inside the range of 16 placements.
KV=$TRACES/synth-kvcache-10.json
gms run "$KV" --capacity=1417691136B --placements=16 --format=json
cp "$TMP/out" "$TMP/p16.json"
pmin=$(json_deep placements peak_reserved min)
pmax=$(json_deep placements peak_reserved max)
first=$(json_deep placements oom first_event)
last=$(json_deep placements oom last_event)
is "$rc $(json_in placements n)" "0 16" "--placements=16: sixteen placements"
[ "$pmin" -le 1413480448 ] && [ 1413480448 -le "$pmax" ]
ok $? "--placements: PyTorch's peak inside [$pmin, $pmax]"
[ "$first" -le 5418 ] && [ 5528 -le "$last" ]
ok $? "--placements: both of PyTorch's OOM events (5418, 5528) inside [$first, $last]"
is "$(json_top peak_reserved) $(json_in oom event)" "1413480448 5528" "--placements: the run itself is the model's (PyTorch's fresh run)"
# the range is the runs' own: their smallest and largest peaks and OOM events
runs_oom=$(sed -n 's/^[[:space:]]*"oom_event":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out" | sort -n)
runs_peak=$(sed -n '/"runs":/,$p' "$TMP/out" | sed -n 's/^[[:space:]]*"peak_reserved":[[:space:]]*\([0-9]*\),*$/\1/p' | sort -n)
is "$(echo "$runs_oom" | head -n 1) $(echo "$runs_oom" | tail -n 1) $(echo "$runs_oom" | wc -l)" "$first $last 16" "--placements: first and last OOM events are the runs' extremes"
is "$(echo "$runs_peak" | head -n 1) $(echo "$runs_peak" | tail -n 1)" "$pmin $pmax" "--placements: the peak range is the runs' extremes"
gms run "$KV" --capacity=1417691136B --placements=16 --format=json --jobs=1
cmp -s "$TMP/out" "$TMP/p16.json"
ok $? "--placements: the same on one thread as on every core"
gms run "$KV" --capacity=1417691136B --placements=16
grep -q "^PLACEMENTS: 16 " "$TMP/out" && grep -q "^  out of memory   16 of 16 placements (100.0%), at events $first \.\. $last\$" "$TMP/out"
ok $? "--placements: the text says how many run out, and where"
# synth-thresholds-6 in 1944059904 bytes: the model fits, one placement of 16 does not
gms run "$TRACES/synth-thresholds-6.json" --capacity=1944059904B --format=json
is "$rc $(json_top oom)" "0 null" "synth-thresholds-6 in 1944059904: the model fits"
gms run "$TRACES/synth-thresholds-6.json" --capacity=1944059904B --placements=16 --fail-on-oom --format=json
is "$rc $(json_deep placements oom count)" "1 1" "--placements --fail-on-oom: one placement runs out: exit 1"
gms run "$TRACES/synth-thresholds-6.json" --capacity=1944059904B --placements=1 --fail-on-oom
is "$rc" 0 "--placements=1 is the model alone: it fits"
check_fail 2 "gpumemsim: error: --placements samples the placement model's placements: it does not go with --placement=recorded" \
    run "$TRACES/resnet50-train-b32.json" --placement=recorded --placements=4
cat "$KV" | "$GPUMEMSIM" run - --capacity=1417691136B --placements=16 --format=json >"$TMP/out" 2>"$TMP/err"
cmp -s "$TMP/out" "$TMP/p16.json"
ok $? "--placements: standard input read once for all"

# a trace from standard input is named by GPUMEMSIM_STDIN_NAME (the Python
# package's "snapshot"), else '-'; a header's own name wins
SNAPU=$TOP_SRCDIR/t/data/users/oom-except.pickle.gz
is "$("$GPUMEMSIM" run - <"$SNAPU" | sed -n 1p)" "-: 1084 events (522 allocs, 518 frees)" "standard input: named '-'"
is "$(GPUMEMSIM_STDIN_NAME=snapshot "$GPUMEMSIM" run - <"$SNAPU" | sed -n 1p)" \
    "snapshot: 1084 events (522 allocs, 518 frees)" "GPUMEMSIM_STDIN_NAME names it"
is "$(GPUMEMSIM_STDIN_NAME=snapshot "$GPUMEMSIM" run - <"$RESNET" | sed -n 1p | cut -d: -f1)" \
    "resnet50-train-b32" "... a native trace's header names itself"

done_testing
