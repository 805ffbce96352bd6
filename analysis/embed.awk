# embed.awk - turn text files into C strings, so the binary carries what it
# writes or runs (gnuplot scripts, the report's CSS and JavaScript): one
# "const char asset_<name>[]" per input file, <name> its file name with '-'
# and '.' as '_' (plot-map.gp: asset_plot_map_gp).
FNR == 1 {
	if (NR > 1)
		print ";"
	name = FILENAME
	sub(/.*\//, "", name)
	gsub(/[-.]/, "_", name)
	print "const char asset_" name "[] ="
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
