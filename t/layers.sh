#!/bin/sh
# t/layers.sh - the floors of the tree (doc/LAYERS.md) hold: no file includes
# across them the wrong way (the engine and the readers, sim/ and traces/,
# never include analysis/, replay/ or sim/cli/; replay/ never analysis/ or
# sim/cli/; analysis/ never sim/cli/; nothing outside traces/ includes the
# readers' private traces/reader.h); no files anywhere call each other,
# directly or round a longer circle; and no command file (sim/cli/cmd-*.c)
# calls another.  Then the same checks on a scratch copy with one violation
# of each kind put in, which must each be found: a check that cannot fail is
# no check.
. "${TOP_SRCDIR:-.}/t/lib.sh"

# wrong_includes DIR: "FILE includes WHAT" for each include across a floor
wrong_includes() {
	for f in "$1"/sim/*.[ch] "$1"/traces/*.[ch]; do
		grep -H '^#include "\(analysis\|replay\|sim/cli\)/' "$f"
	done
	for f in "$1"/replay/*.[ch]; do
		grep -H '^#include "\(analysis\|sim/cli\)/' "$f"
	done
	for f in "$1"/analysis/*.[ch]; do
		grep -H '^#include "sim/cli/' "$f"
	done
	for f in "$1"/sim/*.[ch] "$1"/sim/cli/*.[ch] "$1"/analysis/*.[ch] "$1"/replay/*.[ch]; do
		grep -H '^#include "traces/\(reader\|pickle-snap\)\.h"' "$f"
	done
	# the readers stand on the ground alone, and the ground on itself
	for f in "$1"/traces/*.[ch] $(ground "$1"); do
		grep -H '^#include "sim/' "$f" | grep -v "\"sim/\($GROUND\)\.h\""
	done
} 2>/dev/null
# The ground (doc/LAYERS.md): what the readers and the engine share.
GROUND='gms\|outfile\|tmpfiles\|objpool\|progress\|sizeclass'
ground() {
	ls "$1"/sim/*.[ch] | grep "/sim/\($GROUND\)\.[ch]$"
}
wrong_includes_of() {
	wrong_includes "$1" | sed "s|^$1/||; s|:#include | includes |"
}

# calls DIR: "A B" for each file A (of sim/, sim/cli/, traces/, analysis/,
# replay/) that calls a function defined (not static) in another file B.
# One awk over the files twice: the first pass finds the definitions (a
# name at the start of a line, its type on the line before, not static),
# the second the calls.
calls() {
	set -- "$1" "$1"/sim/*.c "$1"/sim/cli/*.c "$1"/traces/*.c "$1"/analysis/*.c "$1"/replay/*.c
	root=$1
	shift
	awk -v root="$root/" 'FNR == 1 { f = FILENAME; sub("^" root, "", f); if (seen[FILENAME]++) second = 1; prev = "" }
	    !second { if (prev !~ /^static/ && /^[a-z_][a-z0-9_]*\(/) { n = $0; sub(/\(.*/, "", n); def[n] = f }
		prev = $0; next }
	    { line = $0
		while (match(line, /[A-Za-z_][A-Za-z0-9_]*\(/)) {
			n = substr(line, RSTART, RLENGTH - 1)
			if ((n in def) && def[n] != f)
				print f, def[n]
			line = substr(line, RSTART + RLENGTH)
		} }' "$@" "$@" | sort -u
}
# circles DIR: the files tsort finds in a loop of calls, one per line
circles() {
	calls "$1" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' |
	    sort -u
}
# command_calls DIR: "A B" for each command file calling another's function
command_calls() {
	calls "$1" | grep '^sim/cli/cmd-[a-z-]*\.c sim/cli/cmd-[a-z-]*\.c$'
}

wrong_includes_of "$TOP_SRCDIR" | sort -u >"$TMP/inc"
is "$(cat "$TMP/inc")" "" "no include across the floors the wrong way"
circles "$TOP_SRCDIR" >"$TMP/loops"
is "$(tr '\n' ' ' <"$TMP/loops")" "" "no two files call each other, directly or round a circle, anywhere"
n=$(calls "$TOP_SRCDIR" | wc -l)
[ "$n" -gt 300 ]; ok $? "... among the $n calls between files it found (the check sees them)"
is "$(command_calls "$TOP_SRCDIR")" "" "no command file calls another"

# A scratch copy, and one violation of each kind.
mkdir -p "$TMP/tree"
(cd "$TOP_SRCDIR" && tar cf - --exclude='*.o' --exclude='*.a' sim traces analysis replay) |
    (cd "$TMP/tree" && tar xf -)
printf '#include "analysis/report.h"\n' >>"$TMP/tree/sim/run.c"
printf '#include "sim/cli/cli.h"\n' >>"$TMP/tree/traces/trace.c"
printf '#include "analysis/share.h"\n' >>"$TMP/tree/replay/share-gpu.h"
printf '#include "sim/cli/cli.h"\n' >>"$TMP/tree/analysis/plan.c"
printf '#include "traces/reader.h"\n' >>"$TMP/tree/sim/scenario.c"
printf '#include "traces/pickle-snap.h"\n' >>"$TMP/tree/analysis/info.c"
printf '#include "sim/policy.h"\n' >>"$TMP/tree/traces/kineto.c"
printf '#include "sim/device.h"\n' >>"$TMP/tree/sim/sizeclass.c"
wrong_includes_of "$TMP/tree" | sort -u >"$TMP/inc"
is "$(cat "$TMP/inc")" "analysis/info.c includes \"traces/pickle-snap.h\"
analysis/plan.c includes \"sim/cli/cli.h\"
replay/share-gpu.h includes \"analysis/share.h\"
sim/run.c includes \"analysis/report.h\"
sim/scenario.c includes \"traces/reader.h\"
sim/sizeclass.c includes \"sim/device.h\"
traces/kineto.c includes \"sim/policy.h\"
traces/trace.c includes \"sim/cli/cli.h\"" \
    "an engine, reader, replay and analysis file including upwards, a reader including the engine, the ground including above it, and the readers' private headers outside traces/: each found"
# help.c calls table.c's lookups; table.c calling back into help.c closes a circle
printf 'void\nlayers_probe(void)\n{\n\tcli_help_main(stdout);\n}\n' >>"$TMP/tree/sim/cli/table.c"
circles "$TMP/tree" >"$TMP/loops"
is "$(tr '\n' ' ' <"$TMP/loops")" "sim/cli/help.c sim/cli/table.c " "table.c calling help.c, which calls table.c: the circle found"
cp "$TOP_SRCDIR/sim/cli/table.c" "$TMP/tree/sim/cli/table.c"
# the page's sections call the page's helpers; the helpers calling a section close one
printf 'void\nlayers_probe(FILE *f)\n{\n\tpage_segments(f, NULL);\n}\n' >>"$TMP/tree/analysis/report-page.c"
circles "$TMP/tree" >"$TMP/loops"
is "$(tr '\n' ' ' <"$TMP/loops")" "analysis/report-page.c analysis/report-segments.c " \
    "report-page.c calling report-segments.c, which calls it: the circle in analysis/ found"
cp "$TOP_SRCDIR/analysis/report-page.c" "$TMP/tree/analysis/report-page.c"
# a command reaching into another command's file
printf 'int\nlayers_probe(struct cli_args *a)\n{\n\treturn cmd_plan(a);\n}\n' >>"$TMP/tree/sim/cli/cmd-run.c"
is "$(command_calls "$TMP/tree")" "sim/cli/cmd-run.c sim/cli/cmd-plan.c" \
    "cmd-run.c calling cmd-plan.c's cmd_plan: found"

done_testing
