#!/bin/sh
# cli-convert.sh - `gpumemsim convert` and `gpumemsim info`, and every
# command reading PyTorch snapshots and RMM logs directly (sim/cli/cmd-convert.c,
# sim/cli/cmd-info.c, traces/trace-*.c).  Expected numbers are PyTorch's own
# (t/data/pytorch.json, the samples' observed memory_stats) or counted in the
# samples.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32
SNAP=$TOP_SRCDIR/t/data/snapshots

gms convert --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim convert [options] <in> <out>" "convert --help"
gms info --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim info [options] <trace> | --ranks <trace|dir>..." "info --help"

# A snapshot straight into run: the numbers of the .json sample, PyTorch's.
gms run "$RESNET.pickle" --format=json
is "$rc $(json_top peak_reserved) $(json_top device_allocs)" "0 3703570432 118" "run reads a snapshot pickle directly"
is "$(json_top events)" 7787 "run: the snapshot's events are the .json's"
gms run "$RESNET.pickle" --capacity=3150157824B --placement=recorded --format=json
is "$(json_in oom event)" 2381 "run on the pickle, capped: OOM at PyTorch's event"
gms compare "$RESNET.pickle" --policies=caching,ideal --format=json
is "$(json_top peak_live)" 3127304348 "compare reads a pickle too"

# convert: pickle -> every native form, and back through run.
for out in r.json r.jsonl r.json.gz r.jsonl.gz; do
	gms convert "$RESNET.pickle" "$TMP/$out"
	is "$rc" 0 "convert pickle -> $out"
	gms run "$TMP/$out" --format=json --placement=recorded
	is "$(json_top peak_reserved) $(json_in observed matches)" "3703570432 true" "$out: reproduces its recording"
done
gzip -dc "$TMP/r.json.gz" | cmp -s - "$TMP/r.json"; ok $? ".json.gz holds exactly the .json"
gms convert "$TMP/r.jsonl" "$TMP/again.json"
cmp -s "$TMP/again.json" "$TMP/r.json"; ok $? "jsonl -> json gives what pickle -> json gave"
gms convert "$RESNET.pickle" -
is "$(head -c 40 "$TMP/out")" '{"format":"gpumemsim-trace","version":1,' "convert to - writes JSON Lines to stdout"
is "$(wc -l <"$TMP/out" | tr -d ' ')" 7788 "one header line and 7787 events"

# The C++ path's pickle (protocol 2), and a ring-buffer snapshot, seeded.
gms convert "$SNAP/cpp-path.pickle" "$TMP/cpp.jsonl"
is "$rc" 0 "convert reads the C++ path's protocol-2 pickle"
gms info "$SNAP/ring.pickle" --format=json
is "$rc" 0 "info on a ring-buffer snapshot"
# Python read 25 frees of blocks allocated before the ring began, 6 blocks live
# at the end never allocated in it, 7 segments, none reserved in the trace.
"$GPUMEMSIM" convert "$SNAP/ring.pickle" - | head -n 1 >"$TMP/hdr"
grep -q '"seeded":{"allocs":31,"segments":7,' "$TMP/hdr" && grep -q '"starts_mid_run":true' "$TMP/hdr"
ok $? "ring: 25 + 6 blocks and 7 segments seeded, and it starts mid-run"
gms info "$SNAP/ring.pickle"
grep -q "^  starts mid-run  yes" "$TMP/out"; ok $? "info text says the trace starts mid-run"

# RMM logs.
gms info "$TOP_SRCDIR/t/data/rmm-log.csv" --format=json
is "$(json_top allocs) $(json_top frees) $(json_top peak_live)" "4 4 5097664" "info on an RMM log: the peak is 3000000 + 512 + 2 MiB, after the 1 MiB block went"
gms run "$TOP_SRCDIR/t/data/rmm-log.csv" --policy=ideal --format=json
is "$(json_top peak_reserved)" 5097664 "run reads an RMM log"

# info on the sample: counted in the trace, peak equal to PyTorch's peak requested.
gms info "$RESNET.json" --format=json
is "$(json_top events) $(json_top allocs) $(json_top frees)" "7787 3836 3833" "info: counts"
is "$(json_top peak_live)" 3127304348 "info: the live peak equals PyTorch's peak requested bytes"
is "$(json_top duration_us)" 1370211 "info: duration from the first to the last time (1795962823627052 - 1795962822256841)"
grep -q '"min":.134217728,' "$TMP/out"; ok $? "info: the histogram has the 128 MiB bucket"
gms info "$RESNET.json"
grep -q "^  peak live       2.91 GiB (3127304348 B) at event 2419\$" "$TMP/out"; ok $? "info text: the live peak and when"
grep -q "^  largest allocations" "$TMP/out"; ok $? "info text: the largest allocations"

# Errors.
check_fail 2 "gpumemsim: error: convert needs an output: <out> or -o <out>" convert "$RESNET.json"
check_fail 2 "gpumemsim: error: give the output once: <out> or -o <out>" \
    convert "$RESNET.json" "$TMP/a.jsonl" -o "$TMP/b.jsonl"
# -o is --output in every command: convert's <out> too
gms convert "$RESNET.json" -o "$TMP/o.jsonl"
gms convert "$RESNET.json" "$TMP/p.jsonl"
cmp -s "$TMP/o.jsonl" "$TMP/p.jsonl"; ok $? "convert IN -o OUT writes what convert IN OUT does"
check_fail 3 "gpumemsim: error: cannot tell the format of '$TMP/x.txt': name it .json, .jsonl, .json.gz or .jsonl.gz" \
    convert "$RESNET.json" "$TMP/x.txt"
check_fail 3 "gpumemsim: error: $SNAP/proto5.pickle: no device 3: the snapshot has traces for devices 0 to 0" \
    info "$SNAP/proto5.pickle" --device=3
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"free","id":4}\n' >"$TMP/bad.jsonl"
check_fail 3 "gpumemsim: error: $TMP/bad.jsonl:2: free of unknown id 4" convert "$TMP/bad.jsonl" "$TMP/bad.json"
test ! -e "$TMP/bad.json"; ok $? "a failed convert leaves no output"
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,00:00:01.0,alocate,0x10,5,0x0\n' >"$TMP/bad.csv"
check_fail 3 "gpumemsim: error: $TMP/bad.csv:2: unknown action 'alocate' (RMM logs allocate, free and allocate failure)" \
    info "$TMP/bad.csv"

# Integers are written as digits: a 16-digit time ending in 0 (ResNet's
# event of id 15 at 1795962822257990 us) is not 1.79596282225799e+15, a float
# to a script's JSON parser.
for ext in jsonl json; do
	gms convert "$TRACES/resnet50-train-b32.json" "$TMP/digits.$ext"
	is "$(grep -c '[0-9]e[+-]' "$TMP/digits.$ext")" 0 "convert to .$ext: no number in exponent form"
	grep -q '"id":15,"size":256,"stream":0,"addr":140211889842688,"at":"module.py:1097 <lambda>","t_us":1795962822257990}' "$TMP/digits.$ext"
	ok $? "convert to .$ext: the time of id 15 as its digits"
done

done_testing
