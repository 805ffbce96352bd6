#!/bin/sh
# Run every scenario of record_gpu.py, each in a fresh process, into OUTDIR.
set -e
out=${1:?usage: record_gpu.sh OUTDIR}
mkdir -p "$out"
for s in default kineto emptycache; do
	python3 "$(dirname "$0")/record_gpu.py" "$s" "$out"
done
