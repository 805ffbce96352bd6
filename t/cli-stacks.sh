#!/bin/sh
# t/cli-stacks.sh - what holds the memory, all the way down (issue 31): the
# whole call stack of every allocation, from a native trace's "stack" and a
# snapshot's frames, as `run --by-stack` (a tree), its JSON, `run --folded`
# (flame-graph tools' input), `plot --flame` (an icicle graph) and
# `compare BEFORE AFTER` (what grew, by stack).  Small traces worked by hand
# (below) for every view; real recordings of the H200 (t/data/users,
# t/data/scale) for the sum of every view against the live bytes the site
# table counts, the program's own lines above the library's, and attention's
# L^2 between two sequence lengths.
# Exercises analysis/stacks.c, analysis/stackdiff.c, analysis/tracediff.c,
# analysis/attrib.c, traces/trace.c (the "stack" key), traces/trace-write.c,
# traces/tracemem.c, traces/trace-pickle.c (stack_of), sim/cli/cmd-run.c,
# sim/cli/cmd-plot.c, sim/cli/cmd-compare.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

# The trace, by hand.  Live after each event (bytes):
#   0 +1000 [a.py:3 inner < b.py:2 mid < main.py:1]          1000
#   1 +500  [c.py:9 other < b.py:2 mid < main.py:1]          1500
#   2 +300  [main.py:1]                                      1800
#   3 +200  (no stack)                                       2000
#   4 -500  (id 2)                                           1500
#   5 +4000 [lib;x.py:7 f < main.py:5]                       5500  the peak
#   6 -4000                                                  1500
# Under `ideal` the reservation is the live bytes: its peak is event 5,
# where main.py:5 holds 4000 (72.7%), main.py:1 1300 (23.6%: 300 its own,
# 1000 through b.py:2 mid and a.py:3 inner), (no stack) 200 (3.6%).
S=$TMP/s.jsonl
cat >"$S" <<'EOF'
{"format":"gpumemsim-trace","version":1,"name":"stacks"}
{"op":"alloc","id":1,"size":1000,"stack":["a.py:3 inner","b.py:2 mid","main.py:1 <module>"]}
{"op":"alloc","id":2,"size":500,"stack":["c.py:9 other","b.py:2 mid","main.py:1 <module>"]}
{"op":"alloc","id":3,"size":300,"stack":["main.py:1 <module>"]}
{"op":"alloc","id":4,"size":200}
{"op":"free","id":2}
{"op":"alloc","id":5,"size":4000,"stack":["lib;x.py:7 f","main.py:5 <module>"]}
{"op":"free","id":5}
EOF

gms run "$S" --policy=ideal --by-stack
is "$rc" 0 "run --by-stack: exit 0"
sed -n '/^At the peak reservation/,$p' "$TMP/out" >"$TMP/tree"
cat >"$TMP/want" <<'EOF'
At the peak reservation (event 5, 5.37 KiB reserved), the live memory by stack: 5.37 KiB in 4 allocations
       bytes   share   count  stack (callers above callees, one space deeper per call)
    3.91 KiB   72.7%       1  main.py:5 <module>
    3.91 KiB   72.7%       1   lib;x.py:7 f
    1.27 KiB   23.6%       2  main.py:1 <module>
      1000 B   18.2%       1   b.py:2 mid
      1000 B   18.2%       1    a.py:3 inner
       200 B    3.6%       1  (no stack)
EOF
cmp -s "$TMP/tree" "$TMP/want"; ok $? "run --by-stack: the tree at the peak, largest first, callers above callees"
[ $? -eq 0 ] || diff "$TMP/want" "$TMP/tree" | sed 's/^/# /'

gms run "$S" --policy=ideal --folded
cat >"$TMP/want" <<'EOF'
main.py:5 <module>;lib,x.py:7 f 4000
main.py:1 <module> 300
main.py:1 <module>;b.py:2 mid;a.py:3 inner 1000
(no stack) 200
EOF
cmp -s "$TMP/out" "$TMP/want"; ok $? "run --folded: a line per stack with its own bytes, a frame's ';' as ','"
# parsed back as flame-graph tools read it: the sum is the live bytes
is "$(awk '{ s += $NF } END { print s }' "$TMP/out")" 5500 "run --folded: the lines add up to the 5500 bytes live"

gms run "$S" --policy=ideal --folded --depth=1
printf 'main.py:5 <module> 4000\nmain.py:1 <module> 1300\n(no stack) 200\n' >"$TMP/want"
cmp -s "$TMP/out" "$TMP/want"; ok $? "--depth=1: each stack cut at its outermost frame, the bytes kept"

# --frames: a frame left out passes its bytes to the callers kept; bytes with
# no frame kept at all are "(no frame matches)"; "(no stack)" stays itself
gms run "$S" --policy=ideal --folded --frames='*mid*'
printf '(no frame matches) 4300\nb.py:2 mid 1000\n(no stack) 200\n' >"$TMP/want"
cmp -s "$TMP/out" "$TMP/want"; ok $? "--frames='*mid*': only the matching frames, every byte still counted"

# under a capacity: the OOM is the moment, before the request that failed
# (event 5: 1500 bytes live and 4000 more do not fit in 5000)
gms run "$S" --policy=ideal --folded --capacity=5000B
printf 'main.py:1 <module> 300\nmain.py:1 <module>;b.py:2 mid;a.py:3 inner 1000\n(no stack) 200\n' \
    >"$TMP/want"
cmp -s "$TMP/out" "$TMP/want"; ok $? "--folded under a capacity: the stacks at the OOM, before its request"

# --at: any event; event 1 holds ids 1 and 2, both under b.py:2 mid
gms run "$S" --policy=ideal --folded --at=1
printf 'main.py:1 <module>;b.py:2 mid;a.py:3 inner 1000\nmain.py:1 <module>;b.py:2 mid;c.py:9 other 500\n' \
    >"$TMP/want"
cmp -s "$TMP/out" "$TMP/want"; ok $? "--folded --at=1: the stacks after event 1"
gms run "$S" --policy=ideal --by-stack --at=1 --top=1
grep -A5 '^At the chosen event (event 1' "$TMP/out" | tail -n 3 >"$TMP/got"
printf '    1.46 KiB  100.0%%       2   b.py:2 mid\n      1000 B   66.7%%       1    a.py:3 inner\n       500 B   33.3%%       1    (1 other frame)\n' \
    >"$TMP/want"
cmp -s "$TMP/got" "$TMP/want"; ok $? "--by-stack --top=1: one callee a frame, the rest folded into one line"
[ $? -eq 0 ] || diff "$TMP/want" "$TMP/got" | sed 's/^/# /'

# JSON: the tree nested, each node the sum of its own and its children's
# (cJSON's layout flattened: its tabs and newlines are none of the values')
gms run "$S" --policy=ideal --by-stack --format=json
tr -d '\n\t' <"$TMP/out" | grep -o '"stacks":.*' >"$TMP/got"
printf '%s\n' '"stacks":[{"moment":"peak_reserved","event":5,"live":5500,"count":4,"tree":{"bytes":5500,"count":4,"children":[{"frame":"main.py:5 <module>","bytes":4000,"count":1,"children":[{"frame":"lib;x.py:7 f","bytes":4000,"count":1,"children":[]}]}, {"frame":"main.py:1 <module>","bytes":1300,"count":2,"children":[{"frame":"b.py:2 mid","bytes":1000,"count":1,"children":[{"frame":"a.py:3 inner","bytes":1000,"count":1,"children":[]}]}]}, {"frame":"(no stack)","bytes":200,"count":1,"children":[]}]}}]}' \
    >"$TMP/want"
cmp -s "$TMP/got" "$TMP/want"; ok $? "run --by-stack --format=json: \"stacks\", each a tree whose nodes sum"

# The options' company and their limits.
check_fail 2 "gpumemsim: error: --at goes with --by-site, --by-stack or --folded" run "$S" --at=1
check_fail 2 "gpumemsim: error: --depth and --frames go with --by-stack or --folded" run "$S" --depth=2
check_fail 2 "gpumemsim: error: --folded writes the stacks alone: it does not go with --by-site, --by-stack, --placements or --format=json" \
    run "$S" --folded --format=json
check_fail 3 "gpumemsim: error: --at 7: the trace has 7 events (0 to 6)" run "$S" --folded --at=7
check_fail 3 "gpumemsim: error: --at 6: the run ran out of memory at event 5 and did not get past it" \
    run "$S" --policy=ideal --capacity=5000B --by-stack --at=6

# A native trace's stacks are read whole, and refused when malformed, by event.
bad() {
	printf '{"format":"gpumemsim-trace","version":1}\n%s\n' "$1" >"$TMP/bad.jsonl"
	check_fail 3 "gpumemsim: error: $TMP/bad.jsonl:2: $2" info "$TMP/bad.jsonl"
}
bad '{"op":"alloc","id":1,"size":8,"stack":"main.py:1 f"}' \
    'alloc "stack" as a string must end each frame with a newline, and no frame may be empty'
bad '{"op":"alloc","id":1,"size":8,"stack":{"a":1}}' 'alloc "stack" is not an array of frames'
bad '{"op":"alloc","id":1,"size":8,"stack":["a.py:1 f",7]}' 'alloc "stack" frame 1 is not a string'
bad '{"op":"alloc","id":1,"size":8,"stack":["a.py:1 f\ng.py:2 h"]}' 'alloc "stack" frame 0 is more than one line'
bad '{"op":"alloc","id":1,"size":8,"stack":[""]}' 'alloc "stack" frame 0 is empty'
# the string form, as trace.h hands stacks out, is the array's equal
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":8,"stack":"a.py:1 f\\nmain.py:2 g\\n"}\n' \
    >"$TMP/str.jsonl"
gms run "$TMP/str.jsonl" --folded --policy=ideal
is "$(cat "$TMP/out")" "main.py:2 g;a.py:1 f 8" "\"stack\" as one string of lines: the same stack"

# convert keeps the stacks: the copy's folded stacks are the original's
gms convert "$S" "$TMP/copy.json"
gms run "$TMP/copy.json" --policy=ideal --folded
cp "$TMP/out" "$TMP/copy.folded"
gms run "$S" --policy=ideal --folded
cmp -s "$TMP/out" "$TMP/copy.folded"; ok $? "convert to a JSON document keeps every stack"

# plot --flame: one rectangle a frame, the widths in proportion to the bytes
gms plot "$S" --policy=ideal --flame -o "$TMP/f.svg"
is "$rc" 0 "plot --flame: exit 0"
tail -n 1 "$TMP/f.svg" | grep -q '^</svg>$'; ok $? "plot --flame: a whole SVG"
# the drawing is 1180 px wide for 5500 bytes: main.py:5 is 4000 of them
grep -A1 '<title>main.py:5 &lt;module&gt;' "$TMP/f.svg" | grep -q 'width="858.18"'
ok $? "plot --flame: main.py:5's rectangle is 4000/5500 of 1180 px"
grep -q '<title>lib;x.py:7 f' "$TMP/f.svg"; ok $? "plot --flame: a frame's own text in its title"
is "$(grep -c '<rect x=' "$TMP/f.svg")" 6 "plot --flame: six frames, six rectangles"
check_fail 2 "gpumemsim: error: --flame draws SVG: name the output .svg (or '-')" \
    plot "$S" --flame -o "$TMP/f.png"
check_fail 2 "gpumemsim: error: --depth and --frames go with --flame" plot "$S" --frames='*' -o "$TMP/f.svg"

# compare, two traces: the same job after a change.  By hand, at each
# trace's peak (event 5 in both):
#   a.py:3 inner           1000 -> 3000  (+2000, made at event 0)
#   d.py:1 new                0 ->  100  (+100, a stack only after has, event 5)
#   main.py:1 itself        300 ->  300  (the same)
#   (no stack)              200 ->    0  (-200, before's event 3)
#   lib;x.py:7 f           4000 -> 2000  (-2000)
A=$TMP/after.jsonl
cat >"$A" <<'EOF'
{"format":"gpumemsim-trace","version":1,"name":"stacks-after"}
{"op":"alloc","id":1,"size":3000,"stack":["a.py:3 inner","b.py:2 mid","main.py:1 <module>"]}
{"op":"alloc","id":2,"size":500,"stack":["c.py:9 other","b.py:2 mid","main.py:1 <module>"]}
{"op":"alloc","id":3,"size":300,"stack":["main.py:1 <module>"]}
{"op":"free","id":2}
{"op":"alloc","id":5,"size":2000,"stack":["lib;x.py:7 f","main.py:5 <module>"]}
{"op":"alloc","id":6,"size":100,"stack":["d.py:1 new","main.py:1 <module>"]}
{"op":"free","id":5}
EOF
gms compare "$S" "$A" --policy=ideal --folded
cat >"$TMP/want" <<'EOF'
main.py:1 <module>;b.py:2 mid;a.py:3 inner 1000 3000
main.py:1 <module>;d.py:1 new 0 100
main.py:1 <module> 300 300
(no stack) 200 0
main.py:5 <module>;lib,x.py:7 f 4000 2000
EOF
cmp -s "$TMP/out" "$TMP/want"; ok $? "compare two traces --folded: every stack before and after, largest growth first"
[ $? -eq 0 ] || diff "$TMP/want" "$TMP/out" | sed 's/^/# /'
gms compare "$S" "$A" --policy=ideal
sed -n '/^What grew/,$p' "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOF'
What grew, by stack (before at its peak, event 5, after at its peak, event 5):
      before      after      change  events                 stack (innermost first)
      1000 B   2.93 KiB   +1.95 KiB  0-0                    a.py:3 inner < b.py:2 mid < main.py:1 <module>
         0 B      100 B      +100 B  5-5                    d.py:1 new < main.py:1 <module>
    3.91 KiB   1.95 KiB   -1.95 KiB  4-4                    lib;x.py:7 f < main.py:5 <module>
       200 B        0 B      -200 B  was 3-3                (no stack)
  (1 stack the same)
EOF
cmp -s "$TMP/got" "$TMP/want"; ok $? "compare two traces: what grew, then what shrank, with the events that made them"
[ $? -eq 0 ] || diff "$TMP/want" "$TMP/got" | sed 's/^/# /'
grep -q '^  peak reserved        5.37 KiB     5.27 KiB  -100 B (-1.8%)$' "$TMP/out"
ok $? "compare two traces: 5500 then 5400 bytes at the peak, -100 B"
gms compare "$S" "$A" --policy=ideal --format=json --top=1
tr -d '\n\t' <"$TMP/out" | grep -o '"stacks":.*' >"$TMP/got"
printf '%s\n' '"stacks":{"before":5500,"after":5400,"grew":[{"stack":["a.py:3 inner", "b.py:2 mid", "main.py:1 <module>"],"before":1000,"after":3000,"change":2000,"count_before":1,"count_after":1,"events_of":"after","first_event":0,"last_event":0}],"shrank":[{"stack":["lib;x.py:7 f", "main.py:5 <module>"],"before":4000,"after":2000,"change":-2000,"count_before":1,"count_after":1,"events_of":"after","first_event":4,"last_event":4}],"stacks_grew":2,"stacks_shrank":2,"stacks_unchanged":1}}' \
    >"$TMP/want"
cmp -s "$TMP/got" "$TMP/want"; ok $? "compare two traces --format=json: the rows, --top of each, the counts"
tr -d '\n\t' <"$TMP/out" | grep -q '"after":{"trace":"[^"]*after.jsonl","peak_reserved":5400,"peak_allocated":5400,"peak_live":5400,"fragmentation":0,"device_allocs":5,"oom_event":null,"moment":"peak_reserved","moment_event":5}'
ok $? "compare two traces --format=json: each side's numbers and moment"
check_fail 2 "gpumemsim: error: --policies goes with one trace or --ranks, not two traces (two traces are compared under one policy, by call stack)" \
    compare "$S" "$A" --policies=caching,ideal
check_fail 2 "gpumemsim: error: two traces are compared under one policy: give --policy once" \
    compare "$S" "$A" --policy=caching --policy=ideal
check_fail 2 "gpumemsim: error: standard input can be one of the traces, not both" \
    compare - - </dev/null
check_fail 2 "gpumemsim: error: --folded goes with two traces, not one trace" \
    compare "$S" --folded
check_fail 2 "gpumemsim: error: --by-site goes with one trace, not two traces (two traces are compared under one policy, by call stack)" \
    compare "$S" "$A" --by-site

# check --baseline: a baseline saved with its stacks says what grew when a
# check fails.  The job (named as the baseline's) after a change: a.py:3
# inner 1000 -> 3000 bytes, d.py:1 new 100, (no stack) 200 gone; at its peak
# (event 5) 7400 bytes against the baseline's 5500.
C=$TMP/c.jsonl
sed 's/"stacks-after"/"stacks"/; s/"size":2000/"size":4000/' "$A" >"$C"
"$GPUMEMSIM" run "$S" --policy=ideal --by-stack --format=json >"$TMP/base.json"
gms check "$C" --baseline="$TMP/base.json" --policy=ideal
is "$rc" 1 "check --baseline: 7400 bytes at the peak against 5500: exit 1"
sed -n '/^What grew since the baseline/,$p' "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOF'
What grew since the baseline, by stack (each at its peak reservation):
      before      after      change  events                 stack (innermost first)
      1000 B   2.93 KiB   +1.95 KiB  0-0                    a.py:3 inner < b.py:2 mid < main.py:1 <module>
         0 B      100 B      +100 B  5-5                    d.py:1 new < main.py:1 <module>
       200 B        0 B      -200 B                         (no stack)
  (2 stacks the same)
EOF
cmp -s "$TMP/got" "$TMP/want"; ok $? "check --baseline fails: what grew since, by stack (the baseline's events unknown)"
[ $? -eq 0 ] || diff "$TMP/want" "$TMP/got" | sed 's/^/# /'
# --frames: the stacks compared by main.py's frames alone: main.py:1 holds
# a.py's 1000 -> 3000, its own 300 and d.py's 0 -> 100 (1300 -> 3400),
# main.py:5 the 4000 of both; --depth=1, the outermost frame, the same
gms check "$C" --baseline="$TMP/base.json" --policy=ideal --frames='main.py*'
sed -n '/^What grew since the baseline/,$p' "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOF'
What grew since the baseline, by stack (each at its peak reservation):
      before      after      change  events                 stack (innermost first)
    1.27 KiB   3.32 KiB   +2.05 KiB  0-5                    main.py:1 <module>
       200 B        0 B      -200 B                         (no stack)
  (1 stack the same)
EOF
cmp -s "$TMP/got" "$TMP/want"; ok $? "check --baseline --frames: compared by the frames kept"
[ $? -eq 0 ] || diff "$TMP/want" "$TMP/got" | sed 's/^/# /'
gms check "$C" --baseline="$TMP/base.json" --policy=ideal --depth=1
sed -n '/^What grew since the baseline/,$p' "$TMP/out" | cmp -s - "$TMP/want"
ok $? "check --baseline --depth=1: the outermost frame, the same"
gms check "$C" --baseline="$TMP/base.json" --policy=ideal --format=tap
grep -q '^#       1000 B   2.93 KiB   +1.95 KiB  0-0  ' "$TMP/out"
ok $? "check --format=tap: the same, as diagnostics"
gms check "$C" --baseline="$TMP/base.json" --policy=ideal --format=json
tr -d '\n\t' <"$TMP/out" | grep -q '"stacks_since_baseline":{"before":5500,"after":7400,"grew":\[{"stack":\["a.py:3 inner", "b.py:2 mid", "main.py:1 <module>"\],"before":1000,"after":3000,"change":2000,'
ok $? "check --format=json: \"stacks_since_baseline\""
gms check "$S" --baseline="$TMP/base.json" --policy=ideal
is "$rc $(grep -c 'What grew' "$TMP/out")" "0 0" "check --baseline that holds: nothing to explain"
"$GPUMEMSIM" run "$S" --policy=ideal --format=json >"$TMP/plain.json"
gms check "$C" --baseline="$TMP/plain.json" --policy=ideal
is "$rc $(grep -c 'What grew' "$TMP/out")" "1 0" "a baseline saved without its stacks: the checks alone"
sed 's/"bytes":	1300,/"bytes":	500,/' "$TMP/base.json" >"$TMP/bad.json"
check_fail 3 "gpumemsim: error: $TMP/bad.json: \"stacks\" at the peak reservation is not a tree as run --by-stack writes it: a node that holds less than its children" \
    check "$C" --baseline="$TMP/bad.json" --policy=ideal

# Two real runs of one job, a small GPT-2 with eager attention at sequence
# lengths 64 and 128 (t/data/scale): the attention's probabilities are
# batch x heads x L x L, so softmax's output is 4 times larger at twice L;
# each column adds up to its run's live bytes at its peak.
X=$TOP_SRCDIR/t/data/scale
gms compare "$X/xfmr-seq-64.pickle.gz" "$X/xfmr-seq-128.pickle.gz" --folded --frames='*.py*'
awk '{ b += $(NF - 1); a += $NF } END { printf "%d %d\n", b, a }' "$TMP/out" >"$TMP/sums"
grep 'functional.py:2159 softmax [0-9]' "$TMP/out" | awk '{ print ($NF == 4 * $(NF - 1)) }' >"$TMP/softmax"
live() {
	gms run "$1" --by-site --format=json
	sed -n 's/^\t\t\t"live":\t\([0-9]*\),$/\1/p' "$TMP/out" | head -n 1
}
is "$(cat "$TMP/sums")" "$(live "$X/xfmr-seq-64.pickle.gz") $(live "$X/xfmr-seq-128.pickle.gz")" \
    "xfmr-seq 64 -> 128: each column adds up to its run's live bytes at its peak"
is "$(cat "$TMP/softmax")" 1 "xfmr-seq 64 -> 128: softmax's stack holds four times the bytes (L^2)"

# Real recordings (PyTorch 2.11 on the H200, _record_memory_history()'s
# defaults: Python and C++ frames).  The stacks' sum is the live bytes the
# site table counts at the same moment, and the program's own lines stand
# above the library's and the C++ below them.
U=$TOP_SRCDIR/t/data/users
for n in oom-except set-roundup emptycache-server compile-ro; do
	gms run "$U/$n.pickle.gz" --by-site --format=json
	live=$(sed -n 's/^\t\t\t"live":\t\([0-9]*\),$/\1/p' "$TMP/out" | head -n 1)
	gms run "$U/$n.pickle.gz" --folded
	is "$(awk '{ s += $NF } END { printf "%d", s }' "$TMP/out")" "$live" \
	    "$n: the folded stacks add up to the live bytes at the peak reservation"
done
# a recursion 300 frames deep (t/data/gen/deep_stack.py): 256 frames kept,
# the outermost 128 and the innermost 128, "(frames left out)" between
gms run "$TOP_SRCDIR/t/data/stacks/deep.pickle.gz" --folded
{ awk 'BEGIN { for (i = 299; i >= 172; i--) printf "f%d.py:%d f%d;", i, i + 1, i
	printf "(frames left out)"
	for (i = 127; i >= 0; i--) printf ";f%d.py:%d f%d", i, i + 1, i
	print " 1024" }'; } >"$TMP/want"
cmp -s "$TMP/out" "$TMP/want"; ok $? "a stack 300 frames deep: the outermost and innermost 128, the gap said"

# a memo bomb of stacks (fuzz-pickle-shared's find): 2047 entries of 21 KB
# name one list of long frames, 195 KB of stack each, 400 MB unfolded.
# Stacks stop after 16 MiB of them (32 bytes for each byte of the file, 16 MiB
# at least; PyTorch's own hand out under 3): the rest of the trace is read.
gms convert "$TOP_SRCDIR/t/data/stacks/memo-bomb.pickle" "$TMP/bomb.jsonl"
n=$(grep -c '"stack"' "$TMP/bomb.jsonl")
test "$rc" -eq 0 && test "$n" -gt 0 && test "$n" -lt 2047 && test "$(wc -c <"$TMP/bomb.jsonl")" -lt 33554432
ok $? "a memo bomb of stacks: read whole, its stacks stopped after 16 MiB ($n of 2047 have one)"

gms run "$U/oom-except.pickle.gz" --folded
# the transformer's attention: the job's line, then torch's modules, then C++
grep -q '^[^ ]*record_users.py:287 <module>;[^ ]*record_users.py:100 child;[^ ]*record_users.py:53 xfmr_job;.*torch/nn/modules/transformer.py:968 _sa_block;.*torch/nn/functional.py:6478 multi_head_attention_forward;.*;at::native::matmul;' \
    "$TMP/out"
ok $? "oom-except: <module> > child > xfmr_job (the job's lines) > the library's > its C++"
grep -q 'PyEval\|_PyRun\|unwind::unwind\|__libc' "$TMP/out"
ok $((!$?)) "oom-except: no interpreter, unwinder or libc frames in the stacks"
# a snapshot's stacks survive convert to the native format
gms run "$U/oom-except.pickle.gz" --folded
cp "$TMP/out" "$TMP/snap.folded"
gms convert "$U/oom-except.pickle.gz" "$TMP/snap.jsonl.gz"
gms run "$TMP/snap.jsonl.gz" --folded
cmp -s "$TMP/out" "$TMP/snap.folded"; ok $? "oom-except: converted to JSON Lines, the same stacks"

# report: an icicle graph for each policy's moment, when the trace has stacks
gms report "$U/oom-except.pickle.gz" -o "$TMP/r.html"
# (the five policies peak at one event, 894, where the same bytes are live:
# one graph for them all, and one table of sites)
is "$rc $(grep -c '<svg class="flame"' "$TMP/r.html") $(grep -c '<table class="sites"' "$TMP/r.html")" \
    "0 1 1" "report: one icicle graph and one table for the five policies' one moment"
grep -q '<text x="600" y="20" font-size="15" text-anchor="middle">caching, caching alloc_conf=expandable_segments:True, cuda-async, no-cache and ideal at their peak reservation (event 894)</text>' "$TMP/r.html"
ok $? "report: each graph says whose and when"
grep -q '<p class="verdict oom" id="recorded-oom"><strong>The job ran out of memory</strong> at event 894, asking for 40.00 MiB (41943040 B), under a limit between 660.00 MiB and 694.00 MiB (692060160 to 727711743 B' "$TMP/r.html"
ok $? "report: the page leads with the job's own OOM and the limit it ran under"
# under 5000 bytes: ideal's peak at event 3 (2000 live, before the free of
# event 4) and its OOM at event 5; caching's first request takes a 2 MiB
# segment, out of memory at event 0 with no peak before it: three graphs
gms report "$S" --policies=ideal,caching --capacity=5000B -o "$TMP/r.html"
grep -o '<text x="600" y="20" font-size="15" text-anchor="middle">[^<]*' "$TMP/r.html" | sed 's/.*>//' >"$TMP/got"
printf 'ideal at its peak reservation (event 3)\nideal at its OOM (event 5)\ncaching at its OOM (event 0)\n' >"$TMP/want"
cmp -s "$TMP/got" "$TMP/want"; ok $? "report: each policy's peak and OOM that it reached, three graphs"
gms report "$TRACES/resnet50-train-b32.json" -o "$TMP/r.html"
grep -q 'id="stacks"' "$TMP/r.html"; ok $((!$?)) "report: no section by stack for a trace without stacks"

# --- a PyTorch profile's stacks: the spans of each [memory] event's thread ---
# t/data/stacks/kineto-spans.json, worked by hand: thread 1 runs main (0-100)
# > torch's _call_impl (10-50) > forward (12-48) > aten::empty (20-21), and
# main > a built-in randn (60-70, named with its object's address) >
# aten::randn (61-62); thread 2 (autograd) MmBackward0 (30-40) > aten::mm
# (31-33); a kernel (not a call) spans everything.  Allocations: 1024 B at
# 20.5 (in aten::empty), 4096 at 32 on thread 2, 2048 at 61.5 (randn), 512
# at 100 (main's last instant), 1536 at 150 (no span open), 512 on thread 3
# (none at all).
K=$TOP_SRCDIR/t/data/stacks/kineto-spans.json
gms run "$K" --folded --at 5
sort "$TMP/out" >"$TMP/got"
sort >"$TMP/want" <<'EOF'
autograd::engine::evaluate_function: MmBackward0;aten::mm 4096
app.py:10 main 512
app.py:10 main;<built-in method randn of type object>;aten::randn 2048
app.py:10 main;torch/nn/modules/module.py:1783 _call_impl;app.py:20 forward;aten::empty 1024
(no stack) 2048
EOF
cmp -s "$TMP/got" "$TMP/want"; ok $? "profile: each allocation's stack is its thread's spans around it, innermost last in folded form"
# the same profile written otherwise: an escape in a name (read by cJSON, not
# the fast path) and a nested value with a brace in a string before it
sed 's|"name": "app.py(20): forward"|"args": {"x": [1, {"y": "}"}]}, "name": "app.py(20): \\u0066orward"|' "$K" >"$TMP/k2.json"
grep -q 'u0066orward' "$TMP/k2.json" || echo "# the sed did not apply"
gms run "$TMP/k2.json" --folded --at 5
sort "$TMP/out" >"$TMP/got"
cmp -s "$TMP/got" "$TMP/want"; ok $? "profile: an escaped name and nested args give the same stacks"
# 300 calls deep (a recursion): the innermost 128, a gap, the outermost 128
awk 'BEGIN {
	printf "{\"traceEvents\": [\n"
	for (i = 0; i < 300; i++)
		printf "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"r.py(%d): f\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d},\n", i + 1, i, 1000 - 2 * i
	printf "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 400, \"args\": {\"Addr\": 1, \"Bytes\": 512, \"Total Allocated\": 512, \"Total Reserved\": 2097152, \"Device Type\": 1, \"Device Id\": 0}}\n]}\n"
}' >"$TMP/deep.json"
gms run "$TMP/deep.json" --folded
is "$rc $(tr ';' '\n' <"$TMP/out" | sed -n '1p;128p;129p;130p;257p' | tr '\n' '|')" \
    "0 r.py:1 f|r.py:128 f|(frames left out)|r.py:173 f|r.py:300 f 512|" \
    "profile: a stack 300 calls deep keeps the outermost 128 and the innermost 128, the gap said"
gms run "$K" --by-site --at 5
sed -n '/^At the chosen event/,$p' "$TMP/out" | awk 'NR > 2 && $1 != "=" { print $1, $2, $3, $NF }' >"$TMP/got"
printf '4.00 KiB 1 (backward)\n2.50 KiB 2 main\n2.00 KiB 2 site)\n1.00 KiB 1 forward\n' >"$TMP/want"
cmp -s "$TMP/got" "$TMP/want"; ok $? "profile: the site is the innermost Python frame outside torch (randn's is main), the autograd thread's its backward op"
grep -q '^    4.00 KiB       1    0.2%          2-2          MmBackward0 (backward)$' "$TMP/out"
ok $? "... named as a snapshot names it: MmBackward0 (backward)"
# one more block, made inside torch's _call_impl but outside forward: main's
sed 's|^\]}$|,{"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 11, "args": {"Addr": 15000, "Bytes": 512, "Device Type": 1, "Device Id": 0}}]}|' "$K" >"$TMP/k3.json"
gms run "$TMP/k3.json" --by-site --at 6
grep -q '^    3.00 KiB       3    0.1%          0-5          app.py:10 main$' "$TMP/out"
ok $? "profile: a block made in torch's own Python is its caller's (main: 3 blocks)"

# A real profile beside the snapshot of the same run (t/data/users/kineto-whole):
# at the peak reservation both hold 120 allocations, 101 made under the job's
# <module> on the main thread and 19 on the autograd thread, and the backward
# ops hold the same blocks
gms run "$U/kineto-whole.pt.trace.json.gz" --by-stack --depth=1
sed -n '/live memory by stack/,$p' "$TMP/out" >"$TMP/prof"
gms run "$U/kineto-whole.pickle.gz" --by-stack --depth=1
sed -n '/live memory by stack/,$p' "$TMP/out" >"$TMP/snap"
prof_main=$(awk '/record_users.py:287 <module>$/ { print $4 }' "$TMP/prof")
snap_main=$(awk '/record_users.py:287 <module>$/ { print $4 }' "$TMP/snap")
prof_bwd=$(awk '/autograd::engine::evaluate_function/ { n += $4 } END { print n }' "$TMP/prof")
snap_bwd=$(awk '/ __clone$/ { print $4 }' "$TMP/snap")
is "$prof_main $prof_bwd" "$snap_main $snap_bwd" \
    "kineto-whole: the profile's stacks split the live blocks as the snapshot's do: $snap_main under <module>, $snap_bwd on the autograd thread"
gms run "$U/kineto-whole.pt.trace.json.gz" --by-site --top=30
grep -E 'ScaledDotProductEfficientAttentionBackward0|NativeLayerNormBackward0' "$TMP/out" | awk '{ print $1, $2, $3, $NF }' >"$TMP/prof"
gms run "$U/kineto-whole.pickle.gz" --by-site --top=30
grep -E 'ScaledDotProductEfficientAttentionBackward0|NativeLayerNormBackward0' "$TMP/out" | awk '{ print $1, $2, $3, $NF }' >"$TMP/snap"
is "$(cat "$TMP/prof")" "$(cat "$TMP/snap")" "... and two backward ops' sites hold what they hold in the snapshot (3.12 MiB in 4, 804 KiB in 5)"
is "$(wc -l <"$TMP/prof" | tr -d ' ')" 2 "... both found"

done_testing
