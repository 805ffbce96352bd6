#!/bin/sh
# t/cli-faults.sh - the faults of the second reliability pass (issue 27), each
# as it was reproduced: outputs on a full disk and under signals, a pipe or a
# process substitution as the input, an input that changes while it is read,
# and the smaller ones (an output's mode and links, standard output that is
# an input, repeated header keys, time going backwards, a profile that
# contradicts itself, a long TMPDIR, gnuplot's start-up file).  The full
# disk is a small tmpfs in a mount namespace of its own (unshare -rm).
# Exercises sim/outfile.c, sim/tmpfiles.c, analysis/plot.c, traces/input.c,
# traces/trace.c, traces/kineto.c, analysis/info.c, analysis/incomplete.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

## 1. Outputs on a full disk, and under signals.  gnuplot exits 0 when its
# writes fail: the picture is drawn in a private directory, checked whole
# (an SVG's closing tag, a PNG's IEND chunk) and only then written out, every
# write checked; nothing half-written is left, by a failure or a signal.
RESNET=$TRACES/resnet50-train-b32.json

# A profile's log directory expands to plugins/profile/RUN/HOST.xplane.pb:
# an output there replaced the profile (issue 55).
mkdir -p "$TMP/logdir/plugins/profile/run1"
gzip -dc "$TOP_SRCDIR/t/data/xplane/op-growth.xplane.pb.gz" >"$TMP/logdir/plugins/profile/run1/host.xplane.pb"
cp "$TMP/logdir/plugins/profile/run1/host.xplane.pb" "$TMP/profile.kept"
for c in run info compare plan tune report; do
	check_fail 3 "gpumemsim: error: '$TMP/logdir/plugins/profile/run1/host.xplane.pb' is in the input directory '$TMP/logdir', which reads it as a trace: write somewhere else" \
	    $c "$TMP/logdir" -o "$TMP/logdir/plugins/profile/run1/host.xplane.pb"
done
cmp -s "$TMP/logdir/plugins/profile/run1/host.xplane.pb" "$TMP/profile.kept"
ok $? "... and the profile is as it was"

if ! command -v gnuplot >/dev/null 2>&1; then
	for i in 1 2 3 4 5 6 7 8 9; do ok 0 "# SKIP no gnuplot"; done
elif ! unshare -rm true 2>/dev/null; then
	for i in 1 2 3 4 5 6 7 8 9; do ok 0 "# SKIP cannot mount a small file system here (unshare -rm)"; done
else
	mkdir -p "$TMP/full"
	export GPUMEMSIM RESNET TRACES
	unshare -rm sh -c 'mount -t tmpfs -o size=32k tmpfs "$1" && cd "$1" || exit 1
	    "$GPUMEMSIM" plot "$RESNET" -o a.svg 2>"$2/e1"; echo "$?" >"$2/r1"
	    "$GPUMEMSIM" plot "$RESNET" -o b.png 2>"$2/e2"; echo "$?" >"$2/r2"
	    "$GPUMEMSIM" share --gpu=A10 --job "$RESNET" --job "$RESNET" --plot=s.svg >/dev/null 2>"$2/e3"
	    echo "$?" >"$2/r3"
	    "$GPUMEMSIM" convert "$RESNET" c.jsonl 2>"$2/e4"; echo "$?" >"$2/r4"
	    ls -A >"$2/left"' sh "$TMP/full" "$TMP"
	is "$(cat "$TMP/r1") $(head -n 1 "$TMP/e1")" "4 gpumemsim: error: cannot write 'a.svg': No space left on device" \
	    "plot to an SVG on a full disk: exit 4, the destination named"
	is "$(cat "$TMP/r2") $(head -n 1 "$TMP/e2")" "4 gpumemsim: error: cannot write 'b.png': No space left on device" \
	    "... a PNG: exit 4"
	is "$(cat "$TMP/r3") $(head -n 1 "$TMP/e3")" "4 gpumemsim: error: --plot: cannot write 's.svg': No space left on device" \
	    "share --plot on a full disk: exit 4"
	is "$(cat "$TMP/r4") $(head -n 1 "$TMP/e4")" "4 gpumemsim: error: cannot write 'c.jsonl': No space left on device" \
	    "convert on a full disk: exit 4"
	is "$(cat "$TMP/left")" "" "... and not one of them left a file, whole, half or hidden"
	# The private directory full instead: gnuplot says nothing, the picture is cut short.
	mkdir -p "$TMP/small" "$TMP/dest"
	unshare -rm sh -c 'mount -t tmpfs -o size=128k tmpfs "$1" || exit 1
	    TMPDIR="$1" "$GPUMEMSIM" plot "$RESNET" -o "$2/dest/a.svg" 2>"$2/e5"; echo "$?" >"$2/r5"
	    ls -A "$1" >"$2/left5"' sh "$TMP/small" "$TMP"
	is "$(cat "$TMP/r5") $(sed -n 's/.*\(is incomplete (is the disk full?)\)$/\1/p' "$TMP/e5")" "4 is incomplete (is the disk full?)" \
	    "gnuplot's picture cut short by a full TMPDIR: found out (its closing tag is missing), exit 4"
	is "$(ls -A "$TMP/dest") $(cat "$TMP/left5")" " " "... nothing written, nothing left in TMPDIR"

	# A signal while gnuplot draws: a stand-in gnuplot writes half a picture and waits.
	mkdir -p "$TMP/bin" "$TMP/o" "$TMP/tmpd"
	cat >"$TMP/bin/gnuplot" <<'GP'
#!/bin/sh
out=$(printf '%s\n' "$3" | sed -n "s/.*outfile='\([^']*\)'.*/\1/p")
printf '<svg' >"$out"
echo $$ >"$FAKE_PID.tmp" && mv "$FAKE_PID.tmp" "$FAKE_PID"
exec sleep 60
GP
	chmod +x "$TMP/bin/gnuplot"
	for sig in TERM HUP; do
		rm -f "$TMP/pid"
		PATH="$TMP/bin:$PATH" FAKE_PID="$TMP/pid" TMPDIR="$TMP/tmpd" \
		    "$GPUMEMSIM" plot "$RESNET" -o "$TMP/o/a.svg" 2>/dev/null &
		g=$!
		n=0
		while [ ! -s "$TMP/pid" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
		kill -"$sig" "$g"
		wait "$g"
		r=$?
		sleep 0.2
		# ended: gone, or a zombie nobody reaps (PID 1 of a container may not)
		case $(cut -d' ' -f3 "/proc/$(cat "$TMP/pid")/stat" 2>/dev/null) in
		""|Z) alive=ended ;;
		*) alive=alive ;;
		esac
		[ "$sig" = TERM ] && want=143 || want=129
		is "$r $alive [$(ls -A "$TMP/o")] [$(ls -A "$TMP/tmpd")]" "$want ended [] []" \
		    "SIG$sig while gnuplot draws: gpumemsim dies of it, gnuplot is ended, no hidden file beside the output, no private directory left"
	done
fi
# A signal while convert waits on its input (a FIFO nobody writes yet): its
# hidden output file is removed.
mkfifo "$TMP/in.fifo"
mkdir -p "$TMP/c"
"$GPUMEMSIM" convert "$TMP/in.fifo" "$TMP/c/out.jsonl" 2>/dev/null &
g=$!
n=0
while [ -z "$(ls -A "$TMP/c")" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
left=$(ls -A "$TMP/c" | sed 's/gpumemsim-[A-Za-z0-9]*/gpumemsim-X/')
kill -TERM "$g"
wait "$g"
is "$? $left [$(ls -A "$TMP/c")]" "143 .gpumemsim-X.out.jsonl []" \
    "SIGTERM during convert: its hidden temporary output is removed"
rm -f "$TMP/in.fifo"

## 2. A FIFO or a process substitution as the input: read once, kept for the
# second pass (info, run --by-site, report read twice); any name, any format.
KV=$TRACES/synth-kvcache-10.json
fifo_feed() {
	rm -f "$TMP/f.fifo"
	mkfifo "$TMP/f.fifo"
	cat "$1" >"$TMP/f.fifo" &
}
gms info "$KV" --format=json
want=$(json_top events)/$(json_top peak_live)
fifo_feed "$KV"
gms info "$TMP/f.fifo" --format=json
is "$rc $(json_top events)/$(json_top peak_live)" "0 $want" "info on a FIFO: read once, both passes (was: blocked forever)"
gms run "$KV" --by-site
cp "$TMP/out" "$TMP/byfile"
fifo_feed "$KV"
gms run "$TMP/f.fifo" --by-site
is "$rc $(sed 1d "$TMP/out" | cmp -s - "$(sed 1d "$TMP/byfile" >"$TMP/b2"; echo "$TMP/b2")" && echo same)" "0 same" \
    "run --by-site on a FIFO: the report of the file"
fifo_feed "$KV"
gms report "$TMP/f.fifo" -o "$TMP/r.html"
is "$rc $(grep -c 'synth-kvcache-10' "$TMP/r.html" | sed 's/[1-9][0-9]*/n/')" "0 n" "report on a FIFO: written"
# A process substitution is a pipe named /dev/fd/N: no extension, so its first bytes say the format.
gzip -c "$TRACES/resnet50-train-b32.json" >"$TMP/r.json.gz"
gms info "$TMP/r.json.gz" --format=json
want=$(json_top events)/$(json_top peak_live)
gzip -dc "$TMP/r.json.gz" | "$GPUMEMSIM" info /dev/stdin --format=json >"$TMP/out" 2>"$TMP/err"
is "$? $(json_top events)/$(json_top peak_live)" "0 $want" \
    "a pipe named /dev/stdin (<(zcat t.gz)'s shape): recognised by content, read (was: exit 3, an empty reason)"
gzip -c "$KV" | "$GPUMEMSIM" run /dev/stdin --by-site >/dev/null 2>"$TMP/err"
is "$?" "0" "... gzip'd through the pipe, read twice"
"$GPUMEMSIM" info /dev/stdin </dev/zero >/dev/null 2>"$TMP/err"
is "$? $(head -n 1 "$TMP/err")" "3 gpumemsim: error: '/dev/stdin': not a trace gpumemsim can read (its first bytes are no JSON, pickle, CSV, profile or gzip)" \
    "/dev/zero through a pipe: refused from its first bytes, nothing spooled"

## 3. An input replaced or rewritten while a command reads it: refused, never
# two traces mixed in one report (t/input.c makes each case happen at a
# chosen moment; here the file is touched without pause while commands that
# read it twice take their time over 100k events).
awk 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"moving\"}"
	for (i = 1; i <= 50000; i++) printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", i, (i % 97 + 1) * 4096
	for (i = 1; i <= 50000; i++) printf "{\"op\":\"free\",\"id\":%d}\n", i }' >"$TMP/moving.jsonl"
cp "$TMP/moving.jsonl" "$TMP/still.jsonl"
( while :; do touch "$TMP/moving.jsonl"; done ) &
toucher=$!
before=$(stat -c %Y.%y "$TMP/moving.jsonl")
n=0
while [ "$(stat -c %Y.%y "$TMP/moving.jsonl")" = "$before" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
gms info "$TMP/moving.jsonl"
is "$rc $(sed -n 's/.*\(changed while it was being read (its modification time differs)\).*/\1/p' "$TMP/err")" \
    "3 changed while it was being read (its modification time differs)" "info on a file rewritten as it reads: exit 3, said"
gms run "$TMP/moving.jsonl" --by-site
is "$rc $(grep -c 'the report would mix two traces' "$TMP/err")" "3 1" "run --by-site: the same"
kill "$toucher"
wait "$toucher" 2>/dev/null
gms info "$TMP/still.jsonl"
is "$rc" "0" "... and the same trace is read as usual when it stays as it is"

## 4. The smaller ones.
printf 'x\n' >"$TMP/kept.txt"
chmod 640 "$TMP/kept.txt"
gms run "$RESNET" -o "$TMP/kept.txt"
is "$rc $(stat -c %a "$TMP/kept.txt") $(head -c 18 "$TMP/kept.txt")" "0 640 resnet50-train-b32" \
    "an output rewritten keeps its mode (0640 stayed 0640)"
printf 'x\n' >"$TMP/target.txt"
ln -s "$TMP/target.txt" "$TMP/link.txt"
gms run "$RESNET" -o "$TMP/link.txt"
is "$rc $([ -L "$TMP/link.txt" ] && echo link) $(head -c 18 "$TMP/target.txt")" "0 link resnet50-train-b32" \
    "an output that is a symbolic link: the file it names is written, the link stays"
ln -s "$TMP/nothing.txt" "$TMP/dangling.txt"
check_fail 4 "gpumemsim: error: cannot write '$TMP/dangling.txt': a symbolic link to nothing (No such file or directory)" \
    run "$RESNET" -o "$TMP/dangling.txt"
"$GPUMEMSIM" convert "$RESNET" "$TMP/self.jsonl"
"$GPUMEMSIM" convert "$TMP/self.jsonl" - >>"$TMP/self.jsonl" 2>"$TMP/err"
is "$? $(head -n 1 "$TMP/err")" "3 gpumemsim: error: standard output is the input '$TMP/self.jsonl' (the same file): write somewhere else" \
    "convert t.jsonl - >> t.jsonl: refused (it would read what it writes)"
H='{"format":"gpumemsim-trace","version":1'
printf '%s,"events":[],"events":[{"op":"alloc","id":1,"size":5}]}' "$H" >"$TMP/dup.json"
check_fail 3 "gpumemsim: error: $TMP/dup.json: the header names \"events\" twice: which one counts is not defined (keep one)" \
    info "$TMP/dup.json"
printf '%s,"version":2}\n{"op":"mark"}\n' "$H" >"$TMP/dup.jsonl"
check_fail 3 "gpumemsim: error: $TMP/dup.jsonl:1: the header names \"version\" twice: which one counts is not defined (keep one)" \
    info "$TMP/dup.jsonl"
printf '%s,"format":"other"}\n' "$H" >"$TMP/dupf.jsonl"
check_fail 3 "gpumemsim: error: $TMP/dupf.jsonl:1: the header names \"format\" twice: which one counts is not defined (keep one)" \
    info "$TMP/dupf.jsonl"
printf '%s}\n{"op":"alloc","id":1,"size":5,"t_us":1000}\n{"op":"alloc","id":2,"size":5,"t_us":400}\n{"op":"free","id":2,"t_us":2500}\n{"op":"free","id":1,"t_us":2000}\n' \
    "$H" >"$TMP/back.jsonl"
gms info "$TMP/back.jsonl" --format=json
is "$rc $(json_top duration_us) $(json_in time_backwards events) $(json_in time_backwards first_event)" "0 2100 2 1" \
    "time going backwards: counted (events 1 and 3), the duration is latest - earliest (2500 - 400)"
is "$(cat "$TMP/err")" "gpumemsim: warning: $TMP/back.jsonl: 2 events are timed before the event before them (the first: event 1): the duration is from the earliest time to the latest" \
    "... and warned about"
# A profile that contradicts itself: Total Allocated is not the last one plus Bytes.
mem() {	# TS BYTES TOTAL ADDR IDX
	printf '{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":%s,"args":{"Total Reserved":2097152,"Total Allocated":%s,"Bytes":%s,"Device Id":0,"Device Type":1,"Addr":%s,"Ev Idx":%s}}' \
	    "$1" "$3" "$2" "$4" "$5"
}
{
	printf '{"schemaVersion":1,"traceEvents":['
	mem 1.0 512 512 4096 0; printf ','
	mem 2.0 1024 9999 8192 1; printf ','
	mem 3.0 -512 9487 4096 2; printf ','
	mem 4.0 -2048 7439 8192 3
	printf ']}\n'
} >"$TMP/bad.pt.trace.json"
gms run "$TMP/bad.pt.trace.json" --format=json
is "$rc $(json_deep incomplete inconsistent totals) $(json_deep incomplete inconsistent first_total_event) $(json_deep incomplete inconsistent sizes) $(json_deep incomplete inconsistent first_size_event)" \
    "0 1 1 1 3" "a profile whose totals and sizes disagree: said in JSON (the total at event 1, the free of 2048 B of a 1024 B block at event 3)"
gms run "$TMP/bad.pt.trace.json"
is "$(grep -c '^INCONSISTENT: bad: 1 event whose Total Allocated disagrees (the first: event 1), 1 free whose size is not its block.s (the first: event 3)' "$TMP/out")" "1" \
    "... and in text"
# An RMM log whose free gives another size than its block's, a profile that
# allocates at an address still live: replayed as recorded, said in both
# (issue 55: both passed without a word)
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,1.5,allocate,0x10,512,0x0\n1,1.6,allocate,0x400,512,0x0\n1,1.7,free,0x10,1024,0x0\n' >"$TMP/wrong.csv"
gms run "$TMP/wrong.csv" --format=json
is "$rc $(json_deep incomplete inconsistent sizes) $(json_deep incomplete inconsistent first_size_event)" "0 1 2" \
    "an RMM log's free of 1024 B of a 512 B block: said (event 2)"
gms run "$TMP/wrong.csv"
is "$(grep -c '^INCONSISTENT: wrong: 1 free whose size is not its block.s (the first: event 2): ' "$TMP/out")" 1 "... and in text"
{
	printf '{"traceEvents": [\n'
	printf '{"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": %d, "args": {"Addr": 4096, "Bytes": 512, "Total Allocated": %d, "Total Reserved": 2097152, "Device Type": 1, "Device Id": 0}},\n' 1 512 2 1024
	printf '{"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3, "args": {"Addr": 4096, "Bytes": -512, "Total Allocated": 512, "Total Reserved": 2097152, "Device Type": 1, "Device Id": 0}}\n'
	printf ']}\n'
} >"$TMP/reused.pt.trace.json"
gms run "$TMP/reused.pt.trace.json" --format=json
is "$rc $(json_deep incomplete inconsistent reused) $(json_deep incomplete inconsistent first_reused_event) $(json_deep incomplete inconsistent totals)" "0 1 1 0" \
    "a profile that allocates at an address still live: said (event 1), its totals agreeing"
gms run "$TMP/reused.pt.trace.json"
is "$(grep -c '^INCONSISTENT: reused: 1 allocation at an address still live (the first: event 1): ' "$TMP/out")" 1 "... and in text"
# A long TMPDIR: the temporary names are whole (the template once lost its XXXXXX).
long=$TMP
for i in 1 2 3 4 5 6; do long=$long/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa$i; done
mkdir -p "$long"
if command -v gnuplot >/dev/null 2>&1; then
	TMPDIR=$long "$GPUMEMSIM" plot "$RESNET" -o "$TMP/long.svg" 2>"$TMP/err"
	is "$? $(ls -A "$long" | wc -l)" "0 0" "plot with a TMPDIR of $(printf %s "$long" | wc -c) characters: drawn, nothing left there"
	mkdir -p "$TMP/h"
	printf 'exit status 7\n' >"$TMP/h/.gnuplot"
	HOME=$TMP/h "$GPUMEMSIM" plot "$RESNET" -o "$TMP/home.svg" 2>"$TMP/err"
	is "$? $(grep -c '^</svg>$' "$TMP/home.svg")" "0 1" "gnuplot does not read \$HOME/.gnuplot (one that exits 7 changes nothing)"
else
	ok 0 "# SKIP no gnuplot"
	ok 0 "# SKIP no gnuplot"
fi

## An output that names a file an input directory expands to (a rank of
# --ranks DIR) is an input too: refused before anything is written, the
# recording left as it was (issue 55: it was replaced by the report).
mkdir -p "$TMP/job"
cp "$TOP_SRCDIR"/t/data/ranks/pp-rank*.pickle.gz "$TMP/job/"
cp "$TMP/job/pp-rank1.pickle.gz" "$TMP/rank1.kept"
for c in run info check plan report; do
	extra=
	[ "$c" = check ] && extra=--capacity=2GiB
	[ "$c" = plan ] && extra=--gpus=T4
	check_fail 3 "gpumemsim: error: '$TMP/job/pp-rank1.pickle.gz' is the input '$TMP/job/pp-rank1.pickle.gz' (the same file): write somewhere else" \
	    $c --ranks "$TMP/job" $extra -o "$TMP/job/pp-rank1.pickle.gz"
done
cmp -s "$TMP/job/pp-rank1.pickle.gz" "$TMP/rank1.kept"
ok $? "... and rank 1's recording is as it was"
check_fail 3 "gpumemsim: error: '$TMP/job/pp-rank4.json' is in the input directory '$TMP/job', which reads it as a trace: write somewhere else" \
    run --ranks "$TMP/job" -o "$TMP/job/pp-rank4.json"
is "$(ls "$TMP/job" | tr '\n' ' ')" "pp-rank0.pickle.gz pp-rank1.pickle.gz pp-rank2.pickle.gz pp-rank3.pickle.gz " \
    "... one the directory would read next time (a new rank's name) too: nothing written"
"$GPUMEMSIM" run --ranks "$TMP/job" >"$TMP/want" 2>/dev/null
"$GPUMEMSIM" run --ranks "$TMP/job" -o "$TMP/job/report.txt" 2>"$TMP/err"
rc=$?
cmp -s "$TMP/want" "$TMP/job/report.txt"
is "$rc $?" "0 0" "... a report under a name no directory reads is written there, whole"

# Ranks through pipes: a rank's contents were peeked for its rank, which
# drained a pipe before its run (a FIFO then blocked forever, a process
# substitution was "not a trace"): a pipe is read once, by its run.
HAND=$TOP_SRCDIR/t/data/ranks/hand
for c in run compare; do
	rm -f "$TMP/f0" "$TMP/f1"
	mkfifo "$TMP/f0" "$TMP/f1"
	cat "$HAND/job-rank0.json" >"$TMP/f0" &
	cat "$HAND/job-rank1.json" >"$TMP/f1" &
	timeout 30 "$GPUMEMSIM" $c --ranks "$TMP/f0" "$TMP/f1" --format=json >"$TMP/out" 2>"$TMP/err"
	rc=$?
	wait
	is "$rc $(grep -m1 '"worst_rank":' "$TMP/out" | grep -o '[0-9]*,*$' | tr -d ,)" "0 1" \
	    "$c --ranks of two FIFOs: read once each, no hang; the worst is rank 1 (600 MiB live)"
done

done_testing
