#!/bin/sh
# nogpu_record.sh OUT JOBS... - the recordings alone (issue 56): each job
# (MODEL:SIZE) recorded with CUDA hidden by `python -m gpumemsim record
# --gpu=H100`, six at a time, with its wall time and peak RSS in
# OUT/MODEL-SIZE.nogpu.log; the real runs they are checked against are
# nogpu_all.sh's (facts.json).  With TWO_CORES=yes, one at a time on two
# cores, beside the real step on the same two cores (the cost on a 2-core
# machine): OUT/two-cores.txt.
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$here/../../../python${PYTHONPATH:+:$PYTHONPATH}"
if [ "$TWO_CORES" = yes ]; then
	for j in "$@"; do
		m=${j%%:*}; s=${j#*:}
		env CUDA_VISIBLE_DEVICES= taskset -c 0,1 /usr/bin/time -f "$m-$s recorded: %e s %M KB" \
			python3 -m gpumemsim record --gpu=H100 -o "$out/$m-$s.two.jsonl.gz" \
			"$here/nogpu_jobs.py" "$m" "$s" >> "$out/two-cores.txt" 2>&1
		taskset -c 0,1 /usr/bin/time -f "$m-$s for real: %e s %M KB" \
			python3 "$here/nogpu_jobs.py" "$m" "$s" >> "$out/two-cores.txt" 2>&1
	done
	exit 0
fi
for j in "$@"; do echo "$j"; done | xargs -P 6 -I{} sh -c \
	'j={}; m=${j%%:*}; s=${j#*:}; env CUDA_VISIBLE_DEVICES= /usr/bin/time -f "%e s %M KB" python3 -m gpumemsim record --gpu=H100 -o "'"$out"'/$m-$s.nogpu.jsonl.gz" "'"$here"'/nogpu_jobs.py" $m $s > "'"$out"'/$m-$s.nogpu.log" 2>&1'
