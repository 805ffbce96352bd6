# plot-share.gp - several jobs on one GPU: each job's reservation stacked
# over time, what the card has in use (contexts included) and its capacity,
# and a point where a job ran out of memory.
# gpumemsim share sets: datafile (CSV: t_us, one column per job, used,
# free), outfile, termtype ("svg" or "png"), njobs, label1..labelN (one variable each),
# title, capacity (bytes) and oomplot (", <file> using ..." drawing the
# out-of-memory points, or empty).
GiB = 1073741824.0
if (termtype eq "svg") {
	set terminal svg size 1200,700 dynamic font "sans,11" background rgb "white"
} else {
	set terminal pngcairo size 1200,700 font "sans,10" background rgb "white"
}
set output outfile
set datafile separator ","
set title title noenhanced
set xlabel "seconds"
set ylabel "GiB"
set grid
set key outside right top noenhanced
set yrange [0:capacity / GiB * 1.08]
set style fill solid 0.55 border -1
set arrow from graph 0, first capacity / GiB to graph 1, first capacity / GiB nohead dt 2 lw 1.5 lc rgb "#cc0000"
set label sprintf("the GPU, %.2f GiB", capacity / GiB) at graph 0.01, first capacity / GiB left offset 0, 0.6 tc rgb "#cc0000"
# the top of each job's band is the sum of its column and those before it,
# drawn from the top down so each covers the ones above it
plot for [k = njobs:1:-1] datafile skip 1 using ($1 / 1e6):((sum [i = 2:k + 1] column(i)) / GiB) with fillsteps lc k title value(sprintf("label%d", k)), \
     datafile skip 1 using ($1 / 1e6):(column(njobs + 2) / GiB) with steps lw 2 lc rgb "black" title "in use, contexts included" \
     @oomplot
