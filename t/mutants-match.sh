#!/bin/sh
# t/mutants-match.sh - every mutant of t/mutants.txt still names a line of the
# code (once, or at least its occurrence when it gives one), as t/mutate.sh
# needs: a line rewritten without its mutant re-pointed fails CI's mutation
# step after half an hour; here it fails make check in a second.
. "${TOP_SRCDIR:-.}/t/lib.sh"

tab=$(printf '\t')
bad=
n=0
while IFS="$tab" read -r file orig mut note nth; do
	case $file in ''|'#'*) continue ;; esac
	n=$((n + 1))
	count=$(grep -cF -- "$orig" "$TOP_SRCDIR/$file" 2>/dev/null)
	if { [ -z "$nth" ] && [ "${count:-0}" != 1 ]; } || [ "${count:-0}" -lt "${nth:-1}" ]; then
		bad="$bad$file: '$orig' found ${count:-0} times; "
	fi
done <"$TOP_SRCDIR/t/mutants.txt"
is "$bad" "" "each of the $n mutants names its line of the code"
[ "$n" -gt 300 ]
ok $? "... and there are mutants to check ($n)"

done_testing
