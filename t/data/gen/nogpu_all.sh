#!/bin/sh
# nogpu_all.sh OUT JOBS... - on the GPU machine (issue 56): each job
# (MODEL:SIZE) run for real (nogpu_real.py: snapshot, memory_stats(), the op
# log and the op memory table measured from them), and recorded with CUDA
# hidden (python -m gpumemsim record) twice: with the op memory table the
# package carries, and calibrated (GMS_OPMEM) by the table measured on the
# model's first listed size.  The plain recordings run beside the real runs.
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$here/../../../python${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name())' > "$out/versions.txt" 2>&1
rec() { # NAME MODEL SIZE [TABLE]
	env CUDA_VISIBLE_DEVICES= ${4:+GMS_OPMEM=$4} /usr/bin/time -f "%e s %M KB" \
		python3 -m gpumemsim record --gpu=H100 -o "$out/$1.jsonl.gz" \
		"$here/nogpu_jobs.py" "$2" "$3" > "$out/$1.log" 2>&1
}
for j in "$@"; do echo "$j"; done | xargs -P 6 -I{} sh -c \
	'j={}; m=${j%%:*}; s=${j#*:}; env CUDA_VISIBLE_DEVICES= /usr/bin/time -f "%e s %M KB" python3 -m gpumemsim record --gpu=H100 -o "'"$out"'/$m-$s.nogpu.jsonl.gz" "'"$here"'/nogpu_jobs.py" $m $s > "'"$out"'/$m-$s.nogpu.log" 2>&1' &
for j in "$@"; do
	m=${j%%:*}; s=${j#*:}
	python3 "$here/nogpu_real.py" "$out" "$m-$s" "$here/nogpu_jobs.py" "$m" "$s" > "$out/$m-$s.real.log" 2>&1
done
wait
for j in "$@"; do
	m=${j%%:*}; s=${j#*:}
	first=$(for k in "$@"; do echo "$k"; done | grep "^$m:" | head -1)
	echo "$m $s $out/${m}-${first#*:}.opmem.json"
done | xargs -P 8 -L 1 sh -c 'env CUDA_VISIBLE_DEVICES= GMS_OPMEM=$2 python3 -m gpumemsim record --gpu=H100 -o "'"$out"'/$0-$1.calib.jsonl.gz" "'"$here"'/nogpu_jobs.py" $0 $1 > "'"$out"'/$0-$1.calib.log" 2>&1'
# a real step without any recording, for the cost of a recording
for j in gpt2:256 resnet50:32; do
	/usr/bin/time -f "$j %e s %M KB" python3 "$here/nogpu_jobs.py" ${j%%:*} ${j#*:} >> "$out/plain-times.txt" 2>&1
done
