#!/bin/sh
# cli-errors.sh - every way to hold gpumemsim wrong gets the exit code of
# gpumemsim(1) and a message saying what is wrong and where: usage (2), bad
# traces and bad options (3), I/O (4).  Messages are compared verbatim.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json
H='{"format":"gpumemsim-trace","version":1}'

# Usage: exit 2, a usage line on stderr.
check_fail 2 "usage: gpumemsim <command> [options] <trace>"
check_fail 2 "gpumemsim: error: unknown command 'walk'" walk x
check_fail 2 "gpumemsim: error: unknown option '--frobnicate'" run --frobnicate "$RESNET"
# a slip of a name: the one meant, when one alone is that near
check_fail 2 "gpumemsim: error: unknown command 'rn' (did you mean 'run'?)" rn "$RESNET"
check_fail 2 "gpumemsim: error: unknown command 'comapre' (did you mean 'compare'?)" comapre "$RESNET"
check_fail 2 "gpumemsim: error: unknown option '--capacty=3GiB' (did you mean --capacity?)" \
    run --capacty=3GiB "$RESNET"
check_fail 2 "gpumemsim: error: unknown option '--polcies=caching' (did you mean --policies?)" \
    compare --polcies=caching "$RESNET"
check_fail 2 "gpumemsim: error: unknown option '--gpus=T4' (did you mean --gpu?)" run --gpus=T4 "$RESNET"
grep -q "^Try 'gpumemsim run --help'.\$" "$TMP/err"; ok $? "misuse points to run --help"
check_fail 2 "gpumemsim: error: no trace given" run
check_fail 2 "gpumemsim: error: more than one trace given" run a b
check_fail 2 "gpumemsim: error: option '--capacity' needs a value" run "$RESNET" --capacity

# Bad options: exit 3.
check_fail 3 "gpumemsim: error: --capacity: invalid size '12 apples': unknown unit 'apples' (use KiB, MiB, GiB, TiB, KB, MB, GB or TB)" \
    run "$RESNET" --capacity="12 apples"
check_fail 3 "gpumemsim: error: --capacity must be above 0 (leave it out for unlimited)" run "$RESNET" --capacity=0
check_fail 3 "gpumemsim: error: --format must be 'text' or 'json', not 'xml'" run "$RESNET" --format=xml
check_fail 3 "gpumemsim: error: --placement must be 'model', 'recorded' or 'driver', not 'random'" run "$RESNET" --placement=random
check_fail 3 "gpumemsim: error: unknown policy 'tlsf' (known: caching, grow-only, preallocate, no-cache, ideal, rmm-pool, rmm-arena, rmm-binning, cuda-async, rmm-fixed)" run "$RESNET" --policy=tlsf
check_fail 3 "gpumemsim: error: $TRACES/synth-thresholds-6.json: --placement=recorded needs the trace's observed segment_alloc events, and it has none (use --placement=model)" \
    run "$TRACES/synth-thresholds-6.json" --placement=recorded

# I/O: exit 4.
check_fail 4 "gpumemsim: error: cannot open trace '$TMP/none.json': No such file or directory" run "$TMP/none.json"

# Malformed traces: exit 3, located by line (JSON Lines) or event index (document).
bad() {	# NAME CONTENT EXPECTED-MESSAGE-AFTER-PATH
	printf '%s' "$2" >"$TMP/$1"
	check_fail 3 "gpumemsim: error: $TMP/$1$3" run "$TMP/$1"
}
bad empty.json '' ':1:1: empty file'
bad garbage.json 'hello' ':1:1: invalid JSON'
bad truncated.json '{"format":"gpumemsim-trace","version":1,"events":[{"op":"alloc","id":1,' \
    ':1:72: truncated JSON (unexpected end of file)'
bad notrace.json '{"hello":1}' ': not a gpumemsim trace: "format" must be "gpumemsim-trace"'
bad v2.json '{"format":"gpumemsim-trace","version":2,"events":[]}' \
    ': unsupported trace version 2 (this gpumemsim reads version 1)'
bad noevents.json '{"format":"gpumemsim-trace","version":1}' ': trace without "events"'
bad op.jsonl "$H
{\"op\":\"alocate\",\"id\":1}" ":2: unknown op 'alocate'"
bad nosize.jsonl "$H
{\"op\":\"mark\",\"label\":\"it 1\"}
{\"op\":\"alloc\",\"id\":1}" ':3: alloc without "size"'
bad negative.jsonl "$H
{\"op\":\"alloc\",\"id\":1,\"size\":-4}" ':2: alloc "size" is negative: -4'
bad fraction.json '{"format":"gpumemsim-trace","version":1,"events":[{"op":"alloc","id":1,"size":10.5}]}' \
    ': event 0: alloc "size" is not an integer: 10.5'
bad string.json '{"format":"gpumemsim-trace","version":1,"events":[{"op":"free","id":"x"}]}' \
    ': event 0: free "id" is not a number'
bad huge.jsonl "$H
{\"op\":\"alloc\",\"id\":1,\"size\":1e20}" ':2: alloc "size" out of range: 1e+20 (at most 1125899906842624)'
bad dup.jsonl "$H
{\"op\":\"alloc\",\"id\":7,\"size\":5}
{\"op\":\"alloc\",\"id\":7,\"size\":5}" ':3: alloc of id 7, which is already live (allocated at event 0 and not freed)'
bad unknown.json '{"format":"gpumemsim-trace","version":1,"events":[{"op":"alloc","id":1,"size":5},{"op":"free","id":77}]}' \
    ': event 1: free of unknown id 77'
bad trunc-line.jsonl "$H
{\"op\":\"alloc\",\"id\":1,\"size\":5}
{\"op\":\"free\",\"i" ':3: truncated JSON at column 16 (the line ends early)'
bad twice.jsonl "$H
{\"op\":\"mark\"} {\"op\":\"mark\"}" ':2: unexpected data after the JSON object at column 14 (one object per line)'

gzip -c "$RESNET" | head -c 20000 >"$TMP/cut.json.gz"
check_fail 3 "gpumemsim: error: $TMP/cut.json.gz: truncated compressed file" run "$TMP/cut.json.gz"
# bytes after the last gzip member: refused, not ignored as zlib's gzread
# does (issue 55); concatenated members are one file, as gzip reads them
gzip -c "$RESNET" >"$TMP/tail.json.gz"
sz=$(wc -c <"$TMP/tail.json.gz")
printf 'garbage' >>"$TMP/tail.json.gz"
check_fail 3 "gpumemsim: error: $TMP/tail.json.gz: event 7787: 7 bytes after the compressed data (which ends at byte $sz of $((sz + 7))): the file was damaged or another joined to it" \
    run "$TMP/tail.json.gz"
gms run - <"$TMP/tail.json.gz"
is "$rc" 3 "... from standard input too"
printf '%s\n{"op":"alloc","id":1,"size":100}\n' "$H" | gzip -c >"$TMP/two.jsonl.gz"
printf '{"op":"free","id":1}\n' | gzip -c >>"$TMP/two.jsonl.gz"
gms run "$TMP/two.jsonl.gz" --format=json
is "$rc $(json_top events)" "0 2" "two gzip members read as one file"
sz=$(wc -c <"$TMP/two.jsonl.gz")
printf 'X' >>"$TMP/two.jsonl.gz"
check_fail 3 "gpumemsim: error: $TMP/two.jsonl.gz:3: 1 byte after the compressed data (which ends at byte $sz of $((sz + 1))): the file was damaged or another joined to it" \
    run "$TMP/two.jsonl.gz"
printf '\200\004\225junk' >"$TMP/snap.pickle"
check_fail 3 "gpumemsim: error: $TMP/snap.pickle: pickle byte 2: truncated pickle (needs 8 more bytes, 4 left)" \
    run "$TMP/snap.pickle"
printf 'hello\n' >"$TMP/what.bin"
check_fail 3 "gpumemsim: error: $TMP/what.bin: not a trace gpumemsim can read (expected a gpumemsim JSON trace, a PyTorch snapshot pickle or profiler trace, a TensorFlow or JAX profile (.xplane.pb) or an RMM log CSV, optionally gzip'd)" \
    run "$TMP/what.bin"

# A trace recorded from a ring buffer: frees of ids it never saw are warned about.
printf '%s\n%s\n%s\n%s\n' "$H" '{"op":"free","id":3}' '{"op":"alloc","id":1,"size":5}' \
    '{"op":"free","id":1}' >"$TMP/mid.jsonl"
check_fail 3 "gpumemsim: error: $TMP/mid.jsonl:2: free of unknown id 3" run "$TMP/mid.jsonl"
gms run "$TMP/mid.jsonl" --unknown-frees=warn --format=json
is "$rc $(head -n 1 "$TMP/err")" "0 gpumemsim: warning: $TMP/mid.jsonl: 1 frees of ids the trace never allocated (the first at event 0): the trace starts mid-run, so its first numbers are low" \
    "--unknown-frees=warn: counted and warned, exit 0"
printf '%s\n%s\n' '{"format":"gpumemsim-trace","version":1,"starts_mid_run":true}' \
    '{"op":"free","id":3}' >"$TMP/mid2.jsonl"
gms run "$TMP/mid2.jsonl"
is "$rc" 0 "a header saying starts_mid_run makes unknown frees warnings"

check_fail 3 "gpumemsim: error: --placements takes a number from 1 to 4096, not '0'" \
    run "$TRACES/synth-kvcache-10.json" --placements=0
check_fail 3 "gpumemsim: error: --placements takes a number from 1 to 4096, not '5000'" \
    plan "$TRACES/synth-kvcache-10.json" --placements=5000
check_fail 3 "gpumemsim: error: --placements takes a number from 1 to 4096, not '-1'" \
    check "$TRACES/synth-kvcache-10.json" --capacity=1GiB --placements=-1

done_testing
