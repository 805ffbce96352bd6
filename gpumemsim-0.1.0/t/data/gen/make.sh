#!/bin/sh
# Make the PyTorch snapshot fixtures on a machine with a CUDA GPU and PyTorch:
#   sh t/data/gen/make.sh OUTDIR [all|python|cpp]
set -u
out=$1
mkdir -p "$out"
here=$(dirname "$0")
only=${2:-all}
if [ "$only" = all ] || [ "$only" = python ]; then
	for s in ring late proto5 streams; do
		python3 "$here/snapshots.py" $s "$out" || echo "scenario $s failed"
	done
	PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 "$here/snapshots.py" expandable "$out" ||
		echo "scenario expandable failed"
fi
[ "$only" = python ] && exit 0
TORCH=$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))')
grep -n "_record_memory_history\|_memory_snapshot_pickled" "$TORCH/include/torch/csrc/cuda/memory_snapshot.h"
g++ -std=c++17 -O1 -D_GLIBCXX_USE_CXX11_ABI=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))') \
	"$here/cpp_snapshot.cpp" -o "$out/cpp_snapshot" \
	-I"$TORCH/include" -I"$TORCH/include/torch/csrc/api/include" \
	-L"$TORCH/lib" -Wl,-rpath,"$TORCH/lib" -ltorch -ltorch_cuda -ltorch_cpu -lc10_cuda -lc10 2>&1 | tail -20 &&
	"$out/cpp_snapshot" "$out/cpp-path.pickle" && echo "cpp-path written" &&
	python3 -c "
import pickle, json, sys
s = pickle.load(open('$out/cpp-path.pickle', 'rb'))
print(list(s.keys()))
tr = s['device_traces'][0]
print(len(tr), list(tr[0].keys()) if tr else None)
acts = {}
for e in tr: acts[e['action']] = acts.get(e['action'], 0) + 1
json.dump({'actions': acts, 'first': {k: v for k, v in tr[0].items() if k != 'frames'}, 'keys': list(tr[0].keys()), 'protocol': open('$out/cpp-path.pickle','rb').read(2)[1]}, open('$out/cpp-path.facts.json', 'w'), indent=1)
print(acts)
"
rm -f "$out/cpp_snapshot"
ls -la "$out"
