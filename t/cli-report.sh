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

# series_max PAGE NAME: the largest value of a series of the timeline's data
series_max() {
	sed -n 's/.*<script type="application\/json" id="timeline-data">\(.*\)<\/script>.*/\1/p' "$1" |
	    sed -n "s/.*{\"name\":\"$2\",\"p\":\[\([^]]*\(\],\[[^]]*\)*\)\]\].*/\1/p" |
	    tr -d '[' | tr ']' '\n' | awk -F, '{ v = $NF + 0; if (v > m) m = v } END { printf "%.0f\n", m }'
}
page=$TMP/gpt2-train-varlen-bf16.jsonl.gz.html
gms run "$GPT2" --policy=caching --format=json
is "$(series_max "$page" "caching reserved")" "$(json_top peak_reserved)" "the timeline's envelope keeps caching's peak"
is "$(series_max "$page" live)" "$(json_top peak_live)" "... and the live peak"

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
for page in "$TMP/resnet50-train-b32.json.html" "$TMP/gpt2-train-varlen-bf16.jsonl.gz.html" "$TMP/hand.html"; do
	name=$(basename "$page")
	browse --dump-dom "file://$page#selftest" >"$TMP/dom" 2>"$TMP/console"
	sed -n '/<pre id="selftest"/,/<\/pre>/p' "$TMP/dom" | sed 's/<[^>]*>//g' >"$TMP/selftest"
	grep -q '^1\.\.5$' "$TMP/selftest"; ok $? "$name: the page ran its self-test"
	is "$(grep -c '^ok ' "$TMP/selftest")" 5 "$name: every self-test passed"
	grep '^not ok\|^# ready' "$TMP/selftest" | sed 's/^/# /'
	is "$(grep -c 'Uncaught\|CONSOLE.*[Ee]rror' "$TMP/console")" 0 "$name: no error on the console"
	is "$(peak_in_page "$TMP/dom" caching)" "$(peak_in_page "$page" caching)" \
	    "$name: the peak as the browser shows it"
done
grep -q '^ok 3 - hovering it shows its details: 30.00 MiB allocated (31457280 B requested) · a.py:1 f · event 2 · segment ' "$TMP/selftest"
ok $? "hand-worked: a hover on the first allocated block shows the 30 MiB made at event 2"

browse --hide-scrollbars --window-size=1200,1600 --screenshot="$TMP/shot.png" \
    "file://$TMP/gpt2-train-varlen-bf16.jsonl.gz.html" >/dev/null 2>&1
set -- $("$PNGSTAT" "$TMP/shot.png" 2>/dev/null)
is "${1:-} ${2:-}" "1200 1600" "a screenshot of the page"
[ "${3:-0}" -ge 16 ] && [ "${4:-0}" -ge 50 ]
ok $? "it is not blank: ${3:-0} colours, ${4:-0} per mille not white"

done_testing
