# plot-scale.gp - scale's curve: the peak reserved and allocated of the job
# built at each value, the capacity searched against and the largest value
# that fits it.
# gpumemsim scale sets: datafile (CSV: value, reserved, allocated, recorded
# 0/1), outfile, termtype ("svg" or "png"), title, capacity (bytes, 0: none),
# largest (the largest value that fits, 0: none).
GiB = 1073741824.0
if (termtype eq "svg") {
	set terminal svg size 1000,600 dynamic font "sans,11" background rgb "white"
} else {
	set terminal pngcairo size 1000,600 font "sans,10" background rgb "white"
}
set output outfile
set datafile separator ","
set title title noenhanced
set xlabel "value (batch, length, ...)"
set ylabel "GiB"
set grid
set key left top noenhanced
set yrange [0:*]
if (capacity > 0) {
	set arrow from graph 0, first capacity / GiB to graph 1, first capacity / GiB nohead dt 2 lw 1.5 lc rgb "#cc0000"
	set label sprintf("capacity %.2f GiB", capacity / GiB) at graph 0.01, first capacity / GiB left offset 0, 0.6 tc rgb "#cc0000"
}
if (largest > 0) {
	set arrow from first largest, graph 0 to first largest, graph 1 nohead dt 3 lc rgb "#2a7f2a"
	set label sprintf("largest that fits: %d", largest) at first largest, graph 0.95 right offset -0.5, 0 tc rgb "#2a7f2a"
}
plot datafile using 1:($2 / GiB) with linespoints pt 7 lw 2 lc rgb "#3366cc" title "peak reserved", \
     datafile using 1:($3 / GiB) with linespoints pt 6 lw 1.5 lc rgb "#888888" title "peak allocated", \
     datafile using 1:($4 > 0 ? $2 / GiB : NaN) with points pt 4 ps 2 lc rgb "black" title "recorded"
