#!/bin/sh
# nogpu_fit.sh OUT - issue 56's closed loop checked against real runs on the
# GPU machine (needs the gpumemsim binary: $GPUMEMSIM).  nogpu_fit.py's
# batch finder from batch 80 and the same job dying at batch 80, each
# recorded with CUDA hidden (--gpu=H100) and run for real with the whole
# card; then the largest batch under 24 GiB searched from recordings
# (--values) against real runs under that limit.  Phase "record" needs no
# GPU and runs beside other work; phase "real" wants the card to itself.
out=$1 phase=$2
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$here/../../../python${PYTHONPATH:+:$PYTHONPATH}"
job=$here/nogpu_fit.py
rec() { name=$1; shift
	env CUDA_VISIBLE_DEVICES= /usr/bin/time -f "%e s %M KB" python3 -m gpumemsim record "$@" \
		> "$out/$name.log" 2>&1; echo "exit $?" >> "$out/$name.log"; }
if [ "$phase" = record ]; then
	rec find --gpu=H100 -o "$out/find.jsonl.gz" "$job" 80 --find &
	rec die --gpu=H100 -o "$out/die.jsonl.gz" "$job" 80 &
	rec largest --gpu=H100 --values=8,16,24,32,48 --arg=1 --capacity=24GiB -o "$out/largest" "$job" 8 &
	wait
else
	python3 "$here/nogpu_oom.py" "$out" find 0 "$job" 80 --find > "$out/find.real.log" 2>&1
	python3 "$here/nogpu_oom.py" "$out" die 0 "$job" 80 > "$out/die.real.log" 2>&1
	for b in 8 16 24 32 48; do echo $b; done | xargs -P 3 -I{} sh -c \
		'python3 "'"$here"'/nogpu_oom.py" "'"$out"'" largest-{} 25769803776 "'"$job"'" {} > "'"$out"'/largest-{}.real.log" 2>&1'
fi
# Then, here: python3 t/data/gen/nogpu_fit_facts.py OUT t/data/nogpu
