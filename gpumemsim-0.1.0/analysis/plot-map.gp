# plot-map.gp - a memory map: one row per segment (by address), its blocks
# as bars along it, allocated in blue, free in red: where fragmentation is.
# gpumemsim plot --map sets: datafile (CSV: row, start MiB, end MiB, colour),
# outfile, termtype, title, nrows, ticfile (set ytics commands, or empty).
if (termtype eq "svg") {
	set terminal svg size 1200,800 dynamic font "sans,11" background rgb "white"
} else {
	set terminal pngcairo size 1200,800 font "sans,10" background rgb "white"
}
set output outfile
set datafile separator ","
set title title noenhanced
set xlabel "offset in segment (MiB)"
set ylabel "segment, by address"
set yrange [-1:nrows]
set xrange [0:*]
set grid x
set bmargin 6
set key at screen 0.5, screen 0.01 center bottom horizontal
set style fill solid 0.85 border lc rgb "white"
load ticfile
plot datafile using (($2 + $3) / 2):1:2:3:($1 - 0.4):($1 + 0.4):4 with boxxyerror lc rgb variable notitle, \
     NaN with boxes lc rgb "#3366cc" title "allocated", \
     NaN with boxes lc rgb "#dd5555" title "free (cached)"
