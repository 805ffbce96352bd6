#!/bin/sh
# cli-plot.sh - `gpumemsim plot` (sim/cli/cmd-plot.c, analysis/plot.c): real SVG
# and PNG pictures through gnuplot, whose titles and keys carry the facts
# they show, checked against PyTorch's real ResNet-50 runs
# (t/data/pytorch.json): uncapped, reserved first reached its 3703570432-byte
# peak at event 1918; capped at 3150157824 bytes it ran out at event 2381.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "1..0 # SKIP gnuplot is not installed"
	exit 0
fi

gms plot --help
is "$rc $(head -n 1 "$TMP/out")" "0 usage: gpumemsim plot [options] -o <file.svg|file.png> <trace> | --ranks <trace|dir>..." "plot --help"

gms plot "$RESNET" --policies=caching,grow-only -o "$TMP/t.svg"
is "$rc" 0 "a timeline as SVG"
head -c 200 "$TMP/t.svg" | grep -q '<svg'; ok $? "is an SVG"
grep -q '>caching reserved<' "$TMP/t.svg" && grep -q '>grow-only reserved<' "$TMP/t.svg" &&
    grep -q '>live<' "$TMP/t.svg"
ok $? "with live and each policy's reserved in the key"
grep -q 'resnet50-train-b32: caching, grow-only<' "$TMP/t.svg"; ok $? "and a title naming them"
# What is drawn: each series' peak, named from the rows plotted.
grep -q '>caching peak 3.45 GiB at event 1918<' "$TMP/t.svg"
ok $? "caching's drawn peak is PyTorch's: 3703570432 B at event 1918"
grep -q '>grow-only peak 4.00 GiB at event [0-9]*<' "$TMP/t.svg"
ok $? "grow-only's drawn peak is JAX's pool, 4292870144 B (4.00 GiB)"
# A label is drawn inside the picture: rightwards from a peak in the left
# half (caching's, event 1918 of 7787), leftwards from one in the right half
# (a trace that grows to its last event)
grep -B1 '>caching peak 3.45 GiB at event 1918<' "$TMP/t.svg" | grep -q 'text-anchor="start"'
ok $? "a peak in the left half: its label runs rightwards"
awk 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"rising\"}";
	for (i = 1; i <= 100; i++) printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", i, 2097152 * i }' >"$TMP/rising.jsonl"
gms plot "$TMP/rising.jsonl" --policy=caching -o "$TMP/rising.svg"
grep -B1 '>caching peak 9.86 GiB at event 99<' "$TMP/rising.svg" | grep -q 'text-anchor="end"'
ok $? "a peak at the last event (2 MiB x 5050 = 9.86 GiB): its label runs leftwards, not off the edge"

gms plot "$RESNET" -o "$TMP/t.png" --points=100
is "$rc" 0 "a timeline as PNG"
is "$(head -c 4 "$TMP/t.png" | od -An -c | tr -d ' ')" '211PNG' "is a PNG"

gms plot "$RESNET" --capacity=3150157824B -o "$TMP/oom.svg"
grep -q '>caching: out of memory at event 2381<' "$TMP/oom.svg"
ok $? "in 3150157824 B the OOM is marked where PyTorch ran out, event 2381"
grep -q '>capacity 2.93 GiB<' "$TMP/oom.svg"; ok $? "with the capacity drawn at its value (3150157824 B)"

gms plot "$RESNET" --map -o "$TMP/map.svg"
is "$rc" 0 "a memory map"
grep -q 'caching, peak reserved at event 1918 (3.45 GiB reserved)' "$TMP/map.svg"
ok $? "at the peak PyTorch reached at event 1918, 3703570432 B"
grep -q '>free (cached)<' "$TMP/map.svg"; ok $? "with free and allocated blocks in the key"
gms plot "$RESNET" --map --capacity=3150157824B -o "$TMP/map-oom.svg"
grep -q 'caching, out of memory at event 2381' "$TMP/map-oom.svg"; ok $? "a capped map shows the OOM"
gms plot "$RESNET" --map --capacity=3150157824B --title=same -o "$TMP/map-oom1.svg"
gms plot "$RESNET" --map --capacity=3150157824B --title=same --at=2381 -o "$TMP/map-oom2.svg"
cmp -s "$TMP/map-oom1.svg" "$TMP/map-oom2.svg"; ok $? "the OOM's map is the state at event 2381, not at the trace's end"
gms plot "$RESNET" --map --at=0 -o "$TMP/map0.svg" --title="first alloc's map"
grep -q "first alloc's map" "$TMP/map0.svg"; ok $? "--at and --title"

check_fail 2 "gpumemsim: error: no output given (-o file.svg)" plot "$RESNET"
check_fail 3 "gpumemsim: error: cannot tell what to draw '$TMP/x.jpg' as: name it .svg or .png" \
    plot "$RESNET" -o "$TMP/x.jpg"
check_fail 3 "gpumemsim: error: --at 7787: the trace has 7787 events (0 to 7786)" \
    plot "$RESNET" --map --at=7787 -o "$TMP/x.svg"
check_fail 2 "gpumemsim: error: --at goes with --map or --flame" plot "$RESNET" --at=3 -o "$TMP/x.svg"
check_fail 4 "gpumemsim: error: cannot create '$TMP/none/x.svg': No such file or directory" \
    plot "$RESNET" -o "$TMP/none/x.svg"
test ! -e "$TMP/x.svg"; ok $? "nothing written after an error"
out=$(PATH=/nonexistent "$GPUMEMSIM" plot "$RESNET" -o "$TMP/x.svg" 2>&1)
is "$? $out" "2 gpumemsim: error: plot needs gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)" \
    "without gnuplot: exit 2, saying what to install"
# --ranks: the pipeline-parallel job of t/data/ranks (recorded on the H200),
# each rank's reserved and allocated on one timeline in 2 GiB a rank. Ranks
# 0-2 fit there, so each one's drawn peak is its recording's
# reserved_bytes.all.peak; rank 3 runs out where `run --ranks` says.
size_of() {	# BYTES: as the pictures write sizes
	awk -v b="$1" 'BEGIN { if (b >= 1073741824) printf "%.2f GiB", b / 1073741824
	    else printf "%.2f MiB", b / 1048576 }'
}
RANKS=$TOP_SRCDIR/t/data/ranks
gms run --ranks "$RANKS" --capacity=2GiB --format=json
oom3=$(sed -n 's/^[[:space:]]*"event":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out" | head -n 1)
gms info --ranks "$RANKS" --format=json
n3=$(sed -n 's/^[[:space:]]*"events":[[:space:]]*\([0-9]*\),*$/\1/p' "$TMP/out" | tail -n 1)
gms plot --ranks "$RANKS" --capacity=2GiB -o "$TMP/ranks.svg"
is "$rc" 0 "plot --ranks: a timeline of the ranks"
keys=$(grep -o '<title>rank [0-9] [a-z]*</title>' "$TMP/ranks.svg" | sed 's/<[^>]*>//g' | tr '\n' ',')
is "$keys" "rank 0 reserved,rank 1 reserved,rank 2 reserved,rank 3 reserved,rank 0 allocated,rank 1 allocated,rank 2 allocated,rank 3 allocated," \
    "each rank's reserved and allocated in the key"
grep -q '>live<' "$TMP/ranks.svg"; is "$?" 1 "no one live line (each rank has its own)"
bad=
for r in 0 1 2; do
	want=$(size_of "$(sed -n 's/^  "reserved_bytes.all.peak": \([0-9]*\),\{0,1\}$/\1/p' "$RANKS/facts/pp-rank$r.facts.json")")
	grep -q ">\(rank [0-9], \)*rank $r\(, rank [0-9]\)* peak $want<" "$TMP/ranks.svg" ||
	    bad="$bad rank $r ($want)"
done
is "$bad" "" "ranks 0-2: each drawn peak is its recording's reserved_bytes.all.peak"
# ranks 1 and 2 are alike (the same stages' memory): one mark, one label for both
is "$(grep -c '>rank 1, rank 2 peak ' "$TMP/ranks.svg") $(grep -c '>rank [12] peak ' "$TMP/ranks.svg")" \
    "1 0" "ranks that peak alike share one label, not two printed over each other"
grep -q ">rank 3: out of memory at its event $oom3 of $n3<" "$TMP/ranks.svg"
ok $? "rank 3 runs out where run --ranks says (event $oom3 of its $n3)"
grep -q ">each rank's recording, on the longest's $n3 events (ranks advance together)<" "$TMP/ranks.svg"
ok $? "against the share of each rank's recording, on the longest's events"
grep -q '>4 ranks, caching in 2.00 GiB a rank<' "$TMP/ranks.svg"; ok $? "a title naming the job"
check_fail 2 "gpumemsim: error: --map goes with one trace, not --ranks (give it one rank's file without --ranks)" \
    plot --ranks "$RANKS" --map -o "$TMP/x.svg"

done_testing
