#!/bin/sh
# cli-table.sh - the command line as one table (sim/cli/table.c, parse.c,
# help.c): every command's --help and man page say the same options, every
# documented option is accepted and every other refused, a letter means one
# thing everywhere, the bash completion completes commands, options and
# policy names, values have one grammar, and compare prices driver time
# against what an H200 measured.
. "${TOP_SRCDIR:-.}/t/lib.sh"

RESNET=$TRACES/resnet50-train-b32.json
MANDIR=$(dirname "$GPUMEMSIM")/man
COMPLETION=$(dirname "$GPUMEMSIM")/completion/gpumemsim

gms --help
commands=$(sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' "$TMP/out")
is "$(echo $commands)" "run compare check plan tune plot report replay share scale info convert oom policies" \
    "--help lists the thirteen commands"

# Every long option any command documents, from the help itself.
: >"$TMP/all"
for c in $commands; do
	gms "$c" --help
	is "$rc" 0 "$c --help exits 0"
	grep -o -- '^  -., --[a-z-]*\|^      --[a-z-]*' "$TMP/out" | sed 's/.*--/--/' | sort -u \
	    >"$TMP/help.$c"
	cat "$TMP/help.$c" >>"$TMP/all"
	# the man page, generated from the same table, says the same options
	test -f "$MANDIR/gpumemsim-$c.1"; ok $? "man page gpumemsim-$c(1) was generated"
	grep -o '^\(\\fB\\-.\\fR, \)\?\\fB\\-\\-[a-z\\-]*' "$MANDIR/gpumemsim-$c.1" |
	    sed 's/.*\\fB\\-\\-/--/; s/\\-/-/g; s/\\f$//' | sort -u >"$TMP/man.$c"
	cmp -s "$TMP/help.$c" "$TMP/man.$c"; ok $? "$c: --help and the man page list the same $(wc -l <"$TMP/man.$c") options"
done
sort -u "$TMP/all" >"$TMP/every"
test "$(wc -l <"$TMP/every")" -ge 30; ok $? "$(wc -l <"$TMP/every") options in all"
test -f "$MANDIR/gpumemsim.1"; ok $? "gpumemsim(1) was generated"
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww -z "$MANDIR"/*.1 >"$TMP/groff" 2>&1
	is "$(cat "$TMP/groff")" "" "groff finds nothing wrong in the $(ls "$MANDIR" | wc -l) man pages"
fi
for c in $commands; do
	grep -q "gpumemsim\\\\-$c (1)" "$MANDIR/gpumemsim.1" || break
done
ok $? "gpumemsim(1) points to every command's page"

cd "$TMP" || exit 1
cd - >/dev/null || exit 1

# A copy of libcjson.so.1 beside the binary is found there (make bundle).
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$GPUMEMSIM" | grep -q 'RUNPATH.*\[\$ORIGIN\]'; ok $? "the binary looks for its libraries beside itself"
fi

# Every example names a file that exists (plot's once named one that did not).
missing=
for c in $commands; do
	for f in $("$GPUMEMSIM" "$c" --help | sed -n '/^Examples*:/,$p' | grep -o 'traces/[A-Za-z0-9._-]*'); do
		test -f "$TOP_SRCDIR/$f" || missing="$missing $c:$f"
	done
done
is "$missing" "" "the examples in --help name bundled traces that exist"

gms plan --help
grep -q '^  H200  *139.80 GiB' "$TMP/out"; ok $? "plan --help lists the GPU models (--gpu's help sends people there)"

# One letter, one option, in every command.
for c in $commands; do
	"$GPUMEMSIM" "$c" --help | sed -n 's/^  \(-.\), \(--[a-z-]*\).*/\1 \2/p'
done | sort -u >"$TMP/letters"
is "$(cut -d' ' -f1 "$TMP/letters" | uniq -d)" "" "no letter stands for two options: $(tr '\n' ' ' <"$TMP/letters")"
grep -qx -- "-o --output" "$TMP/letters"; ok $? "-o is --output wherever it exists"
check_fail 2 "gpumemsim: error: -o is --output, the file to write; 'gc=false' looks like a policy setting: give --option=gc=false (or --output=./gc=false for a file of that name)" \
    run "$RESNET" -p grow-only -o gc=false
test ! -e gc=false; ok $? "... and no file gc=false was written"

# The bash completion, run by bash.
if command -v bash >/dev/null 2>&1 && [ -f "$COMPLETION" ]; then
	complete_words() {	# complete_words WORD...: what TAB offers after them
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpumemsim;
		    [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' complete "$COMPLETION" "$@" | sort | tr '\n' ' '
	}
	is "$(complete_words gpumemsim co)" "compare convert " "completion: commands"
	is "$(complete_words gpumemsim run --pol)" "--policy= " "completion: a command's options"
	is "$(complete_words gpumemsim plot --ma)" "--map " "completion: plot's own option"
	is "$(complete_words gpumemsim run --ma)" "" "completion: not another command's option"
	is "$(complete_words gpumemsim run --policy '')" "caching cuda-async grow-only ideal no-cache preallocate rmm-arena rmm-binning rmm-fixed rmm-pool " \
	    "completion: policy names after --policy"
	is "$(complete_words gpumemsim compare --policy = g)" "grow-only " \
	    "completion: policy names after --policy= (bash splits at '=')"
	is "$(complete_words gpumemsim check --format '')" "json tap text " "completion: check's formats"
	is "$(complete_words gpumemsim run -f '')" "json text " "completion: run's formats, by its letter"
	is "$(complete_words gpumemsim run --gpu A10)" "A10 A100-40GB A100-80GB A10G " \
	    "completion: GPU models"
	is "$(complete_words gpumemsim plan --gpus = T4,A10)" "T4,A10 T4,A100-40GB T4,A100-80GB T4,A10G " \
	    "completion: a list's next GPU, after its comma"
	is "$(complete_words gpumemsim compare --policies = caching,gr)" "caching,grow-only " \
	    "completion: a list's next policy"
	is "$(complete_words gpumemsim compare --policies = a)" "all " "completion: --policies=all"
	# what the completion asks of bash's file name handling (compopt, recorded)
	complete_opts() {	# complete_opts WORD...: the last compopt call about file names
		bash -c '. "$1"; shift; compopt() { echo "$*"; }; COMP_WORDS=("$@");
		    COMP_CWORD=$(($# - 1)); _gpumemsim' complete "$COMPLETION" "$@" |
		    grep filenames | tail -n 1
	}
	is "$(complete_opts gpumemsim rep)" "+o filenames" \
	    "completion: a command is a word, not a file (no 'replay/' for the directory)"
	is "$(complete_opts gpumemsim run --capa)" "+o filenames" \
	    "completion: an option is a word, its '=' not quoted as a file name's"
	is "$(complete_opts gpumemsim run -o '')" "-o filenames" "completion: -o's value is a file"
else
	ok 0 "# SKIP bash or the completion script missing"
fi

# One grammar for ratios: 0.2 and 20% alike; a bare number above 1 refused.
check_fail 3 "gpumemsim: error: --max-overhead=20 is ambiguous: write 20% for a percentage, or a fraction from 0 to 1" \
    check "$RESNET" --max-overhead=20
gms check "$RESNET" --max-overhead=20% --format=json
a=$(grep '"limit"' "$TMP/out")
gms check "$RESNET" --max-overhead=0.2 --format=json
is "$rc $(grep '"limit"' "$TMP/out")" "0 $a" "--max-overhead=20% and 0.2 are one limit (peak 3703570432 is 18.4% over 3127304348)"
gms check "$RESNET" --max-overhead=18%
is "$rc" 1 "--max-overhead=18% fails: ResNet-50 reserves 18.4% over its live peak"
gms check "$RESNET" --max-fragmentation=10%
is "$rc" 1 "--max-fragmentation=10% is accepted and fails (14.9%)"
check_fail 3 "gpumemsim: error: --tolerance=2 is ambiguous: write 2% for a percentage, or a fraction from 0 to 1" \
    check "$RESNET" --baseline=x --tolerance=2
check_fail 3 "gpumemsim: error: --time-bound takes a ratio: 0.2 or 20%, not '-1'" compare "$RESNET" --time-bound=-1

# Options that write a file take '-'; --output writes the report whole.
gms run "$RESNET" --format=json
cp "$TMP/out" "$TMP/stdout.json"
gms run "$RESNET" --format=json --output="$TMP/r.json"
is "$rc $(wc -c <"$TMP/out")" "0 0" "--output: nothing on standard output"
cmp -s "$TMP/stdout.json" "$TMP/r.json"; ok $? "--output: the same report, in the file"
gms run "$RESNET" -o - --format=json
cmp -s "$TMP/stdout.json" "$TMP/out"; ok $? "-o -: standard output"
cp "$RESNET" "$TMP/in.json"
check_fail 3 "gpumemsim: error: '$TMP/in.json' is the input '$TMP/in.json' (the same file): write somewhere else" \
    run "$TMP/in.json" --output="$TMP/in.json"
cmp -s "$RESNET" "$TMP/in.json"; ok $? "... and the input is untouched"
gms run "$RESNET" --timeline=- --points=50
head -n 1 "$TMP/out" | grep -q '^event,'; ok $? "--timeline=-: the CSV on standard output"
grep -q '^  peak reserved       3.45 GiB      3703570432 B$' "$TMP/err"; r1=$?
grep -q 'peak reserved' "$TMP/out"; r2=$?
ok $((r1 == 0 && r2 != 0 ? 0 : 1)) "--timeline=-: the report on standard error, not mixed into the CSV"
check_fail 2 "gpumemsim: error: --timeline=- and --output=- would both write to standard output" \
    run "$RESNET" --timeline=- --output=-
if command -v gnuplot >/dev/null 2>&1; then
	gms plot "$RESNET" -o -
	is "$rc $(grep -c '</svg>' "$TMP/out")" "0 1" "plot -o -: an SVG on standard output"
fi

# run takes one policy; the several-policy commands take --policy again.
check_fail 2 "gpumemsim: error: run runs one policy: give --policy once (compare, check, plot and plan take several)" \
    run "$RESNET" --policy=caching --policy=grow-only
gms run "$RESNET" --policy 'caching alloc_conf=expandable_segments:True' --format=json
is "$rc $(json_top peak_reserved)" "0 3177185280" "a policy with settings after a blank: PyTorch's expandable segments reserve 3177185280"

# compare: two caching settings side by side, each as PyTorch reserved it
# (t/data/pytorch.json: 3703570432 by default, 3177185280 expandable).
gms compare "$RESNET" --policy=caching --policy 'caching alloc_conf=expandable_segments:True' \
    --format=json --by=memory
awk -F'\t' '/^\t\t\t"peak_reserved":/ { gsub(/,/, "", $5); r = $5 }
	/^\t\t\t"label":/ { gsub(/[",]/, "", $5); print $5 "=" r }' "$TMP/out" >"$TMP/got"
is "$(tr '\n' ';' <"$TMP/got")" "caching=3703570432;caching alloc_conf=expandable_segments:True=3177185280;" \
    "compare: two caching settings side by side, labelled by their settings"
is "$(json_top winner)" '"caching alloc_conf=expandable_segments:True"' "--by=memory: expandable segments win"

# compare on every sample: a caching allocator wins (never no-cache or the
# bound), the driver time is priced; on a trace that does not say whose it
# is, every framework's allocators, and preallocate without a size says so;
# on a PyTorch snapshot, PyTorch's alone.
for t in "$TRACES"/*.json "$TRACES"/*.jsonl.gz; do
	n=$(basename "$t")
	gms compare "$t"
	w=$(sed -n 's/^winner: \([^ ]*\) .*/\1/p' "$TMP/out")
	case $w in caching|grow-only|cuda-async) r=0 ;; *) r=1 ;; esac
	ok $r "compare $n: the winner is a caching allocator ($w)"
	grep -q '^  policy .* driver time  *steady  result$' "$TMP/out"; ok $? "compare $n: driver-time columns"
	if grep -q '"from":"pytorch memory snapshot"' "$t" 2>/dev/null ||
	    zcat -f "$t" | head -n 1 | grep -q '"from":"pytorch memory snapshot"'; then
		grep -q '^  \(preallocate\|grow-only\)  ' "$TMP/out"
		is "$?" 1 "compare $n: a PyTorch snapshot: no TensorFlow or JAX allocator by default"
	else
		grep -q '^  preallocate  .*needs' "$TMP/out"; ok $? "compare $n: uncapped preallocate is no result: it needs a size"
	fi
done

# Steady driver time: the calls after the reservation last grew.  PyTorch made
# 118 cudaMallocs and no cudaFree on ResNet-50, each growing the pool, so
# nothing is left for later iterations; no-cache pays for every tensor.
gms compare "$RESNET" --policy=caching --policy=no-cache --format=json
is "$(sed -n 's/^\t\t\t"steady_driver_time_ms":\t\(.*\),$/\1/p' "$TMP/out" | head -n 1)" 0 \
    "caching on ResNet-50: no steady driver time"
s=$(sed -n 's/^\t\t\t"steady_driver_time_ms":\t\(.*\),$/\1/p' "$TMP/out" | tail -n 1)
awk -v s="$s" 'BEGIN { exit !(s > 100) }'; ok $? "no-cache on ResNet-50: $s ms of it"

# The driver-time estimate against the time the H200 spent in cudaMalloc and
# cudaFree replaying each sample (replay/results-h200/drivertime-untouched.txt,
# two runs each, which differ by up to 50% between themselves): no-cache
# within 0.7 to 1.4 of the runs' mean; caching, a few large calls of a few
# ms, within 0.6 to 1.7.
within() {	# within EST REAL LO HI
	awk -v e="$1" -v r="$2" -v lo="$3" -v hi="$4" 'BEGIN { d = e / r; exit !(d >= lo && d <= hi) }'
}
awk '!/^#/ { s[$2 " " $3] += $8; n[$2 " " $3]++ }
	END { for (k in s) printf "%s %.1f\n", k, s[k] / n[k] }' \
    "$TOP_SRCDIR/replay/results-h200/drivertime-untouched.txt" | sort >"$TMP/measured"
is "$(wc -l <"$TMP/measured")" 16 "16 measured: caching and no-cache on 8 samples"
while read -r name p real; do
	t=$(ls "$TRACES/$name".json* 2>/dev/null | head -n 1)
	gms compare "$t" --policy="$p" --format=json
	est=$(sed -n 's/^\t\t\t"driver_time_ms":\t\(.*\),$/\1/p' "$TMP/out")
	case $p in no-cache) lo=0.7 hi=1.4 ;; *) lo=0.6 hi=1.7 ;; esac
	within "$est" "$real" $lo $hi
	ok $? "driver time of $p on $name: estimated $est ms, measured $real ms"
done <"$TMP/measured"

# Progress: a line on a terminal (script(1) gives one), erased at the end;
# none with --quiet, none into a file.
if command -v script >/dev/null 2>&1; then
	awk 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1}";
		for (i = 1; i <= 200000; i++) {
			printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", i, 512 + (i * 7919) % 4000000;
			if (i > 50) printf "{\"op\":\"free\",\"id\":%d}\n", i - 50 } }' >"$TMP/long.jsonl"
	# at once, not after a second: the test must not depend on the machine's speed
	script -qec "GPUMEMSIM_PROGRESS_DELAY=0 GPUMEMSIM_PROGRESS_EVERY=0.01 '$GPUMEMSIM' plan '$TMP/long.jsonl' --gpus=T4 >/dev/null" \
	    /dev/null >"$TMP/tty" 2>&1
	tr '\r' '\n' <"$TMP/tty" >"$TMP/lines"
	grep -q 'gpumemsim plan: run [0-9]* of about [0-9]* ([0-9]*%), [0-9.]*M events, [0-9.]*M/s, [0-9.]* s, \(about [0-9]* s\|under a second\) left' "$TMP/lines"
	ok $? "on a terminal, plan shows its runs of about how many, the share done and the time left"
	# the share shown never falls, though the estimate of the runs is redone
	sed -n 's/.*run [0-9]* of about [0-9]* (\([0-9]*\)%).*/\1/p' "$TMP/lines" |
	    awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad || NR < 2 }'
	ok $? "... and the share it shows never falls"
	# an RMM log's tune: its candidates are known once the pools are
	awk 'BEGIN { print "Thread,Time,Action,Pointer,Size,Stream";
		for (i = 1; i <= 60000; i++) {
			printf "1,%d.%06d,allocate,0x%x000000,%d,0x1\n", i / 1000000, i % 1000000, i, 512 + (i * 7919) % 4000000;
			if (i > 50) printf "1,%d.%06d,free,0x%x000000,%d,0x1\n", i / 1000000, i % 1000000, i - 50, 512 + ((i - 50) * 7919) % 4000000 } }' >"$TMP/long.csv"
	script -qec "GPUMEMSIM_PROGRESS_DELAY=0 GPUMEMSIM_PROGRESS_EVERY=0.01 '$GPUMEMSIM' tune '$TMP/long.csv' >/dev/null" \
	    /dev/null >"$TMP/tty" 2>&1
	tr '\r' '\n' <"$TMP/tty" | grep -q 'gpumemsim tune: run [0-9]* of about [0-9]* ([0-9]*%)'
	ok $? "tune on an RMM log counts its runs too"
	# a terminal that cannot erase to the end of a line gets blanks, no escapes
	script -qec "TERM=dumb GPUMEMSIM_PROGRESS_DELAY=0 '$GPUMEMSIM' run '$TMP/long.jsonl' >/dev/null" \
	    /dev/null >"$TMP/tty" 2>&1
	! grep -q "$(printf '\033')" "$TMP/tty" && grep -q 'gpumemsim run: ' "$TMP/tty" &&
	    tail -c 2 "$TMP/tty" | od -c | grep -q '     \\r'
	ok $? "TERM=dumb: the line without escapes, erased by blanks"
	# report: what it is doing, and once it knows, of how many, and the time left.
	# Its phases after the first must outlast the time between lines, on a
	# loaded machine too: lines every 0.01 s, and 60000 allocations (about
	# 0.1 s, several lines with a total)
	awk 'BEGIN { print "{\"format\":\"gpumemsim-trace\",\"version\":1}";
		for (i = 1; i <= 60000; i++) {
			printf "{\"op\":\"alloc\",\"id\":%d,\"size\":%d}\n", i, 512 + (i * 7919) % 4000000;
			if (i > 50) printf "{\"op\":\"free\",\"id\":%d}\n", i - 50 } }' >"$TMP/longer.jsonl"
	script -qec "GPUMEMSIM_PROGRESS_DELAY=0 GPUMEMSIM_PROGRESS_EVERY=0.01 '$GPUMEMSIM' report '$TMP/longer.jsonl' -o '$TMP/r.html' >/dev/null" \
	    /dev/null >"$TMP/tty" 2>&1
	tr '\r' '\n' <"$TMP/tty" >"$TMP/lines"
	grep -q 'gpumemsim report, the policies side by side: [0-9.]*M events, [0-9]*% of the trace read' "$TMP/lines" &&
	    grep -q 'gpumemsim report, [a-z ]*: [0-9.]*M of [0-9.]*M events ([0-9]*%), [0-9.]*M/s, [0-9.]* s' "$TMP/lines"
	ok $? "report's progress names its phases, the share of the trace read, then the total and time left"
	tail -c 4 "$TMP/tty" | od -c | grep -q '\[   K'; ok $? "... and erases the line when done"
	script -qec "GPUMEMSIM_PROGRESS_DELAY=0 '$GPUMEMSIM' plan '$TMP/long.jsonl' --gpus=T4 -q >/dev/null" \
	    /dev/null >"$TMP/tty" 2>&1
	is "$(wc -c <"$TMP/tty")" 0 "--quiet: no progress"
	GPUMEMSIM_PROGRESS_DELAY=0 "$GPUMEMSIM" plan "$TMP/long.jsonl" --gpus=T4 >/dev/null 2>"$TMP/err"
	is "$(wc -c <"$TMP/err")" 0 "no progress when standard error is not a terminal"
fi

# tune: --gpu, exit 1 when nothing fits, columns that fit the settings.
gms tune "$RESNET" --gpu=T4
is "$rc" 0 "tune --gpu=T4: a setting fits in a T4's memory"
grep -q "^$(basename "$RESNET" .json): capacity 14.24 GiB," "$TMP/out"; ok $? "tune --gpu: the T4's 15095 MiB less the 512 MiB context overhead"
# The runner-ups' sizes line up under their heading whatever the settings' length.
gms tune "$RESNET" --capacity=3.3GiB
awk '/^  runner-ups/ { col = index($0, "peak reserved") + 12; on = 1; next }
	on && /^$/ { exit }
	on { n++; if (index($0, "B  ") != col) bad++ }
	END { exit !(n > 0 && bad == 0) }' "$TMP/out"; ok $? "tune: the size column lines up under 'peak reserved'"
gms tune "$RESNET" --capacity=2GiB
is "$rc" 1 "tune: nothing fits under the live peak: exit 1"

# The table owns each default: written once, shown where the help says "{}",
# and the value the parser gives an option left out.
unfilled=
for c in $commands; do
	gms "$c" --help
	grep -q '{}' "$TMP/out" && unfilled="$unfilled $c"
done
is "$unfilled" "" "no --help shows a default's place unfilled ({})"
gms report --help
grep -A1 -- '--points' "$TMP/out" | tr -s ' \n' ' ' | grep -q 'peaks included (default: 1000)'
ok $? "report --help: --points' own default, 1000 (the option's elsewhere is none)"
gms plot --help
grep -A1 -- '--points' "$TMP/out" | tr -s ' \n' ' ' | grep -q 'peaks included (default: 2000)'
ok $? "plot --help: --points' own default, 2000"
gms check "$RESNET" --baseline="$TMP/none.json" --top=0
is "$rc" 3 "check --top=0 is refused as a count (check takes --top for its baseline's stacks)"

# The manual cites documents by where `make install` puts them, and puts them
# there: every path a man page cites is installed, and no page cites a file
# of the source tree as if it were at hand (doc/..., traces/...).
BUILDDIR=$(dirname "$GPUMEMSIM")
if make -C "$BUILDDIR" install-data DESTDIR="$TMP/inst" >"$TMP/install.log" 2>&1; then
	missing=0 cited=0
	for p in $(grep -ho '/[A-Za-z0-9_./-]*/doc/gpumemsim/[A-Za-z0-9_.-]*' "$TMP"/inst/*/share/man/man1/*.1 \
	    "$TMP"/inst/*/*/share/man/man1/*.1 2>/dev/null | sort -u); do
		cited=$((cited + 1))
		[ -f "$TMP/inst$p" ] || { missing=$((missing + 1)); echo "# not installed: $p"; }
	done
	ok $([ "$cited" -ge 3 ] && [ "$missing" -eq 0 ]; echo $?) \
	    "the man pages cite $cited installed documents, each installed by make install"
	grep -l '[ (]doc/[A-Za-z]*\.md\|[ (]traces/FORMAT\.md' "$TMP"/inst/*/share/man/man1/*.1 \
	    "$TMP"/inst/*/*/share/man/man1/*.1 2>/dev/null >"$TMP/srcrefs"
	is "$(wc -l <"$TMP/srcrefs")" 0 "no man page cites a document by its place in the source tree"
else
	sed 's/^/# /' "$TMP/install.log"
	ok 1 "make install-data"
fi

# Each documented option is accepted (whatever it then says of its value, it
# is not an unknown option); every other is refused as unknown, exit 2.  No
# trace is given, so nothing runs.  Last: its thousands of runs take seconds,
# which the mutants killed by the tests above need not wait for.
cd "$TMP" || exit 1
bad=
for c in $commands; do
	while read -r opt; do
		[ "$opt" = --help ] && continue
		if grep -qx -- "$opt" "$TMP/help.$c"; then
			"$GPUMEMSIM" "$c" "$opt=x" >/dev/null 2>"$TMP/e1"
			"$GPUMEMSIM" "$c" "$opt" >/dev/null 2>"$TMP/e2"
			if grep -q "unknown option" "$TMP/e1" && grep -q "unknown option" "$TMP/e2"; then
				bad="$bad $c:$opt(refused)"
			fi
		else
			"$GPUMEMSIM" "$c" "$opt=x" >/dev/null 2>"$TMP/e1"
			r=$?
			if [ $r -ne 2 ] || ! grep -q "^gpumemsim: error: unknown option '$opt=x'" "$TMP/e1"; then
				bad="$bad $c:$opt(accepted)"
			fi
		fi
	done <"$TMP/every"
done
rm -f "$TMP"/x
is "$bad" "" "every documented option is accepted, every undocumented one refused"

done_testing
