#!/bin/sh
# doc/pictures.sh OUTDIR - README's pictures, drawn by the commands README
# shows (the report's pages in headless Chromium, as t/cli-report.sh opens
# them): `make pictures` draws them into doc/, t/pictures.sh into a scratch
# directory and compares them with doc/'s, so that they cannot drift.
# GPUMEMSIM is the binary (./gpumemsim), TOP_SRCDIR the tree (.).
set -eu
out=$1
gms=${GPUMEMSIM:-./gpumemsim}
top=${TOP_SRCDIR:-.}
mkdir -p "$out"
# The fonts they are drawn in: t/pictures.sh compares pictures only where
# fontconfig gives it the same ones.
for f in sans-serif serif monospace Arial Helvetica; do
	printf '%s: %s\n' "$f" "$(fc-match "$f")"
done >"$out/pictures.fonts"
"$gms" plot "$top/traces/resnet50-train-b32.json" \
    --policies=caching,grow-only,no-cache --capacity=3.3GiB -o "$out/resnet50-3.3GiB.png"
"$gms" plot "$top/traces/resnet50-train-b32.json" --map -o "$out/resnet50-map.png"
"$gms" plot "$top/t/data/users/oom-except.pickle.gz" --flame -o "$out/flame.svg"
# shot PAGE PNG SIZE FRAGMENT: a page drawn by headless Chromium
shot() {
	tmp=$(mktemp -d)
	rc=0
	chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --user-data-dir="$tmp" --hide-scrollbars \
	    --window-size="$3" --screenshot="$2" "file://$1$4" >/dev/null 2>&1 || rc=$?
	rm -rf "$tmp"
	return $rc
}
page=$(cd "$out" && pwd)/pictures-report.html
"$gms" report "$top/traces/gpt2-train-varlen-bf16.jsonl.gz" \
    --policies=caching,grow-only,no-cache --capacity=16GiB -o "$page"
shot "$page" "$out/report.png" 1100,1500 ""
"$gms" report "$top/t/data/users/oom-except.pickle.gz" --at=894 -o "$page"
shot "$page" "$out/explorer.png" 1100,900 "#demo"
rm -f "$page"
