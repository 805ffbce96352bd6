#!/bin/sh
# t/resource.sh - every reader under `ulimit -v` of 512 MB (issue 10): inputs
# that decompress to 100 times that (gzip members concatenated: 50 MB on
# disk), /dev/zero under each format's name, and a 5 GB stream of blanks in
# a JSON document.  Each must end with exit 0 or 3 and a message, never be
# killed, never exit 4 for want of memory.  ASan cannot run under ulimit -v,
# so this skips in a sanitizer build; .ci/run runs it in a plain build too.
# Exercises traces/trace.c (the whole-file cap), traces/pickle.c (the
# budget), traces/trace-json.c (streaming), traces/trace-jsonl.c and
# traces/trace-csv.c (the line limit), analysis/placements.c (runs alive at once).
. "${TOP_SRCDIR:-.}/t/lib.sh"

if "$GPUMEMSIM" --version | grep -q -- '--enable-sanitizers'; then
	echo "1..0 # SKIP ASan cannot run under ulimit -v (.ci/run runs this in a plain build)"
	exit 0
fi
LIMIT_KB=524288
if ! (ulimit -v "$LIMIT_KB") 2>/dev/null; then
	echo "1..0 # SKIP cannot set ulimit -v here"
	exit 0
fi
H='{"format":"gpumemsim-trace","version":1'

# member BYTE COUNT: one gzip member of COUNT copies of BYTE.
member() {
	head -c "$2" /dev/zero | tr '\0' "$1" | gzip -9
}
# bomb FILE PREFIX BYTE SUFFIX: PREFIX, then 100 x 512 MB of BYTE, then SUFFIX.
member ' ' 536870912 >"$TMP/spaces.gz"
member 'N' 536870912 >"$TMP/nones.gz"
member '7' 536870912 >"$TMP/sevens.gz"
bomb() {
	{
		printf '%s' "$2" | gzip -1
		i=0
		while [ $i -lt 100 ]; do cat "$TMP/$3.gz"; i=$((i + 1)); done
		printf '%s' "$4" | gzip -1
	} >"$1"
}

# limited NAME ARGS...: run gpumemsim under the limit; rc, out and err as gms.
limited() {
	(ulimit -v "$LIMIT_KB"; exec "$GPUMEMSIM" "$@") >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# survives DESCRIPTION WANT-RC MESSAGE-PART ARGS...: the exit and a part of the message.
survives() {
	desc=$1 want=$2 part=$3
	shift 3
	limited "$@"
	if [ "$rc" = "$want" ] && grep -qF -- "$part" "$TMP/err"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "#   exit $rc (want $want with '$part'): $(head -c 300 "$TMP/err")"
	fi
}

bomb "$TMP/string.json.gz" "$H,\"name\":\"" sevens '"}'
survives "a 51 GB header string: refused at 16 MiB" 3 "a JSON value longer than 16 MiB" \
    run "$TMP/string.json.gz"
bomb "$TMP/deep.json.gz" "$H,\"events\":[{\"op\":\"mark\",\"x\":" sevens '}]}'
survives "a 51 GB number inside an event: refused at 16 MiB" 3 "an event longer than 16 MiB" \
    run "$TMP/deep.json.gz"
bomb "$TMP/line.jsonl.gz" "$H}
" spaces '{"op":"mark"}'
survives "a 51 GB line of JSON Lines: refused at 16 MiB" 3 "line longer than" \
    run "$TMP/line.jsonl.gz"
bomb "$TMP/line.csv.gz" "Thread,Time,Action,Pointer,Size,Stream
1,1.5,allocate," sevens ',512,0x0
'
survives "a 51 GB CSV field: refused at 16 MiB" 3 "line longer than" info "$TMP/line.csv.gz"
bomb "$TMP/nones.pickle.gz" "$(printf '\200\004')" nones '.'
survives "a 51 GB pickle of Nones: refused as it streams, a million values deep" 3 \
    "pickle byte 1048578: stack deeper than 1048576" info "$TMP/nones.pickle.gz"
survives "... and convert says the same" 3 "pickle byte 1048578: stack deeper than 1048576" \
    convert "$TMP/nones.pickle.gz" "$TMP/out.jsonl"

# A pickle inside the cap whose values outgrow half the limit: the budget.
{ printf '\200\004]'; yes Na | tr -d '\n' | head -c 60000000; printf '.'; } | gzip -1 \
    >"$TMP/appends.pickle.gz"
survives "a 60 MB pickle of 30 million list items: refused by the budget" 3 \
    "holding this pickle's values needs more than 170 MiB" info "$TMP/appends.pickle.gz"

for ext in json jsonl pickle csv; do
	ln -s /dev/zero "$TMP/zero.$ext"
	limited info "$TMP/zero.$ext"
	is "$rc" 3 "/dev/zero named .$ext: refused, exit 3"
done

# Legitimately huge: 5 GB of blanks between two events, streamed in bounded memory.
{
	printf '%s,"events":[{"op":"alloc","id":1,"size":5}' "$H" | gzip -1
	i=0
	while [ $i -lt 10 ]; do cat "$TMP/spaces.gz"; i=$((i + 1)); done
	printf ',{"op":"free","id":1}]}' | gzip -1
} >"$TMP/blanks.json.gz"
limited run "$TMP/blanks.json.gz" --format=json
is "$rc $(json_top events) $(json_top peak_live)" "0 2 5" \
    "5 GB of blanks in a JSON document: both events, in 512 MB"

# --placements=N: no more simulations alive than run at once (-j), whatever N
# (32 placements of 100k live allocations once held all 32: 890 MB).
awk 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"churn\"}"
	n = 100000
	for (i = 1; i <= n; i++) printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", i, (i % 97 + 1) * 4096
	for (j = 1; j <= n; j++) {
		printf "{\"op\":\"free\",\"id\":%d}\n", j
		printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", n + j, (j % 89 + 1) * 4096
	} }' >"$TMP/churn.jsonl"
limited run "$TMP/churn.jsonl" --placements=32 -j2 --format=json
is "$rc $(json_top events)" "0 300000" "32 placements of 100k live allocations, two at a time, in 512 MB"
limited run - --placements=32 -j2 --format=json <"$TMP/churn.jsonl"
is "$rc $(json_top events)" "0 300000" "... read from standard input (held once for the 16 groups)"

## Doubling series (issue 55): a path whose cost grows with the square of
# its input shows 16 times the time at 4 times the size; a linear one about
# 4.  Each pair is timed in the same test, so a loaded machine slows both.
# ms_of CMD...: the command's wall time in milliseconds, into $ms (its exit in $rc)
ms_of() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$TMP/err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}
# near_linear DESC SMALL BIG: BIG's time within 10 times SMALL's (4 times the size)
near_linear() {
	if [ "$rc" -eq 0 ] && [ "$2" -gt 0 ] && [ "$3" -le $((10 * $2 + 200)) ]; then
		ok 0 "$1 ($2 ms, then $3 ms at 4 times the size)"
	else
		ok 1 "$1 ($2 ms, then $3 ms at 4 times the size; exit $rc: $(head -c 200 "$TMP/err"))"
	fi
}

# N allocations of 20 MiB and more that stay live (each a segment of its own,
# most of a 32 MiB slot of the driver's model), then N pairs: every policy
# that reserves per request keeps N segments and N holes (the driver's
# model held them in sorted arrays: each new one moved them all), and the
# report's segment log past 100,000 lives walked every live one a release
live_pairs() {
	awk -v n="$1" 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"live\"}"
		for (i = 1; i <= n; i++) printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", i, 20971520 + i * 512
		for (j = 1; j <= n; j++) {
			printf "{\"op\":\"alloc\",\"id\":%d,\"size\":3145728}\n", n + j
			printf "{\"op\":\"free\",\"id\":%d}\n", n + j
		} }' >"$2"
}
live_pairs 30000 "$TMP/live-s.jsonl"
live_pairs 120000 "$TMP/live-b.jsonl"
ms_of "$GPUMEMSIM" compare "$TMP/live-s.jsonl"
small=$ms
ms_of "$GPUMEMSIM" compare "$TMP/live-b.jsonl"
near_linear "compare of 120,000 live segments and as many pairs: no-cache's and ideal's driver model near linear" "$small" "$ms"
ms_of "$GPUMEMSIM" report "$TMP/live-s.jsonl" -o "$TMP/live.html"
small=$ms
ms_of "$GPUMEMSIM" report "$TMP/live-b.jsonl" -o "$TMP/live.html"
near_linear "report of them: the segment log past 100,000 lives near linear" "$small" "$ms"

# A profile's [memory] events under N nested spans, none the user's Python
# but the outermost: each event's site was found by walking every open span.
nested() {
	awk -v n="$1" 'BEGIN {
		printf "{\"traceEvents\": [\n"
		printf "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"main.py(1): <module>\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": %d},\n", 4 * n + 10
		for (i = 1; i <= n; i++)
			printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d},\n", i, i, 4 * n - 2 * i
		for (k = 1; k <= n; k++)
			printf "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"args\": {\"Addr\": %d, \"Bytes\": 512, \"Total Allocated\": %d, \"Total Reserved\": 1073741824, \"Device Type\": 1, \"Device Id\": 0}}%s\n", n + k, 4096 * k, 512 * k, k < n ? "," : ""
		printf "]}\n"
	}' >"$2"
}
nested 25000 "$TMP/nested-s.json"
nested 100000 "$TMP/nested-b.json"
ms_of "$GPUMEMSIM" run "$TMP/nested-s.json" --by-site
small=$ms
ms_of "$GPUMEMSIM" run "$TMP/nested-b.json" --by-site
near_linear "a profile's 100,000 [memory] events under 100,000 nested spans: sites near linear" "$small" "$ms"
"$GPUMEMSIM" run "$TMP/nested-s.json" --by-site >"$TMP/out" 2>&1
grep -q '^ *12\.00 MiB *24577 .* main\.py:1 <module>$' "$TMP/out"
ok $? "... each event's site the outermost span's, the one user's frame"

# scale's alignment of two recordings whose sites come in unrelated orders
# (each a permutation of 997 sites): refused as not one job, after a search
# that cost the product of their lengths (20,000: 1.3 s; 80,000: about 20 s).
unrelated() {
	awk -v n="$1" -v seed="$2" -v sc="$3" 'BEGIN { srand(seed)
		print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"s\"}"
		for (i = 1; i <= n; i++) p[i] = i
		if (seed > 0) for (i = n; i > 1; i--) { j = int(rand() * i) + 1; t = p[i]; p[i] = p[j]; p[j] = t }
		for (i = 1; i <= n; i++) {
			printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d,\"at\":\"m%d.py:1 f\"}\n", i, 4096 * sc, p[i] % 997
			if (i > 2) printf "{\"op\":\"free\",\"id\":%d}\n", i - 2
		} }' >"$4"
}
unrelated 20000 0 1 "$TMP/u4-s.jsonl"
unrelated 20000 7 2 "$TMP/u8-s.jsonl"
unrelated 80000 0 1 "$TMP/u4-b.jsonl"
unrelated 80000 7 2 "$TMP/u8-b.jsonl"
ms_of "$GPUMEMSIM" scale --at 4 "$TMP/u4-s.jsonl" --at 8 "$TMP/u8-s.jsonl"
small=$ms
ms_of "$GPUMEMSIM" scale --at 4 "$TMP/u4-b.jsonl" --at 8 "$TMP/u8-b.jsonl"
[ "$rc" -eq 3 ] && grep -q 'are not one job recorded twice: they differ in more events than they share' "$TMP/err" && rc=0
near_linear "scale of two unrelated recordings of 80,000 allocations: refused (not one job), near linear" "$small" "$ms"

# --ranks keeps what it reports of each rank, not its open file and its
# simulation: 100 ranks under 64 file descriptors (every command failed
# from rank 60 on), and 8 ranks of 100,000 live allocations, two at a time,
# in the memory of about two runs (all 8 runs were kept: 7 times one's).
mkdir -p "$TMP/r100"
i=0
while [ $i -lt 100 ]; do
	cp "$TOP_SRCDIR/t/data/ranks/hand/job-rank0.json" "$TMP/r100/job-rank$i.json"
	i=$((i + 1))
done
for c in run compare info plan tune check report; do
	extra=
	[ "$c" = check ] && extra=--capacity=1GiB
	[ "$c" = report ] && extra="-o $TMP/r100.html"
	(ulimit -n 64; exec "$GPUMEMSIM" $c --ranks "$TMP/r100" $extra) >/dev/null 2>"$TMP/err"
	is "$? $(head -c 100 "$TMP/err")" "0 " "$c --ranks of 100 ranks under ulimit -n 64"
done
mkdir -p "$TMP/r8"
for r in 0 1 2 3 4 5 6 7; do cp "$TMP/churn.jsonl" "$TMP/r8/job-rank$r.jsonl"; done
# maxrss CMD...: the command's peak resident memory (KiB), into $kb
maxrss() {
	kb=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@")
}
if command -v python3 >/dev/null 2>&1; then
	maxrss "$GPUMEMSIM" run "$TMP/r8/job-rank0.jsonl"
	one=$kb
	maxrss "$GPUMEMSIM" run --ranks "$TMP/r8" -j2
	if [ "$kb" -le $((3 * one)) ]; then
		ok 0 "run --ranks of 8 ranks of 100,000 live allocations, -j2: $kb KiB, one run $one KiB"
	else
		ok 1 "run --ranks of 8 ranks of 100,000 live allocations, -j2: $kb KiB, one run $one KiB (3 times at most)"
	fi
else
	ok 0 "# SKIP no python3 to read a peak resident size"
fi

# A profile whose XSpace holds 16 million empty planes before its own
# (two bytes each: 33 MB, a few KB gzipped): a plane with nothing to read
# is not kept (each cost a plane's record: 629 MB, exit 4 under this limit).
printf '\n\000' >"$TMP/planes"
i=0
while [ $i -lt 24 ]; do cat "$TMP/planes" "$TMP/planes" >"$TMP/planes2"; mv "$TMP/planes2" "$TMP/planes"; i=$((i + 1)); done
{ cat "$TMP/planes"; gzip -dc "$TOP_SRCDIR/t/data/xplane/op-growth.xplane.pb.gz"; } | gzip -1 >"$TMP/empty.xplane.pb.gz"
"$GPUMEMSIM" run "$TOP_SRCDIR/t/data/xplane/op-growth.xplane.pb.gz" --format=json >"$TMP/out"
want="$(json_top events) $(json_top peak_reserved)"
limited run "$TMP/empty.xplane.pb.gz" --format=json
is "$rc $(json_top events) $(json_top peak_reserved)" "0 $want" \
    "a profile behind 16 million empty planes: its own events and peak, in 512 MB"

done_testing
