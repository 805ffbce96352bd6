#!/bin/sh
# t/mutate.sh - mutation testing (`make mutate`): each mutant of t/mutants.txt
# (a file, a line as it is, the line mutated, a note, and when the line is in
# the file more than once, which occurrence) is applied to a scratch
# copy of the source tree, built without sanitizers, and run against the test
# suite (t/resource.sh aside: it tests limits, not logic; and
# t/mutants-match.sh, which every mutant fails: it checks this list's lines).
# A mutant the suite fails is killed; one it passes survived, and the suite
# is missing a test.
# Mutants marked "equivalent: WHY" change no behaviour and are not run.
# Exit 0 when every mutant run was killed, 1 otherwise, 2 when the list no
# longer matches the code (a line not found exactly once).
#
# Usage: t/mutate.sh [SRCDIR] [PATTERN] [I/N]   (PATTERN: only mutants whose
# file or note contains it; I/N: only the I-th of every N of them, from 0, so
# that N copies can run side by side, each in its own scratch tree)
#
# Speed: a mutant's suite stops at its first failure, so the test that killed
# it last time (t/mutants-killers.txt, a hint only: a verdict never depends on
# it) runs first, and each test stops at its first failure (TAP_BAIL).
# MUTATE_KILLERS=FILE writes this run's killers to FILE, in
# that file's format; `make mutate-killers` refreshes the committed one.
set -u
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
pattern=${2:-}
shard=${3:-0/1}
shard_i=${shard%/*}
shard_n=${shard#*/}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gms-mutate.XXXXXX")
[ -n "${MUTATE_KEEP:-}" ] || trap 'rm -rf "$scratch"' EXIT
list=$scratch/mutants.txt
cp "$src/t/mutants.txt" "$list"	# a copy: the list may be edited while this runs
hints=$scratch/mutants-killers.txt
cp "$src/t/mutants-killers.txt" "$hints" 2>/dev/null || : >"$hints"
record=${MUTATE_KILLERS:-}
case $record in /*|'') ;; *) record=$PWD/$record ;; esac
[ -z "$record" ] || sed -n '1,2{/^#/p}' "$hints" >"$record"
tab=$(printf '\t')

echo "mutate: copying and building $src in $scratch"
(cd "$src" && tar cf - --exclude='*.o' --exclude='*.a' --no-wildcards-match-slash \
    --exclude='./*.log' --exclude='./t/*.log' --exclude='./t/fuzz/*.log' --exclude='*.trs' \
    --exclude=autom4te.cache --exclude=t/fuzz/obj --exclude=.git .) | (cd "$scratch" && tar xf -)
cd "$scratch" || exit 2
[ -f Makefile ] && make -s distclean >/dev/null 2>&1
if ! { ./autogen.sh && ./configure && make -j"$(nproc)"; } >build.log 2>&1; then
	tail -n 30 build.log
	echo "mutate: the unmutated tree does not build"
	exit 2
fi
# the slow tests (SLOW_TESTS, which make check starts first) come last here
# (SLOW_TESTS is one line)
tests=$({ sed -n '/^SHELL_TESTS = /,/[^\\]$/p' Makefile; sed -n 's/^SLOW_TESTS = //p' Makefile; } |
    tr -d '\\' | sed 's/^SHELL_TESTS = //' |
    tr '\n' ' ' | sed 's|t/resource.sh||; s|t/mutants-match.sh||')
progs=$(sed -n '/^check_PROGRAMS = /,/[^\\]$/p' Makefile | tr -d '\\' |
    sed 's/^check_PROGRAMS = //; s/\$(EXEEXT)//g' | tr '\n' ' ')
# one space between names: the Makefile's continuation lines begin with a
# tab, and first_failure finds a hint by " NAME " (a hint not found runs
# every test before its killer: a minute for each of cli-hostile's)
tests=$(echo $tests)
progs=$(echo $progs)
# MUTATE_BASELINE=no: the caller has just run this very suite on this very
# source (.ci/run does, once for both halves)
if [ "${MUTATE_BASELINE:-yes}" = no ]; then
	make -j"$(nproc)" $progs >check.log 2>&1 || { tail -n 30 check.log; exit 2; }
elif ! make -j"$(nproc)" check TESTS="$progs $tests" TEST_TIMEOUT=120 >check.log 2>&1; then
	grep '^FAIL\|^ERROR' check.log | head
	echo "mutate: the unmutated suite fails"
	exit 2
fi

# A mutant's suite stops at its first failing test, the unit tests first
# (fast), then the command-line ones; the test that kills it is named.  A
# note "AREA: ..." whose area has its own t/cli-AREA.sh runs that one first
# (the newest features' tests sit at the end of TESTS).
# The hint comes first when there is one: the killer last time.
# hint FILE ORIG MUT NTH: the test that killed this mutant last time, if any
hint() {
	F=$1 O=$2 M=$3 N=${4:-1} awk -F '\t' 'BEGIN { k = ENVIRON["F"] "\t" ENVIRON["O"] "\t" \
	    ENVIRON["M"] "\t" ENVIRON["N"] }
	    substr($0, 1, 1) != "#" && index($0, k "\t") == 1 { print $NF; exit }' "$hints"
}
# first_failure NOTE HINT: print "TEST N - description" of the first failure; 1 if none
first_failure() {
	first=
	case $1 in *:*) [ -f "t/cli-${1%%:*}.sh" ] && first=t/cli-${1%%:*}.sh ;; esac
	case " $progs $tests " in *" $2 "*) first="$2 $first" ;; esac
	for t in $first $progs $tests; do
		# a unit test is built when it is first needed: most mutants are
		# killed by their hint, and relinking every program costs more
		# than the hint's run
		case $t in *.sh) ;; *)
			if ! make -j"$(nproc)" "$t" >mutant.log 2>&1 </dev/null; then
				echo "$t does not build"
				return 0
			fi ;;
		esac
		case $t in
		*.sh) GPUMEMSIM=$scratch/gpumemsim TOP_SRCDIR=$scratch PNGSTAT=$scratch/t/pngstat \
		    timeout 120 sh "$t" >mutant.log 2>&1 </dev/null ;;
		*) TOP_SRCDIR=$scratch timeout 120 "./$t" >mutant.log 2>&1 </dev/null ;;
		esac
		rc=$?
		if [ "$rc" -ne 0 ] || grep -q '^not ok' mutant.log; then
			line=$(grep -m1 '^not ok' mutant.log | sed 's/^not ok //')
			echo "$t ${line:-exit $rc}" | cut -c1-80
			return 0
		fi
	done
	return 1
}

n=0 killed=0 survived=0 skipped=0 bad=0
GMS_MUTATING=1	# t/cli-report.sh leaves the browser out: no mutant reaches a page's script
TAP_BAIL=1	# t/lib.sh and t/tap.c stop at a test's first failure
export GMS_MUTATING TAP_BAIL
exec 3<"$list"
while IFS="$tab" read -r file orig mut note nth <&3; do
	case $file in ''|'#'*) continue ;; esac
	case "$file $note" in *"$pattern"*) ;; *) continue ;; esac
	seen_all=$((${seen_all:-0} + 1))
	[ $(((seen_all - 1) % shard_n)) -eq "$shard_i" ] || continue
	n=$((n + 1))
	case $note in equivalent:*)
		skipped=$((skipped + 1))
		continue ;;
	esac
	count=$(grep -cF -- "$orig" "$file")
	if { [ -z "$nth" ] && [ "$count" != 1 ]; } || [ "$count" -lt "${nth:-1}" ]; then
		echo "LIST  $file: '$orig' found $count times"
		bad=$((bad + 1))
		continue
	fi
	started=$(date +%s)
	cp "$file" "$file.orig"
	# through the environment: awk -v would read backslashes as escapes
	O=$orig M=$mut NTH=${nth:-1} awk 'BEGIN { o = ENVIRON["O"]; m = ENVIRON["M"]; n = ENVIRON["NTH"] }
	    index($0, o) && ++seen == n {
	    i = index($0, o); $0 = substr($0, 1, i - 1) m substr($0, i + length(o)) } { print }' \
	    "$file.orig" >"$file"
	if cmp -s "$file" "$file.orig"; then
		echo "LIST  $file: '$orig' could not be replaced"
		mv "$file.orig" "$file"
		bad=$((bad + 1))
		continue
	fi
	# the binary and its pages here; each unit test as first_failure needs it
	if ! make -j"$(nproc)" >mutant.log 2>&1 </dev/null; then
		verdict="killed (does not build)"
		killed=$((killed + 1))
	elif killer=$(first_failure "$note" "$(hint "$file" "$orig" "$mut" "$nth")"); then
		verdict="killed by $killer"
		killed=$((killed + 1))
		[ -z "$record" ] || printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$orig" "$mut" "${nth:-1}" \
		    "${killer%% *}" >>"$record"
	else
		verdict="SURVIVED"
		survived=$((survived + 1))
	fi
	mv "$file.orig" "$file"
	touch "$file"
	# the seconds each took: where mutation testing's time goes (CI's budget)
	printf '%-9s %s: %s -> %s  [%s] (%s s)\n' "$(echo "$verdict" | cut -d' ' -f1)" "$file" \
	    "$orig" "$mut" "$(echo "$verdict" | cut -d' ' -f2-)" "$(($(date +%s) - started))"
done
exec 3<&-
make -j"$(nproc)" >/dev/null 2>&1
run=$((killed + survived))
echo "mutate: $n mutants, $skipped equivalent (not run), $killed of $run killed" \
    "($((run ? 100 * killed / run : 0))%), $survived survived, $bad no longer match"
[ "$bad" -eq 0 ] || exit 2
[ "$survived" -eq 0 ]
