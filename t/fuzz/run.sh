#!/bin/sh
# t/fuzz/run.sh - run every harness built by `make fuzz` for SECONDS each
# (default 60) from its committed seed corpus (t/fuzz/corpus/NAME) and
# dictionary (t/fuzz/NAME.dict, where there is one).  New inputs go to a
# scratch corpus, never into the tree.  Exit 1 on any finding: the input that
# found it is left as t/fuzz/crash-NAME-*, to become a regression test in
# t/data/.  Usage: run.sh [SECONDS] [NAME...]
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
names=${*:-"fuzz-json fuzz-jsonl fuzz-pickle fuzz-pickle-shared fuzz-csv fuzz-xplane fuzz-allocconf fuzz-baseline fuzz-sim fuzz-eventscan fuzz-scenario"}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gms-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failed=0
for n in $names; do
	bin=t/fuzz/$n
	if [ ! -x "$bin" ]; then
		echo "run.sh: $bin not built (make fuzz)" >&2
		exit 2
	fi
	mkdir -p "$scratch/$n"
	dict=
	[ -f "$srcdir/t/fuzz/$n.dict" ] && dict=-dict=$srcdir/t/fuzz/$n.dict
	# every reader's run also has its per-input limits: 10 s, 512 MB of RSS
	if TMPDIR=$scratch ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix="t/fuzz/crash-$n-" $dict \
	    "$scratch/$n" "$srcdir/t/fuzz/corpus/$n" >"$scratch/$n.log" 2>&1; then
		echo "ok: $n ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$n.log" |
		    grep -o '[0-9]*$') runs in ${secs}s)"
	else
		echo "FINDING: $n"
		tail -n 40 "$scratch/$n.log"
		failed=1
	fi
done
exit $failed
