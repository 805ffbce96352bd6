#!/bin/sh
# t/cli-reliability.sh - the second hostile-input and fault pass (issue 27),
# each class as it was reproduced: pickle reference bombs, plan's verified
# minimum against run, names gnuplot split (the faults of the same pass,
# full disks, signals, pipes and inputs that change, are t/cli-faults.sh).
# Exercises traces/pickle.c, traces/trace-pickle.c, analysis/plan.c,
# analysis/plot.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

HOSTILE=$TOP_SRCDIR/t/data/hostile

## 1. Pickle reference bombs: the memo names one object from many places.
# (t/data/gen/hostile.py says how each is made.)  A CPU-time limit guards
# against the old superlinear walks (minutes, or gigabytes); the readers
# now take milliseconds.
cpu() {
	(ulimit -t 60; exec "$GPUMEMSIM" "$@") >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
bomb="a reference bomb, not a snapshot PyTorch writes"
cpu info "$HOSTILE/shared-blocks.pickle"
is "$rc $(head -n 1 "$TMP/err")" "3 gpumemsim: error: $HOSTILE/shared-blocks.pickle: reading it would take more than 199952 steps (16 for each of its 8401 bytes): its blocks are named from many places through the pickle's memo, $bomb" \
    "2000 segments sharing one list of 2000 blocks (4 million from 8 KB): refused, with the reason"
cpu info "$HOSTILE/shared-traces.pickle"
is "$rc $(head -n 1 "$TMP/err")" "3 gpumemsim: error: $HOSTILE/shared-traces.pickle: device_traces[1] is the list of device_traces[0] again (named twice through the pickle's memo): not a snapshot PyTorch writes" \
    "4000 device traces that are one list of 2000 entries: refused (its entries streamed once, as device 0's)"
cpu info "$HOSTILE/shared-entries.pickle.gz"
is "$rc $(head -n 1 "$TMP/err")" "3 gpumemsim: error: $HOSTILE/shared-entries.pickle.gz: pickle byte 42310: memo get of index 6, a trace entry (or a value made inside one) already read: a snapshot names each entry once" \
    "a trace of two entry dicts named 10000 times each: refused where the first is named again"
check_fail 3 "gpumemsim: error: $HOSTILE/wide-entries.pickle.gz: device_traces[0][0] has 20003 keys (a trace entry has about 8): not a snapshot" \
    info "$HOSTILE/wide-entries.pickle.gz"
check_fail 3 "gpumemsim: error: $HOSTILE/dup-key.pickle: a dict sets the key \"size\" twice (Python keeps the last value): not a snapshot PyTorch writes" \
    info "$HOSTILE/dup-key.pickle"
check_fail 3 "gpumemsim: error: $HOSTILE/dup-key-segment.pickle: a dict sets the key \"total_size\" twice (Python keeps the last value): not a snapshot PyTorch writes" \
    info "$HOSTILE/dup-key-segment.pickle"
# 6000 entries stream in batches and their memo pages are packed behind
# them; then a BINPUT far back, into the first page, and a get of it: the
# value Python reads (hostile.py checks it: expandable_segments:True).
cpu info "$HOSTILE/memo-far-back.pickle" --format=json
is "$rc $(json_top events) $(grep -c '"alloc_conf":.*"expandable_segments:True"' "$TMP/out")" "0 6000 1" \
    "a memo slot written again far behind the stream reads back as Python reads it"
# What PyTorch shares itself (one frames list per stack) is read, once.
cpu run --by-site "$HOSTILE/shared-frames.pickle.gz" --format=json
is "$rc $(json_top events) $(json_top peak_live)" "0 20000 512" \
    "20000 entries sharing one list of 20000 plumbing frames: read (the site search once, not 400 million frames)"
cpu run --by-site "$HOSTILE/shared-frames.pickle.gz"
is "$(grep -c 'functional.py:1 linear' "$TMP/out")" "1" \
    "... and the site is the first Python frame, as when each entry had its own list"
cpu run --by-site "$HOSTILE/long-path.pickle.gz"
is "$rc $(grep -c 'train.py:7 step' "$TMP/out")" "0 1" \
    "20000 frames naming one 65539-byte plumbing path: read once, the site past them found (the path once overran the reader's arena)"

## 2. plan's minimum is the very run that run and check make at it.  Every
# bundled trace, every policy and the settings that change how the limit is
# met: the minimum fits (check --must-fit), 2 MiB less does not when plan
# says "verified", and the GPU table's cells at the uncapped run's peak
# reserved and 2 MiB on either side (where plan may reuse the uncapped run)
# say what check says on that card (--gpu given as a size).  Expandable segments once broke this: the
# limit check asks for a whole segment where only pages are mapped.
POLS='caching,caching alloc_conf=expandable_segments:True,caching alloc_conf=max_split_size_mb:64,caching alloc_conf=garbage_collection_threshold:0.6,caching alloc_conf=roundup_power2_divisions:4,grow-only,grow-only:flavor=jax,preallocate,preallocate:flavor=jax,no-cache,ideal'
MiB2=2097152
# policies: "MIN<TAB>VERIFIED<TAB>PEAK" for each of plan's policies, in order
# (PEAK: the uncapped run's peak reserved, else the minimum)
policies() {
	awk -F"$TAB" '/^\t"policies":/ { on = 1 } /^\t"gpus":/ { on = 0 }
	    on && /^\t\t\t"min_capacity":/ { m = $5; sub(/,$/, "", m) }
	    on && /^\t\t\t"verified":/ { v = $5; sub(/,$/, "", v) }
	    on && /^\t\t\t"unbounded_peak_reserved":/ { p = $5; sub(/,$/, "", p) }
	    on && /^\t\t}/ { print m "\t" v "\t" (p == "" ? m : p); m = v = p = "" }' "$TMP/out"
}
# cells: "GPU<TAB>POLICY<TAB>FITS" for every cell of plan's GPU table
cells() {
	awk -F"$TAB" '/^\t\t\t"gpu":/ { g = $5; gsub(/"|,$/, "", g) }
	    /^\t\t\t\t\t"policy":/ { p = $7; gsub(/^"|",$/, "", p) }
	    /^\t\t\t\t\t"fits":/ { f = $7; sub(/,$/, "", f); print g "\t" p "\t" f }' "$TMP/out"
}
for t in "$TRACES"/*.json "$TRACES"/*.jsonl.gz "$TRACES"/*.pickle; do
	name=$(basename "$t")
	gms plan "$t" --policies "$POLS" --format=json
	policies >"$TMP/pols.plan"
	cut -f1 "$TMP/pols.plan" >"$TMP/mins"
	cut -f2 "$TMP/pols.plan" >"$TMP/verified"
	cut -f3 "$TMP/pols.plan" >"$TMP/peaks"
	echo "$POLS" | tr ',' '\n' >"$TMP/pols"
	bad= sizes= n=0
	while IFS= read -r pol; do
		n=$((n + 1))
		min=$(sed -n "${n}p" "$TMP/mins")
		peak=$(sed -n "${n}p" "$TMP/peaks")
		"$GPUMEMSIM" check "$t" --policy "$pol" --must-fit="${min}B" >/dev/null 2>&1 ||
		    bad="$bad [$pol: min $min does not fit]"
		if [ "$(sed -n "${n}p" "$TMP/verified")" = true ]; then
			"$GPUMEMSIM" check "$t" --policy "$pol" --must-fit="$((min - MiB2))B" \
			    >/dev/null 2>&1
			[ $? = 1 ] || bad="$bad [$pol: verified, yet $((min - MiB2)) fits]"
		fi
		sizes="$sizes,$((peak - MiB2))B,${peak}B,$((peak + MiB2))B"
	done <"$TMP/pols"
	gms plan "$t" --policies "$POLS" --gpus "${sizes#,}" --context-overhead=0B --format=json
	cells >"$TMP/cells"
	n=0
	while IFS= read -r pol; do
		n=$((n + 1))
		peak=$(sed -n "${n}p" "$TMP/peaks")
		for cap in $((peak - MiB2)) $peak $((peak + MiB2)); do
			want=$(awk -F"$TAB" -v g="${cap}B" -v p="$pol" '$1 == g && $2 == p { print $3; exit }' "$TMP/cells")
			"$GPUMEMSIM" check "$t" --policy "$pol" --gpu="${cap}B" --context-overhead=0B \
			    >/dev/null 2>&1
			case $?/$want in
			0/true|1/false) ;;
			*) bad="$bad [$pol at $cap: plan says fits=$want, check exits $?]" ;;
			esac
		done
	done <"$TMP/pols"
	is "$(wc -l <"$TMP/mins" | tr -d ' ') $(wc -l <"$TMP/cells" | tr -d ' ')$bad" "11 363" \
	    "$name: plan's minimum and its GPU cells agree with check for 11 policies and settings"
done

## 4. Names gnuplot could split: a policy label with spaces, job names with
# quotes and non-ASCII, each curve keeps its own (the legend is passed as
# gnuplot variables, never spliced into its commands).
if command -v gnuplot >/dev/null 2>&1; then
	KV=$TRACES/synth-kvcache-10.json
	gms plot "$KV" --policies 'caching alloc_conf=expandable_segments:True,grow-only' \
	    -o "$TMP/p.svg"
	is "$rc $(grep -o '<title>[^<]*</title>' "$TMP/p.svg" | sed 's/<[/]*title>//g' | LC_ALL=C sort | tr '\n' '|')" \
	    "0 Gnuplot|caching alloc_conf=expandable_segments:True allocated|caching alloc_conf=expandable_segments:True reserved|grow-only allocated|grow-only reserved|live|" \
	    "plot: a label with spaces names its own two curves, and the next policy its own"
	printf '{"capacity": "8GiB", "jobs": [{"trace": "%s", "name": "it%ss \\"q\\" \\u00e9 job", "duration": "10s"}, {"trace": "%s", "name": "b b", "duration": "10s"}]}' \
	    "$KV" "'" "$KV" >"$TMP/sc.json"
	gms share --scenario "$TMP/sc.json" --plot="$TMP/s.svg"
	is "$rc $(grep -o '<title>[^<]*</title>' "$TMP/s.svg" | sed 's/<[/]*title>//g' | LC_ALL=C sort | tr '\n' '|')" \
	    "0 Gnuplot|b b|in use, contexts included|it's \"q\" $(printf '\303\251') job|" \
	    "share --plot: job names with quotes, spaces and UTF-8 each name their curve"
else
	echo "ok $((tap_n + 1)) # SKIP no gnuplot"; tap_n=$((tap_n + 1))
	echo "ok $((tap_n + 1)) # SKIP no gnuplot"; tap_n=$((tap_n + 1))
fi

done_testing
