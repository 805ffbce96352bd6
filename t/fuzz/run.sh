#!/bin/sh
# t/fuzz/run.sh - run every harness built by `make fuzz` for SECONDS each
# (default 60) from its committed seed corpus (t/fuzz/corpus/NAME) and
# dictionary (t/fuzz/NAME.dict, where there is one).  New inputs go to a
# scratch corpus, never into the tree.  Exit 1 on any finding: the input that
# found it is left as t/fuzz/crash-NAME-*, to become a regression test in
# t/data/.  Harnesses run side by side, FUZZ_JOBS at a time (default: the
# number of cores), each for the whole SECONDS.  Usage: run.sh [SECONDS] [NAME...]
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
names=${*:-"fuzz-json fuzz-jsonl fuzz-pickle fuzz-pickle-shared fuzz-csv fuzz-xplane fuzz-allocconf fuzz-baseline fuzz-sim fuzz-eventscan fuzz-scenario fuzz-scale fuzz-oomlog"}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gms-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
for n in $names; do
	if [ ! -x "t/fuzz/$n" ]; then
		echo "run.sh: t/fuzz/$n not built (make fuzz)" >&2
		exit 2
	fi
done
# fuzz_one NAME: run one harness; its verdict goes to $scratch/NAME.verdict
fuzz_one() {
	n=$1
	mkdir -p "$scratch/$n"
	dict=
	[ -f "$srcdir/t/fuzz/$n.dict" ] && dict=-dict=$srcdir/t/fuzz/$n.dict
	# every reader's run also has its per-input limits: 10 s, 512 MB of RSS
	if TMPDIR=$scratch ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	    "t/fuzz/$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix="t/fuzz/crash-$n-" $dict \
	    "$scratch/$n" "$srcdir/t/fuzz/corpus/$n" >"$scratch/$n.log" 2>&1; then
		echo "ok: $n ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$n.log" |
		    grep -o '[0-9]*$') runs in ${secs}s)" >"$scratch/$n.verdict"
	else
		{ echo "FINDING: $n"; tail -n 40 "$scratch/$n.log"; } >"$scratch/$n.verdict"
	fi
}
# the harnesses dealt round-robin to JOBS lanes, each lane one after another
lane=0
while [ "$lane" -lt "$jobs" ]; do
	i=0
	(for n in $names; do
		[ $((i % jobs)) -eq "$lane" ] && fuzz_one "$n"
		i=$((i + 1))
	done) &
	lane=$((lane + 1))
done
wait
failed=0
for n in $names; do
	cat "$scratch/$n.verdict" 2>/dev/null || { echo "FINDING: $n (no verdict)"; failed=1; }
	grep -q '^FINDING' "$scratch/$n.verdict" 2>/dev/null && failed=1
done
exit $failed
