#!/bin/sh
# t/readme.sh - README.md's examples are what the program prints (issue 28):
# every block of the README that shows a command ("$ ./gpumemsim ...", with
# "\" continuations) and its output is run from the source tree and its output
# compared with the block, numbers included.  A line "..." stands for any
# lines (none too); a line that ends in "..." must begin as written.
. "${TOP_SRCDIR:-.}/t/lib.sh"

README=$TOP_SRCDIR/README.md

# The blocks, one file each: CMD (the command, joined) and EXPECTED.
awk -v dir="$TMP" '
	/^```/ { if (inb) { if (cmd != "") close(out); inb = 0; cmd = ""; next } inb = 1; next }
	!inb { next }
	cmd == "" && /^\$ \.\/gpumemsim / { n++; cmd = substr($0, 3); out = dir "/block" n ".out";
		cont = ($0 ~ /\\$/); if (cont) sub(/\\$/, "", cmd); printf "" > out; next }
	cmd != "" && cont { line = $0; sub(/^ +/, "", line); cont = (line ~ /\\$/);
		if (cont) sub(/\\$/, "", line); cmd = cmd " " line; next }
	cmd != "" { if (!wrote[n]++) { print cmd > (dir "/block" n ".cmd") ; close(dir "/block" n ".cmd") }
		print > out }
' "$README"

# match EXPECTED ACTUAL: 0 when ACTUAL is EXPECTED, "..." lines standing for
# any lines; else 1, with the first difference on standard output.
match() {
	awk '
		NR == FNR { e[++ne] = $0; next }
		{ a[++na] = $0 }
		function same(x, y,   p) {
			if (x ~ /\.\.\.$/) { p = substr(x, 1, length(x) - 3); return substr(y, 1, length(p)) == p }
			return x == y
		}
		END {
			j = 1
			for (i = 1; i <= ne; i++) {
				if (e[i] == "...") {
					if (i == ne) exit 0
					while (j <= na && !same(e[i + 1], a[j])) j++
					if (j > na) { print "# not found: " e[i + 1]; exit 1 }
					continue
				}
				if (j > na || !same(e[i], a[j])) {
					print "# want: " e[i]; print "#  got: " (j <= na ? a[j] : "(the end)"); exit 1
				}
				j++
			}
			if (j <= na) { print "# more: " a[j]; exit 1 }
			exit 0
		}' "$1" "$2"
}

n=0
for cmdf in "$TMP"/block*.cmd; do
	[ -f "$cmdf" ] || continue
	n=$((n + 1))
	b=${cmdf%.cmd}
	cmd=$(cat "$cmdf")
	(cd "$TOP_SRCDIR" && eval "\"$GPUMEMSIM\" ${cmd#./gpumemsim }") >"$b.got" 2>&1
	if diff=$(match "$b.out" "$b.got"); then
		ok 0 "README: $cmd"
	else
		ok 1 "README: $cmd"
		echo "$diff"
	fi
done
is "$n" "$(grep -c '^\$ \./gpumemsim ' "$README")" "every command the README shows was run"

done_testing
