# embed.awk - turn gnuplot scripts into C strings, so the binary carries the
# templates it runs: one "const char plot_<name>[]" per input file.
FNR == 1 {
	if (NR > 1)
		print ";"
	name = FILENAME
	sub(/.*\//, "", name)
	sub(/\.gp$/, "", name)
	gsub(/-/, "_", name)
	print "const char plot_" name "_gp[] ="
}
# Escaped a character at a time: gsub's replacement escapes differ between awks.
{
	line = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\\" || c == "\"")
			line = line "\\"
		line = line c
	}
	print "\t\"" line "\\n\""
}
END {
	print ";"
}
