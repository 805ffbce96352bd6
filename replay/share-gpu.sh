#!/bin/sh
# share-gpu.sh - the measurements behind replay/RESULTS.md's table of share
# scenarios, on a machine with an NVIDIA GPU: each scenario of
# replay/scenarios predicted (share), replayed with one process per job
# (replay --scenario) and, where the frameworks are here, run by PyTorch and
# JAX in one process per job stepped in the same order
# (replay/share_frameworks.py).  Everything goes to DIR/share-results.json.
#
#   GPUMEMSIM=./gpumemsim replay/share-gpu.sh DIR [PYTHON [SCENARIO...]]
# (SCENARIO...: only those files; all of replay/scenarios by default)
set -u
BIN=${GPUMEMSIM:-./gpumemsim}
OUT=${1:?usage: share-gpu.sh DIR [PYTHON [SCENARIO...]]}
PY=${2:-python3}
[ $# -ge 2 ] && shift 2 || shift $#
[ $# -gt 0 ] || set -- replay/scenarios/*.json
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in "$@"; do
	n=$(basename "$s" .json)
	"$BIN" share --scenario "$s" --schedule="$tmp/$n.csv" --format=json >"$tmp/$n.share.json"
	"$BIN" replay --scenario "$s" --format=json >"$tmp/$n.replay.json" 2>"$tmp/$n.replay.err"
	cap=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['capacity'])" \
	    "$tmp/$n.share.json")
	timeout 600 "$PY" replay/share_frameworks.py "$s" "$tmp/$n.csv" --capacity="$cap" \
	    --gpumemsim="$BIN" >"$tmp/$n.frameworks.json" 2>"$tmp/$n.frameworks.err"
	echo "$n: share $? ; $(tail -n 2 "$tmp/$n.frameworks.err" | tr '\n' ' ')"
done
"$PY" - "$tmp" "$OUT/share-results.json" <<'PY'
import glob, json, os, sys
tmp, out = sys.argv[1], sys.argv[2]
res = {}
for f in sorted(glob.glob(os.path.join(tmp, "*.share.json"))):
    n = os.path.basename(f)[:-len(".share.json")]
    r = {}
    for kind in ("share", "replay", "frameworks"):
        try:
            with open(os.path.join(tmp, "%s.%s.json" % (n, kind))) as g:
                r[kind] = json.load(g)
        except Exception as e:
            with open(os.path.join(tmp, "%s.%s.err" % (n, kind))) if os.path.exists(
                    os.path.join(tmp, "%s.%s.err" % (n, kind))) else open(os.devnull) as g:
                r[kind] = {"error": str(e), "stderr": g.read()[-2000:]}
    res[n] = r
with open(out, "w") as g:
    json.dump(res, g, indent=1)
PY
