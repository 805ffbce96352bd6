#!/bin/sh
# cli-report.sh - `gpumemsim report`: the page is written whole, fetches
# nothing, carries its tables and pictures without the script, and says what
# `run` says; opened in headless Chromium (Debian's chromium; skipped when it
# is absent) it raises no error, checks itself (#selftest: a hover on a
# memory map block shows that block), and renders to a screenshot that is
# not blank.  Block details are checked against t/data/sites/handworked.json
# worked out by hand (t/attrib.c says how).
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json
GPT2=$TRACES/gpt2-train-varlen-bf16.jsonl.gz
HAND=$TOP_SRCDIR/t/data/sites/handworked.json

# peak_in_page FILE POLICY: the peak reserved the page gives for POLICY
peak_in_page() {
	sed -n "s/.*data-policy=\"$2\" data-peak-reserved=\"\\([0-9]*\\)\".*/\\1/p" "$1" | head -n 1
}

check_fail 2 "gpumemsim: error: no output given (-o report.html)" report "$RESNET"
check_fail 4 "gpumemsim: error: cannot open trace '$TMP/none.json': No such file or directory" \
    report "$TMP/none.json" -o "$TMP/x.html"
test ! -e "$TMP/x.html"; ok $? "a failed report leaves no file"
cp "$HAND" "$TMP/in.json"
gms report "$TMP/in.json" -o "$TMP/in.json"
is "$rc" 3 "the report is never written over its trace"
cmp -s "$HAND" "$TMP/in.json"; ok $? "... which is unharmed"

for t in "$RESNET" "$GPT2"; do
	name=$(basename "$t")
	gms report "$t" --policies=caching,grow-only -o "$TMP/$name.html"
	is "$rc" 0 "$name: report exits 0"
	page=$TMP/$name.html
	is "$(head -n 1 "$page")" "<!DOCTYPE html>" "$name: an HTML page"
	tail -n 1 "$page" | grep -q "^</html>\$"; ok $? "$name: written whole"
	is "$(grep -c 'http:\|https:\|src=\|@import\|<link' "$page")" 0 \
	    "$name: self-contained (no address, no source, no link)"
	for p in caching grow-only; do
		gms run "$t" --policy=$p --format=json
		is "$(peak_in_page "$page" $p)" "$(json_top peak_reserved)" \
		    "$name: $p's peak reserved in the page is run's"
	done
	# readable without the script: the tables and the pictures come before it
	sed '/^<script>$/,$d' "$page" >"$TMP/noscript.html"
	is "$(grep -c '<table' "$TMP/noscript.html")" "$(grep -c '<table' "$page")" \
	    "$name: every table is in the page before the script"
	grep -q '<svg id="timeline"' "$TMP/noscript.html"; ok $? "$name: the timeline is static SVG"
	grep -q '<svg class="map"' "$TMP/noscript.html"; ok $? "$name: so are the memory maps"
	grep -q '<rect class="blk a"[^>]*><title>[^<]* allocated (' "$TMP/noscript.html"
	ok $? "$name: each block says what it is in its own <title>"
done

# series_max PAGE START KEY: the largest value of a series (KEY r: a policy's
# reserved, v: live) at the timeline data's finest level (the last)
series_max() {
	sed -n 's/.*<script type="application\/json" id="timeline-data">\(.*\)<\/script>.*/\1/p' "$1" |
	    sed -n "s/.*$2[^]]*\],\"$3\":\[\([0-9,]*\)\].*/\1/p" |
	    tr ',' '\n' | awk '{ v = $1 + 0; if (v > m) m = v } END { printf "%.0f\n", m }'
}
page=$TMP/gpt2-train-varlen-bf16.jsonl.gz.html
gms run "$GPT2" --policy=caching --format=json
is "$(series_max "$page" '{"name":"caching","e":\[' r)" "$(json_top peak_reserved)" "the timeline's envelope keeps caching's peak"
is "$(series_max "$page" '"live":{"e":\[' v)" "$(json_top peak_live)" "... and the live peak"
# levels: each finer than the one before, the coarsest about --points
levels=$(sed -n 's/.*id="timeline-data">\(.*\)<\/script>.*/\1/p' "$page" | grep -o '"live":{"e":\[[0-9,]*\]' |
    awk -F, '{ printf "%s%d", (NR > 1 ? " " : ""), NF }')
echo "# live points per level: $levels"
set -- $levels
[ "$#" -eq 3 ] && [ "$1" -le 1000 ] && [ "$1" -ge 500 ] && [ "$2" -gt "$1" ] && [ "$3" -gt "$2" ]
ok $? "the timeline carries three levels, coarse to fine ($levels points)"
gms report "$GPT2" --policy=caching --points=200 -o "$TMP/p200.html"
n=$(sed -n 's/.*id="timeline-data">\(.*\)<\/script>.*/\1/p' "$TMP/p200.html" | grep -o '"live":{"e":\[[0-9,]*\]' | head -n 1 | awk -F, '{ print NF }')
[ "$n" -le 200 ] && [ "$n" -ge 100 ]; ok $? "--points=200: the coarsest level has $n points"
grep -q '"time":{"e":\[' "$page"; ok $? "a trace with times carries them (an axis in seconds)"

# t/data/sites/handworked.json in 60 MiB: caching peaks at event 4 with a.py's
# two blocks, 8 MiB (event 0) and 30 MiB (event 2), and runs out at event 7.
gms report "$HAND" --policy=caching --capacity=60MiB -o "$TMP/hand.html"
is "$rc" 0 "hand-worked: report exits 0"
is "$(peak_in_page "$TMP/hand.html" caching)" 54525952 "hand-worked: 52 MiB at the peak"
grep -q '<td class="l oom">at event 7, asking 100.00 MiB</td>' "$TMP/hand.html"
ok $? "hand-worked: the OOM at event 7 in the policy table"
grep -q '<pre class="story">OUT OF MEMORY at event 7: a request for 100.00 MiB (104857600 B) on stream 0, at c.py:3 h$' "$TMP/hand.html"
ok $? "hand-worked: the OOM story"
grep -q '<title>8.00 MiB allocated (8388608 B requested) · a.py:1 f · event 0 · segment ' "$TMP/hand.html"
ok $? "hand-worked: the 8 MiB block's details"
grep -q '<table class="sites" data-moment="oom">' "$TMP/hand.html"; ok $? "hand-worked: what holds the memory at the OOM"
gms report - --policy=caching --capacity=60MiB -o "$TMP/stdin.html" <"$HAND"
grep -v '^<footer>' "$TMP/hand.html" >"$TMP/a"
grep -v '^<footer>' "$TMP/stdin.html" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b"; ok $? "standard input gives the same page (but the command line in its footer)"

grep -q '"time":null' "$TMP/hand.html"; ok $? "hand-worked: no times, so no axis in seconds"

# The allocator's state at chosen events (--at), worked out by hand for
# handworked.json under caching: after event 2 a.py's 8 and 30 MiB and b.py's
# 8 MiB are live in 50 MiB (a 20 MiB segment split 8 + 8 + 4 free, and a new
# 30 MiB one); after event 3 b.py's block is free beside the 4 MiB: 12 MiB.
# state_in_page PAGE POLICY_INDEX EVENT: "live count reserved allocated largest_free"
state_in_page() {
	grep "<figure class=\"state\" data-policy-index=\"$2\" data-moment=\"at\" data-event=\"$3\"" "$1" |
	    sed 's/.*data-live="\([0-9]*\)" data-count="\([0-9]*\)" data-reserved="\([0-9]*\)" data-allocated="\([0-9]*\)" data-largest-free="\([0-9]*\)".*/\1 \2 \3 \4 \5/'
}
# state_of_run: the same from `run --by-site --at --format=json` in $TMP/out
state_of_run() {
	sed -n '/"moment":.*"at"/,/"sites":/p' "$TMP/out" | awk -F"$TAB" '
	    { sub(/,$/, "", $5); v[$4] = $5 }
	    END { print v["\"live\":"], v["\"count\":"], v["\"reserved\":"], v["\"allocated\":"], v["\"largest_free\":"] }'
}
gms report "$HAND" --policy=caching --at 2 --at 3 -o "$TMP/at.html"
is "$rc" 0 "--at 2 --at 3: report exits 0"
is "$(state_in_page "$TMP/at.html" 0 2)" "48234496 3 52428800 48234496 4194304" "hand-worked: the state after event 2"
is "$(state_in_page "$TMP/at.html" 0 3)" "39845888 2 52428800 39845888 12582912" "hand-worked: the state after event 3"
for e in 2 3; do
	gms run "$HAND" --policy=caching --by-site --at $e --format=json
	is "$(state_in_page "$TMP/at.html" 0 $e)" "$(state_of_run)" "the page's state after event $e is run --at $e's"
done
grep -q '<p class="req">Event 2 asks 30.00 MiB (31457280 B) on stream 0. No block the policy had free served it (the largest free block before it was 4.00 MiB, 4194304 B): it took a block of 30.00 MiB at 0x[0-9a-f]* in memory newly reserved.</p>' "$TMP/at.html"
ok $? "hand-worked: event 2's request found no free block and took new memory"
grep -q '<p class="req">Event 3 frees allocation 2: 8.00 MiB (8388608 B) made at event 1 by b.py:2 g. Its block stays reserved, free in the policy&#39;s cache.</p>' "$TMP/at.html"
ok $? "hand-worked: event 3's free stays in caching's cache"
gms report "$HAND" --policy=no-cache --at 3 -o "$TMP/nocache.html"
grep -q '<p class="req">Event 3 frees allocation 2: 8.00 MiB (8388608 B) made at event 1 by b.py:2 g. The policy gave 8.00 MiB back to the device (its reservation 38.00 MiB, was 46.00 MiB).</p>' "$TMP/nocache.html"
ok $? "hand-worked: under no-cache the free gives its 8 MiB back"
# a freed block taken again: 8 MiB in a 20 MiB segment, freed, then 4 MiB from it
printf '%s\n' '{"format":"gpumemsim-trace","version":1,"name":"reuse"}' \
    '{"op":"alloc","id":1,"size":8388608,"stream":0,"at":"r.py:1 f"}' '{"op":"free","id":1}' \
    '{"op":"alloc","id":2,"size":4194304,"stream":0,"at":"r.py:2 g"}' >"$TMP/reuse.jsonl"
gms report "$TMP/reuse.jsonl" --policy=caching --at 2 -o "$TMP/reuse.html"
req=$(sed -n 's/.*<p class="req">\(Event 2 [^<]*\)<\/p>.*/\1/p' "$TMP/reuse.html")
echo "# $req"
echo "$req" | grep -q '^Event 2 asks 4.00 MiB (4194304 B) on stream 0. It took a block of 4.00 MiB at \(0x[0-9a-f]*\) from the free block of 20.00 MiB at \1 (segment \1, 20.00 MiB), leaving 16.00 MiB of it free.$'
ok $? "a request served from a cached free block names that block (the segment's start)"
gms report "$HAND" --policy=caching --capacity=60MiB --at 7 -o "$TMP/at7.html"
grep -q '<p class="req">caching ran out of memory at event 7 itself: it has no state after event 7 ' "$TMP/at7.html"
ok $? "--at the OOM's event: the page says the run has no state after it"
check_fail 2 "gpumemsim: error: --at 10: '$HAND' has 10 events (0 to 9)" report "$HAND" --at 10 -o "$TMP/x.html"
test ! -e "$TMP/x.html"; ok $? "... and writes no page"
check_fail 2 "gpumemsim: error: give --at 13 times at most" report "$HAND" -o "$TMP/x.html" \
    --at 0 --at 1 --at 2 --at 3 --at 4 --at 5 --at 6 --at 7 --at 8 --at 9 --at 0 --at 1 --at 2 --at 3

# A band's stacks: site a.py holds 3 MiB from one stack and 1 MiB from another,
# b.py 2 MiB; all live at the end.  Band 0 (a.py) lists its two stacks, the
# larger first; band 1 (b.py) its one.
printf '%s\n' '{"format":"gpumemsim-trace","version":1,"name":"bands"}' \
    '{"op":"alloc","id":1,"size":1048576,"stream":0,"at":"a.py:1 f","stack":["a.py:1 f","main.py:9 y"]}' \
    '{"op":"alloc","id":2,"size":3145728,"stream":0,"at":"a.py:1 f","stack":["a.py:1 f","main.py:5 x"]}' \
    '{"op":"alloc","id":3,"size":2097152,"stream":0,"at":"b.py:2 g","stack":["b.py:2 g","main.py:5 x"]}' >"$TMP/bands.jsonl"
gms report "$TMP/bands.jsonl" --policy=caching -o "$TMP/bands.html"
is "$(sed -n 's/.*"bands":\(\[.*\]\),"pols".*/\1/p' "$TMP/bands.html")" "[[[0,3145728],[1,1048576]],[[2,2097152]],[]]" \
    "a band's largest stacks at the live peak, largest first"
is "$(sed -n 's/.*id="stacks-data">\(.*\)<\/script>.*/\1/p' "$TMP/bands.html")" \
    '["a.py:1 f\u000amain.py:5 x","a.py:1 f\u000amain.py:9 y","b.py:2 g\u000amain.py:5 x"]' \
    "... each stack in the page once, innermost frame first"

# The segment timeline: caching's three segments of handworked.json in 60 MiB;
# at the OOM (event 7) caching gives back its wholly free segments, a.py's
# 20 and 30 MiB, and tries again, as PyTorch does: the small one stays.
gms report "$HAND" --policy=caching --capacity=60MiB -o "$TMP/hand.html"
grep -o '<rect class="sg[^"]*"[^>]*><title>[^<]*' "$TMP/hand.html" | sed 's/.*<title>//; s/0x[0-9a-f]*/ADDR/' | sort >"$TMP/segs"
is "$(cat "$TMP/segs" | tr '\n' '|')" "segment ADDR of 2.00 MiB (2097152 B), reserved at event 4, kept to the end|segment ADDR of 20.00 MiB (20971520 B), reserved at event 0, given back at event 7|segment ADDR of 30.00 MiB (31457280 B), reserved at event 2, given back at event 7|" \
    "hand-worked: the segment timeline's three segments, when each was reserved"
# drawn on the trace's events (0 to 9, 900 units): the small segment from
# event 4 (x 78 + 400) to the OOM at 7 (78 + 700), not stretched to event 9
grep -q '<rect class="sg kept" x="478.0" y="[0-9.]*" width="300.0" height="[0-9.]*"><title>segment 0x[0-9a-f]* of 2.00 MiB' "$TMP/hand.html"
ok $? "hand-worked: a kept segment's bar ends at the run's OOM on the trace's event axis"
gms report "$HAND" --policy=no-cache -o "$TMP/nc.html"
grep -q '<title>segment 0x[0-9a-f]* of 8.00 MiB (8388608 B), reserved at event 1, given back at event 3</title>' "$TMP/nc.html"
ok $? "hand-worked under no-cache: b.py's segment from event 1 to its free at 3"

# Two traces: the second's page, beside the first's numbers and what grew by
# stack, as compare says it.
X=$TOP_SRCDIR/t/data/scale
gms report "$X/xfmr-seq-64.pickle.gz" "$X/xfmr-seq-128.pickle.gz" --policies=caching,grow-only --at 100 -o "$TMP/two.html"
is "$rc" 0 "two traces: report exits 0"
gms compare "$X/xfmr-seq-64.pickle.gz" "$X/xfmr-seq-128.pickle.gz" --format=json
row=$(grep '<tr><td class="l">caching peak reserved</td>' "$TMP/two.html" | sed 's/.*data-bytes="\([0-9]*\)".*data-bytes="\([0-9]*\)".*/\1 \2/')
is "$row" "$(json_in before peak_reserved) $(json_in after peak_reserved)" "two traces: caching's peaks before and after are compare's"
first=$(grep -o '<tr data-grew="[0-9-]*"' "$TMP/two.html" | head -n 1 | sed 's/.*="\(.*\)"/\1/')
want=$(sed -n "s/^$TAB$TAB$TAB$TAB\"change\":$TAB\([0-9-]*\),*\$/\1/p" "$TMP/out" | head -n 1)
is "$first" "$want" "two traces: the stack that grew most grew as compare says ($want B)"
grep -q '<tr data-grew="3932160"><td class="l" title="at::native::dropout' "$TMP/two.html"
ok $? "two traces: dropout's mask grew 4x (1.25 to 5 MiB: the attention matrix, L^2)"
grep -q "<h1>xfmr-seq-128</h1>" "$TMP/two.html"; ok $? "two traces: the page is the second's"
check_fail 2 "gpumemsim: error: standard input can be one of the traces, not both" report - - -o "$TMP/x.html"

# The size is bounded, whatever the trace's length: 20,000 and 400,000 events.
awk -v n=10000 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"long\"}";
	for (i = 1; i <= n; i++) {
		printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d,\"stream\":0,\"at\":\"s%d.py:1 f\"}\n", i, 1048576 * (1 + i % 7), i % 13;
		if (i > 3) printf "{\"op\":\"free\",\"id\":%d}\n", i - 3 }
	}' >"$TMP/short.jsonl"
awk -v n=200000 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"long\"}";
	for (i = 1; i <= n; i++) {
		printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d,\"stream\":0,\"at\":\"s%d.py:1 f\"}\n", i, 1048576 * (1 + i % 7), i % 13;
		if (i > 3) printf "{\"op\":\"free\",\"id\":%d}\n", i - 3 }
	}' >"$TMP/long.jsonl"
gms report "$TMP/short.jsonl" --policies=caching,grow-only -o "$TMP/short.html"
is "$rc" 0 "20,000 events: report exits 0"
gms report "$TMP/long.jsonl" --policies=caching,grow-only -o "$TMP/long.html"
is "$rc" 0 "400,000 events: report exits 0"
short=$(wc -c <"$TMP/short.html")
long=$(wc -c <"$TMP/long.html")
[ "$long" -lt 2000000 ] && [ "$long" -lt $((short * 3 / 2)) ]
ok $? "twenty times the events, about the same page ($short and $long bytes)"

# A trace's strings are text, never markup: a call site that tries to close
# the script or open a tag comes out escaped.
cat >"$TMP/hostile.jsonl" <<'END'
{"format":"gpumemsim-trace","version":1,"name":"<b>hostile</b> & \"quoted\""}
{"op":"alloc","id":1,"size":4194304,"stream":0,"at":"</script><img src=x onerror=alert(1)>'\"&amp;"}
{"op":"mark","label":"</title><script>alert(2)</script>"}
{"op":"free","id":1}
END
gms report "$TMP/hostile.jsonl" --policy=caching -o "$TMP/hostile.html"
is "$rc" 0 "hostile strings: report exits 0"
is "$(grep -c '<img\|<b>\|alert(2)</script>' "$TMP/hostile.html")" 0 "hostile strings: no markup of theirs in the page"
grep -q '&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&quot;&amp;amp;' "$TMP/hostile.html"
ok $? "hostile strings: the call site, escaped"
grep -q '<title>&lt;b&gt;hostile&lt;/b&gt; &amp; &quot;quoted&quot;: gpumemsim report</title>' "$TMP/hostile.html"
ok $? "hostile strings: the trace's name, escaped"

# Two traces: the page is the after's, so --at is its events' (issue 55: it
# was checked against the trace before, 6172 events, for resnet's 7787)
gms report "$TOP_SRCDIR/traces/synth-lognormal-1.json" "$TOP_SRCDIR/traces/resnet50-train-b32.json" \
    --at 7000 --policy=caching -o "$TMP/two-at.html"
is "$rc $(grep -q 'event 7000' "$TMP/two-at.html" && echo shown)" "0 shown" \
    "report A B --at 7000: past A's events, within B's, whose page it is"
check_fail 2 "gpumemsim: error: --at 7000: '$TOP_SRCDIR/traces/synth-lognormal-1.json' has 6172 events (0 to 6171)" \
    report "$TOP_SRCDIR/traces/resnet50-train-b32.json" "$TOP_SRCDIR/traces/synth-lognormal-1.json" \
    --at 7000 --policy=caching -o "$TMP/two-at.html"

# In a real browser (not under t/mutate.sh, which mutates no page script and
# reruns this test for every mutant).
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || [ -n "${GMS_MUTATING:-}" ]; then
	ok 0 "# SKIP ${GMS_MUTATING:+mutation testing: }chromium is not installed or not wanted"
	done_testing
	exit
fi
browse() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
	    --user-data-dir="$TMP/chromium" --enable-logging=stderr --v=0 "$@"
}
for page in "$TMP/resnet50-train-b32.json.html" "$TMP/gpt2-train-varlen-bf16.jsonl.gz.html" "$TMP/two.html" "$TMP/hand.html"; do
	name=$(basename "$page")
	browse --dump-dom "file://$page#selftest" >"$TMP/dom" 2>"$TMP/console"
	sed -n '/<pre id="selftest"/,/<\/pre>/p' "$TMP/dom" | sed 's/<[^>]*>//g' >"$TMP/selftest"
	cp "$TMP/selftest" "$TMP/selftest-$name"
	grep -q '^1\.\.[0-9][0-9]*$' "$TMP/selftest"; ok $? "$name: the page ran its self-test"
	is "$(grep -c '^not ok ' "$TMP/selftest")" 0 "$name: every self-test passed"
	grep '^not ok\|^# ready' "$TMP/selftest" | sed 's/^/# /'
	is "$(grep -c 'Uncaught\|CONSOLE.*[Ee]rror' "$TMP/console")" 0 "$name: no error on the console"
	is "$(peak_in_page "$TMP/dom" caching)" "$(peak_in_page "$page" caching)" \
	    "$name: the peak as the browser shows it"
done
grep -q '^ok 3 - hovering it shows its details: 30.00 MiB allocated (31457280 B requested) · a.py:1 f · event 2 · segment ' "$TMP/selftest"
ok $? "hand-worked: a hover on the first allocated block shows the 30 MiB made at event 2"

# the explorer: finer data zoomed in, a block's stack kept by a click, the
# state at a chosen event as run --at says it, the stacks that grew
st=$TMP/selftest-gpt2-train-varlen-bf16.jsonl.gz.html
z=$(sed -n 's/^ok [0-9]* - zoomed to events .*: level \([0-9]*\), \([0-9]*\) points where the coarsest level has \([0-9]*\) .*/\1 \2 \3/p' "$st")
set -- $z
[ "${1:-0}" -gt 1 ] && [ "${2:-0}" -gt $((${3:-0} * 4)) ]
ok $? "gpt2: zoomed into a tenth, the page draws a finer level (level, points, coarsest's: $z)"
grep -q '^ok [0-9]* - the axis in seconds ends at [0-9.]* s$' "$st"; ok $? "gpt2: the axis in seconds"
st=$TMP/selftest-two.html
n=$(grep -o '<rect class="blk a"[^>]*data-s="[0-9]*"' "$TMP/two.html" | head -n 1 | sed 's/.*data-s="\([0-9]*\)"/\1/')
want=$(sed -n 's/.*id="stacks-data">\[\(.*\)\]<\/script>.*/\1/p' "$TMP/two.html" | sed 's/","/"\n"/g' |
    sed -n "$((${n:-0} + 1))p" | sed 's/^"//; s/"$//; s/\\u000a/ | /g; s/\\u003c/</g; s/\\u003e/>/g; s/\\u0026/\&/g')
# the self-test prints the stack as HTML text: < > & escaped there
got=$(sed -n "s/^ok [0-9]* - a click keeps a block's stack: //p" "$st" | sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
echo "# $got"
[ -n "$want" ] && [ "$got" = "$want" ]; ok $? "two traces: a click on a block keeps its whole stack, as the page carries it"
for i in 0; do
	gms run "$X/xfmr-seq-128.pickle.gz" --policy=caching --by-site --at 100 --format=json
	got=$(sed -n "s/^ok [0-9]* - state $i at event 100: live \([0-9]*\) count \([0-9]*\) reserved \([0-9]*\) allocated \([0-9]*\) largest_free \([0-9]*\) .*/\1 \2 \3 \4 \5/p" "$st")
	is "$got" "$(state_of_run)" "two traces: the browser's state of caching after event 100 is run --at 100's"
done
grep -q "^ok [0-9]* - grew 3932160 at::native::dropout" "$st"; ok $? "two traces: the browser reads the stack that grew most"

browse --hide-scrollbars --window-size=1200,1600 --screenshot="$TMP/shot.png" \
    "file://$TMP/gpt2-train-varlen-bf16.jsonl.gz.html" >/dev/null 2>&1
set -- $("$PNGSTAT" "$TMP/shot.png" 2>/dev/null)
is "${1:-} ${2:-}" "1200 1600" "a screenshot of the page"
[ "${3:-0}" -ge 16 ] && [ "${4:-0}" -ge 50 ]
ok $? "it is not blank: ${3:-0} colours, ${4:-0} per mille not white"

done_testing
