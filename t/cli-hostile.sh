#!/bin/sh
# t/cli-hostile.sh - what the hostile-input pass of issue 10 found, each kept
# as a regression test: inputs that crashed, hung or ate memory; outputs that
# destroyed inputs; silent wrong answers; exit codes off the contract.
# Exercises traces/pickle.c, traces/trace-pickle.c, traces/trace-json.c,
# traces/trace-csv.c, sim/outfile.c, sim/policy-caching.c, sim/allocconf.c,
# sim/cli/cmd-check.c, sim/cli/cmd-plot.c, sim/cli/main.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

# Every input here is refused or read in well under a second, sanitizers
# on: a command still busy after 20 s of CPU has lost its bound (and a
# mutant that lifts one is killed then, not minutes later).
ulimit -t 20 2>/dev/null

RESNET=$TRACES/resnet50-train-b32.json
HOSTILE=$TOP_SRCDIR/t/data/hostile
H='{"format":"gpumemsim-trace","version":1'

## 1. Pickles whose allocator_settings no snapshot holds: refused, quickly.
check_fail 3 "gpumemsim: error: $HOSTILE/cycle.pickle: allocator_settings contains itself (a cycle at depth 1)" \
    info "$HOSTILE/cycle.pickle"
check_fail 3 "gpumemsim: error: $HOSTILE/deep.pickle: allocator_settings nested deeper than 32 levels" \
    info "$HOSTILE/deep.pickle"
check_fail 3 "gpumemsim: error: $HOSTILE/dag.pickle: allocator_settings nested deeper than 32 levels" \
    info "$HOSTILE/dag.pickle"
check_fail 3 "gpumemsim: error: $HOSTILE/wide.pickle: allocator_settings holds more than 100000 values (shared through the pickle's memo): not a snapshot's settings" \
    convert "$HOSTILE/wide.pickle" "$TMP/wide.json"
test ! -e "$TMP/wide.json"; ok $? "a refused pickle leaves no output"

# A stream of one-byte opcodes: None then POP, 20 million times (40 MB, gzip'd
# to 40 KB), costs nothing held; None alone, 3 million times, is more than
# the budget of a 3 MB input.
{ printf '\200\004'; yes N0 | tr -d '\n' | head -c 40000000; printf '}.'; } |
    gzip -1 >"$TMP/pops.pickle.gz"
check_fail 3 "gpumemsim: error: $TMP/pops.pickle.gz: not a PyTorch memory snapshot: no \"device_traces\" list and no \"segments\"" \
    info "$TMP/pops.pickle.gz"
# (what the values may hold is tested under ulimit -v in t/resource.sh)
{ printf '\200\004'; head -c 2000000 /dev/zero | tr '\0' 'N'; printf '.'; } >"$TMP/nones.pickle"
check_fail 3 "gpumemsim: error: $TMP/nones.pickle: pickle byte 1048578: stack deeper than 1048576: not a snapshot" \
    info "$TMP/nones.pickle"
head -c 1000 /dev/zero >"$TMP/zeros.pickle"
check_fail 3 "gpumemsim: error: $TMP/zeros.pickle: not a pickle (its first byte is not the PROTO opcode 0x80)" \
    info "$TMP/zeros.pickle"
# A string that says it is 800 MB long, in a file of 10 bytes: refused as
# truncated, without holding 800 MB first (the window grows as bytes come).
printf '\200\004X\004\000\000\062abc' >"$TMP/long.pickle"
check_fail 3 "gpumemsim: error: $TMP/long.pickle: pickle byte 2: truncated pickle (needs 838860804 more bytes, 3 left)" \
    info "$TMP/long.pickle"
printf '\200\004\214\006alloc\000x.' >"$TMP/nul.pickle"
check_fail 3 "gpumemsim: error: $TMP/nul.pickle: pickle byte 2: a string holds a NUL byte" \
    info "$TMP/nul.pickle"

## 2. One request larger than an expandable segment's range: an OOM, not a crash.
printf '%s,"events":[{"op":"alloc","id":1,"size":107374182400},{"op":"free","id":1}]}' "$H" \
    >"$TMP/huge.json"
gms run "$TMP/huge.json" --alloc-conf=expandable_segments:True --format=json
is "$rc $(json_top device_allocs) $(json_in oom event) $(json_top capacity)" "0 0 0 null" \
    "100 GiB with expandable segments: an OOM at event 0, no capacity"
gms run "$TMP/huge.json" --alloc-conf=expandable_segments:True
grep -q '^  capacity unlimited: reserved 0 B' "$TMP/out"; ok $? "text: capacity unlimited, not 0 B"
grep -q 'no expandable segment can hold this request: one spans the device.s memory (80.00 GiB when the trace does not say)' \
    "$TMP/out"; ok $? "text: why an unlimited run ran out"
gms tune "$TMP/huge.json"
is "$rc" 0 "tune on it runs every setting"

## 3. Allocator settings: refused as PyTorch refuses them, never truncated.
check_fail 3 "gpumemsim: error: caching: PYTORCH_CUDA_ALLOC_CONF 'large_segment_size_mb:17592186044416' at character 23 ('17592186044416'): large_segment_size_mb must be at most 1073741824 (a pebibyte: no device holds one segment larger)" \
    run "$RESNET" --alloc-conf=large_segment_size_mb:17592186044416
check_fail 3 "gpumemsim: error: caching: PYTORCH_CUDA_ALLOC_CONF 'pinned_num_register_threads:1024' at character 29 ('1024'): Number of register threads should be less than or equal to 128" \
    run "$RESNET" --alloc-conf=pinned_num_register_threads:1024
gms run "$RESNET" --alloc-conf=graph_capture_record_stream_reuse:True --format=json
is "$rc $(json_top peak_reserved)" "0 3703570432" \
    "graph_capture_record_stream_reuse is accepted and changes nothing outside graph capture"
# per_process_memory_fraction is a capacity: the fraction of the trace's device.
total=$(sed -n 's/.*"total_bytes": *\([0-9]*\).*/\1/p' "$RESNET" | head -n 1)
gms run "$RESNET" --alloc-conf=per_process_memory_fraction:0.0225 --format=json
frac_cap=$(json_top capacity)
frac_oom=$(json_in oom event)
frac_res=$(json_top peak_reserved)
want_cap=$(awk -v t="$total" 'BEGIN { printf "%.0f", int(0.0225 * t) }')
is "$frac_cap" "$want_cap" "per_process_memory_fraction:0.0225 of $total B is the capacity"
gms run "$RESNET" --capacity="${want_cap}B" --format=json
is "$frac_oom $frac_res" "$(json_in oom event) $(json_top peak_reserved)" \
    "... the same run as --capacity=${want_cap}B"
check_fail 3 "gpumemsim: error: caching: per_process_memory_fraction is a fraction of the device's memory, and the trace does not say how much it has (give --gpu, or --capacity as the device's memory)" \
    run "$TMP/huge.json" --alloc-conf=per_process_memory_fraction:0.5

## 4. Outputs never destroy inputs.
cp "$RESNET" "$TMP/in.json"
cksum <"$TMP/in.json" >"$TMP/in.sum"
same_input() { cksum <"$TMP/in.json" | cmp -s - "$TMP/in.sum"; }
(cd "$TMP" && "$GPUMEMSIM" convert in.json ./in.json >/dev/null 2>"$TMP/err"); rc=$?
is "$rc $(cat "$TMP/err")" "3 gpumemsim: error: './in.json' is the input 'in.json' (the same file): write somewhere else" \
    "convert onto its input by another name: refused"
same_input; ok $? "... and the input is intact"
ln -s in.json "$TMP/link.json"
gms convert "$TMP/in.json" "$TMP/link.json"
is "$rc" 3 "convert onto a symlink to its input: refused"
ln "$TMP/in.json" "$TMP/hard.json"
gms convert "$TMP/in.json" "$TMP/hard.json"
is "$rc" 3 "convert onto a hard link of its input: refused"
gms run "$TMP/in.json" --timeline="$TMP/link.json"
is "$rc" 3 "run --timeline onto its input: refused"
gms plot "$TMP/in.json" -o "$TMP/hard.json"
is "$rc" 3 "plot -o onto its input: refused (before drawing)"
same_input; ok $? "the input survived all of them"
# A failed conversion leaves an existing output as it was.
echo keep >"$TMP/old.jsonl"
printf '%s}\n{"op":"alloc","id":1,"size":5}\n{"op":"bogus"}\n' "$H" >"$TMP/bad.jsonl"
gms convert "$TMP/bad.jsonl" "$TMP/old.jsonl"
is "$rc $(cat "$TMP/old.jsonl")" "3 keep" "a failed convert leaves the old output whole"
ls -A "$TMP" | grep -q '^\.gpumemsim-'; test $? -ne 0; ok $? "and no temporary file behind"
# A symlinked output is followed, as the shell's > follows it: the file it
# names is replaced (renamed into place beside it), the link stays a link.
echo target >"$TMP/target.svg"
ln -s target.svg "$TMP/pic.svg"
if command -v gnuplot >/dev/null 2>&1; then
	gms plot "$RESNET" -o "$TMP/pic.svg"
	is "$rc $(grep -c '^</svg>$' "$TMP/target.svg")" "0 1" "plot -o through a symlink draws into the file it names"
	test -L "$TMP/pic.svg"; ok $? "... and the link stays a link"
fi
gms run "$RESNET" --timeline=/dev/null
is "$rc" 0 "a device as the output is written, not replaced"
test -c /dev/null; ok $? "/dev/null is still a device"

## 5. Memory in proportion to the input (the 100 MB stream is last: it takes a second).

# Values and events of the document just over the 16 MiB limit (16777216 B).
{ printf '%s,"name":"' "$H"; head -c 16777300 /dev/zero | tr '\0' x; printf '","events":[]}'; } >"$TMP/long.json"
gms info "$TMP/long.json"
case $(cat "$TMP/err") in *"a JSON value longer than 16 MiB: not a trace"*) ok 0 "a header value over 16 MiB: refused" ;;
*) ok 1 "a header value over 16 MiB: refused"; sed 's/^/# /' "$TMP/err" ;; esac
{ printf '%s,"events":[{"op":"mark","label":"' "$H"; head -c 16777300 /dev/zero | tr '\0' x; printf '"}]}'; } >"$TMP/long.json"
gms info "$TMP/long.json"
# where: the element's first byte past 16 MiB (it begins after the 50 bytes before it)
pre="$H,\"events\":["
is "$(cat "$TMP/err")" "gpumemsim: error: $TMP/long.json:1:$((${#pre} + 16777216 + 1)): an event longer than 16 MiB: not a trace" \
    "an event over 16 MiB: refused while the header is read, at its 16 MiB + 1st byte"
# ... and one of brackets alone, which the scanner looks at byte by byte
{ printf '%s,"events":[' "$H"; head -c 8400000 /dev/zero | tr '\0' '['; head -c 8400000 /dev/zero | tr '\0' ']'; printf ']}'; } >"$TMP/long.json"
gms info "$TMP/long.json"
is "$(cat "$TMP/err")" "gpumemsim: error: $TMP/long.json:1:$((${#pre} + 16777216 + 1)): an event longer than 16 MiB: not a trace" \
    "an event of 16.8 MB of brackets: refused at its 16 MiB + 1st byte"

## 6. Silent wrong answers.
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,nan,allocate,0x7f0000000000,512,0x0\n' >"$TMP/nan.csv"
check_fail 3 "gpumemsim: error: $TMP/nan.csv:2: time is neither a time of day nor epoch seconds: 'nan'" \
    info "$TMP/nan.csv"
# Threads log a tenth of a second out of order: that is no new day (only going
# back by over 12 hours is): from the earliest time to the latest, 09:59:59.9
# to 10:00:01.0, is 1.1 s, where a wrap would have added a day.
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,10:00:00.000000,allocate,0x7f0000000000,512,0x0\n2,09:59:59.900000,allocate,0x7f0000001000,512,0x0\n1,10:00:01.000000,free,0x7f0000000000,512,0x0\n' >"$TMP/order.csv"
gms info "$TMP/order.csv" --format=json
is "$rc $(json_top duration_us)" "0 1100000" "a row 0.1 s out of order is no day's wrap: 1.1 s in all"
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,1.5,allocate,0x7f0000000000,512,0x0\n1,1.6,allocate,0x7f0000001000,51' >"$TMP/cut.csv"
# (issue 11: the complete rows are read, the cut one left out, and every report says so)
gms info "$TMP/cut.csv" --format=json
is "$rc $(json_top events) $(json_in incomplete cut)" \
    '0 1 "its last row has no end of line (was the job killed while logging?): that row was left out"' \
    "a CSV cut inside its last row: the complete rows are read, and the cut is said"
gms run "$TMP/cut.csv"
grep -q '^CUT SHORT: cut: its last row has no end of line' "$TMP/out"; ok $? "run says it too"
gms convert "$TMP/cut.csv" "$TMP/cut.jsonl"
is "$rc $(cat "$TMP/err")" "0 gpumemsim: warning: $TMP/cut.csv: its last row has no end of line (was the job killed while logging?): that row was left out" \
    "convert warns"
gms check "$RESNET" --max-peak-reserved=0
is "$rc" 1 "check --max-peak-reserved=0 is a check, and it fails"
gms run "$RESNET" --format=json
cp "$TMP/out" "$TMP/base.json"
sed 's/"policy":[^,]*/"policy":\t"no-cache"/' "$TMP/base.json" >"$TMP/other.json"
check_fail 3 "gpumemsim: error: $TMP/other.json: the baseline is of policy 'no-cache', this run of 'caching'" \
    check "$RESNET" --baseline="$TMP/other.json"
sed 's/"trace":[^,]*/"trace":\t"gpt2"/' "$TMP/base.json" >"$TMP/other.json"
check_fail 3 "gpumemsim: error: $TMP/other.json: the baseline is of trace 'gpt2', this run of 'resnet50-train-b32' (--any-trace takes it: the same job recorded under another name)" \
    check "$RESNET" --baseline="$TMP/other.json"
gms check "$RESNET" --baseline="$TMP/other.json" --any-trace
is "$rc" 0 "--any-trace: the baseline saved under another trace name is taken (the same numbers pass)"
sed 's/"trace":[^,]*/"trace":\t"gpt2"/; s/"policy":[^,]*/"policy":\t"no-cache"/' "$TMP/base.json" >"$TMP/other2.json"
check_fail 3 "gpumemsim: error: $TMP/other2.json: the baseline is of policy 'no-cache', this run of 'caching'" \
    check "$RESNET" --baseline="$TMP/other2.json" --any-trace
grep -v '"alloc_retries"' "$TMP/base.json" >"$TMP/other.json"
check_fail 3 "gpumemsim: error: $TMP/other.json: the baseline has no \"alloc_retries\" (every 'gpumemsim run --format=json' result has)" \
    check "$RESNET" --baseline="$TMP/other.json"
{ cat "$TMP/base.json"; echo '{}'; } >"$TMP/other.json"
gms check "$RESNET" --baseline="$TMP/other.json"
case $(head -n 1 "$TMP/err") in
*"unexpected data after the JSON result"*) ok 0 "a baseline with trailing data is refused" ;;
*) ok 1 "a baseline with trailing data is refused" ;;
esac
printf '%s,"events":[{"op":"alloc","id":1,"size":5,"at":"x\\u001b[31mred"}]}' "$H" >"$TMP/esc.json"
gms run "$TMP/esc.json" --capacity=1B --format=json
is "$(json_in oom at)" '"x?[31mred"' "a control character in a trace's string is never echoed"
printf '%s}\n{"op":"alloc\\u0000x","id":1,"size":5}\n' "$H" >"$TMP/nul.jsonl"
check_fail 3 "gpumemsim: error: $TMP/nul.jsonl:2: a string holds \\u0000 (a NUL character, which would cut it short)" \
    run "$TMP/nul.jsonl"

## 7. The exit-code contract.
check_fail 4 "gpumemsim: error: cannot read trace '$TRACES': a directory, with no profile in it (NAME.xplane.pb, plugins/profile/RUN/NAME.xplane.pb, or that in a directory of it: train/plugins/profile/...)" run "$TRACES"
printf '%s,"events":[]}' "$H" >"$TMP/none.json"
check_fail 3 "gpumemsim: error: $TMP/none.json: the trace has no events: no timeline to draw" \
    plot "$TMP/none.json" -o "$TMP/none.svg"
if [ -w /dev/full ]; then
	"$GPUMEMSIM" policies >/dev/full 2>"$TMP/err"; rc=$?
	is "$rc $(cat "$TMP/err")" "4 gpumemsim: error: cannot write to standard output: No space left on device" \
	    "policies to a full disk: exit 4"
	"$GPUMEMSIM" --help >/dev/full 2>/dev/null
	is "$?" 4 "--help to a full disk: exit 4"
	"$GPUMEMSIM" run "$RESNET" >/dev/full 2>/dev/null
	is "$?" 4 "run to a full disk: exit 4"
fi

# An id JSON cannot hold exactly: 2^53 + 1 reads as 2^53, which could be
# another allocation's id; refused, not rounded into a collision.
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":9007199254740993,"size":512}\n' >"$TMP/bigid.jsonl"
check_fail 3 "gpumemsim: error: $TMP/bigid.jsonl:2: alloc \"id\" out of range: 9007199254740992 (at most 9007199254740991)" \
    run "$TMP/bigid.jsonl"
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":9007199254740991,"size":512}\n' >"$TMP/maxid.jsonl"
gms run "$TMP/maxid.jsonl" --format=json
is "$rc" 0 "the largest exact id, 2^53 - 1, is read"
# A profile whose "Total Allocated" is past any byte count (found by
# fuzz-json: converting it to bytes was undefined): refused, where it is.
printf '{"schemaVersion":1,"traceEvents":[{"ph":"i","name":"[memory]","ts":1,"pid":1,"tid":1,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":512,"Total Allocated":1e39,"Total Reserved":2097152}}]}\n' >"$TMP/total.json"
check_fail 3 "gpumemsim: error: $TMP/total.json:1:35: [memory] event \"Total Allocated\" is not a size" run "$TMP/total.json"
sed 's/"Total Allocated":1e39,"Total Reserved":2097152/"Total Allocated":512,"Total Reserved":-1/' "$TMP/total.json" >"$TMP/reserved.json"
check_fail 3 "gpumemsim: error: $TMP/reserved.json:1:35: [memory] event \"Total Reserved\" is not a size" run "$TMP/reserved.json"

# A DEL (0x7f) in a JSON Lines site: the fast reader leaves it to the slow
# one, which shows it as '?'; read in place or not, nothing raw reaches the
# terminal.
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":4096,"stream":0,"at":"a\177b"}\n{"op":"alloc","id":2,"size":512,"stream":0,"at":"c\033d"}\n' >"$TMP/del.jsonl"
gms run "$TMP/del.jsonl" --by-site
is "$(grep -c 'a?b$' "$TMP/out") $(tr -d '\n' <"$TMP/out" | tr -dc '\177\033' | wc -c)" "1 0" \
    "a DEL in a JSON Lines site is shown as '?', no DEL or escape reaches the terminal"

# Sites with escape characters in a snapshot: shown with '?', each its own
# (printable copies share one buffer: never taken for the reader's kept
# strings when the trace is held in memory).
gms info "$TOP_SRCDIR/t/data/hostile/ctrl-sites.pickle"
is "$(grep -c ' a?\[31mred.py:1 f0$' "$TMP/out") $(grep -c ' b?\[34mblue.py:2 f1$' "$TMP/out") $(grep -c ' a?\[31mred.py:3 f2$' "$TMP/out") $(tr -dc '\033' <"$TMP/out" | wc -c)" \
    "2 2 2 0" "three sites with escapes: each shown as its own, with '?', in both tables"

# A NUL byte is reported on its own line (issue 55: the line before was named)
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":8}\n{"op":"al\000loc","id":2,"size":8}\n' >"$TMP/nul.jsonl"
check_fail 3 "gpumemsim: error: $TMP/nul.jsonl:3: NUL byte in a line: not a trace" run "$TMP/nul.jsonl"
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,1.5,allocate,0x10,512,0x0\n1,1.6,free,0x1\00000,512,0x0\n' >"$TMP/nul.csv"
check_fail 3 "gpumemsim: error: $TMP/nul.csv:3: NUL byte in a line: not a trace" run "$TMP/nul.csv"

# A key of ours twice in an event, a number with a leading zero: refused
# (issue 55: the first "size" was taken, where Python's json takes the last,
# and "id":03 was read as 3)
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":8}\n{"op":"alloc","id":2,"size":8,"size":16}\n' >"$TMP/dup.jsonl"
check_fail 3 "gpumemsim: error: $TMP/dup.jsonl:3: event gives \"size\" twice" run "$TMP/dup.jsonl"
printf '{"format":"gpumemsim-trace","version":1,"events":[\n{"op":"alloc","id":1,"size":8,"size":9}]}\n' >"$TMP/dup.json"
check_fail 3 "gpumemsim: error: $TMP/dup.json: event 0: event gives \"size\" twice" run "$TMP/dup.json"
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":03,"size":8}\n' >"$TMP/zero.jsonl"
check_fail 3 "gpumemsim: error: $TMP/zero.jsonl:2: invalid JSON at column 20 (a number with a leading zero)" run "$TMP/zero.jsonl"
printf '{"format":"gpumemsim-trace","version":1,"events":[\n{"op":"alloc","id":1,"size":8},\n  {"op":"alloc", "id":02,"size":8}]}\n' >"$TMP/zero.json"
check_fail 3 "gpumemsim: error: $TMP/zero.json: event 1: invalid JSON (a number with a leading zero) at line 3, column 23" run "$TMP/zero.json"
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":8,"x":[0,0.5,-0.0,10,1e05,"07"]}\n' >"$TMP/zeros-ok.jsonl"
gms run "$TMP/zeros-ok.jsonl" --format=json
is "$rc $(json_top peak_live)" "0 8" "... while 0, 0.5, -0.0, 1e05 and a string \"07\" are JSON"

## 5, last. A gzip'd document of blanks streams.
{ printf '%s,"events":[' "$H"; head -c 100000000 /dev/zero | tr '\0' ' '; printf '{"op":"alloc","id":1,"size":7}]}'; } |
    gzip -1 >"$TMP/blanks.json.gz"
gms run "$TMP/blanks.json.gz" --format=json
is "$rc $(json_top events) $(json_top peak_live)" "0 1 7" "100 MB of blanks inside \"events\": read as one event"

done_testing
