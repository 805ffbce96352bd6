# plot-timeline.gp - live, allocated and reserved bytes over a trace, one
# colour per policy, with the capacity, out-of-memory points and marks.
# gpumemsim plot sets: datafile (CSV: event,t_us,live, then <p>_allocated,
# <p>_reserved per policy), outfile, termtype ("svg" or "png"), npol, label1..labelN
# (one variable each), title, capacity (bytes, 0: none), annfile (set arrow /
# label commands for marks), oomfile (CSV: event, reserved bytes), oomplot,
# xlab (the x axis' name), liveplot (the live line's clause, or empty:
# the ranks of a job have no one live line) and dashed (1: each series'
# reserved line its own dash, so that ranks alike do not hide each other).
GiB = 1073741824.0
dash(k) = dashed ? k : 1
if (termtype eq "svg") {
	set terminal svg size 1200,700 dynamic font "sans,11" background rgb "white"
} else {
	set terminal pngcairo size 1200,700 font "sans,10" background rgb "white"
}
set output outfile
set datafile separator ","
set datafile missing ""
set title title noenhanced
set xlabel xlab noenhanced
set ylabel "GiB"
set grid
set bmargin 9
set key at screen 0.5, screen 0.01 center bottom horizontal noenhanced maxrows 4
set yrange [0:*]
set offsets 0, 0, graph 0.06, 0
if (capacity > 0) {
	set arrow from graph 0, first capacity / GiB to graph 1, first capacity / GiB nohead dt 2 lw 1.5 lc rgb "#cc0000"
	set label sprintf("capacity %.2f GiB", capacity / GiB) at graph 0.99, first capacity / GiB right offset 0, 0.6 tc rgb "#cc0000"
}
load annfile
# oomplot: one ", oomfile every ::i::i ..." clause per policy that ran out
# (a point in its colour, named in the key), or empty.
plot @liveplot \
     for [k = 1:npol] datafile using 1:(column(3 + 2 * k) / GiB) with lines lw 1.8 lc k dt dash(k) title value(sprintf("label%d", k)) . " reserved", \
     for [k = 1:npol] datafile using 1:(column(2 + 2 * k) / GiB) with lines lw 1.2 dt 2 lc k title value(sprintf("label%d", k)) . " allocated" \
     @oomplot
