#!/bin/sh
# t/users.sh - eight users, one goal each, end to end on the bundled traces
# and fixtures (issue 58): each headline answer is one that user can apply
# in the framework that recorded the job: a PyTorch setting for a PyTorch
# snapshot, a JAX or TensorFlow setting for a profile, an RMM resource for an
# RMM log; a what-if is not a failure to reproduce; a report of an OOM says
# the OOM first.
# Exercises sim/cli (the commands as a user types them), analysis/entry-*.c.
. "${TOP_SRCDIR:-.}/t/lib.sh"

U=$TOP_SRCDIR/t/data/users
X=$TOP_SRCDIR/t/data/xplane
RMM=$TOP_SRCDIR/t/data/rmm/random-1.csv
RESNET=$TRACES/resnet50-train-b32.json
SNAP=$U/oom-except.pickle.gz

# json_str KEY: a top-level string's value, unquoted
json_str() {
	json_top "$1" | sed 's/^"\(.*\)"$/\1/'
}
# the policies of compare's results, one per line
result_policies() {
	tr -d '\n\t' <"$TMP/out" | grep -o '"label":"[^"]*"' | sed 's/^"label":"//; s/"$//'
}
pytorch_policy() {	# a policy a PyTorch user sets: the caching allocator, its settings, cudaMallocAsync
	case $1 in caching|caching\ *|cuda-async|cuda-async\ *) return 0 ;; esac
	return 1
}

# 1. A PyTorch user whose job ran out of memory: which setting would fit 683 MiB?
gms compare "$SNAP" --capacity=683MiB --format=json
w=$(json_str winner)
pytorch_policy "$w"; ok $? "PyTorch OOM snapshot: compare's winner is a PyTorch setting ($w)"
is "$(json_str framework)" PyTorch "... the trace's framework said"
bad=$(result_policies | while read -r p; do
	case $p in no-cache|ideal) ;; *) pytorch_policy "$p" || echo "$p" ;; esac
done)
is "$bad" "" "... every policy compared is one PyTorch runs (or the bound)"
gms tune "$SNAP" --capacity=683MiB
is "$(sed -n 3p "$TMP/out" | cut -c1-26)" "  PYTORCH_CUDA_ALLOC_CONF=" "... tune leads with PYTORCH_CUDA_ALLOC_CONF"
gms run "$SNAP"
grep -q '^RECORDED OUT OF MEMORY: the job itself ran out at event 894' "$TMP/out"
ok $? "... run says the job itself ran out, at event 894"

# 2. A JAX user with two profiles: how should JAX hold this job's memory?
gms tune "$X/jit-prealloc.xplane.pb.gz"
is "$(sed -n 3,4p "$TMP/out" | tr -s ' ' | tr '\n' '|')" \
    " JAX (BFC allocator)| growth, JAX 262.00 MiB fits XLA_PYTHON_CLIENT_PREALLOCATE=false|" \
    "JAX profile: tune leads with JAX's BFC allocator, its growth setting first"
grep -q '^  growth fits in a limit of [0-9.]* MiB: XLA_PYTHON_CLIENT_MEM_FRACTION=' "$TMP/out"
ok $? "... the limit in JAX's terms first (XLA_PYTHON_CLIENT_MEM_FRACTION)"
gms compare "$X/op-growth.xplane.pb.gz" --format=json
is "$(json_str framework)" JAX "... compare on a JAX profile: JAX's"
case $(json_str winner) in grow-only*flavor=jax*|preallocate*flavor=jax*) r=0 ;; *) r=1 ;; esac
ok $r "... its winner is a mode of JAX's allocator ($(json_str winner))"
gms compare "$X/share-a.xplane.pb.gz" "$X/share-b.xplane.pb.gz"
is "$rc" 0 "... two profiles compared by stack"
gms tune "$X/tf-synth.xplane.pb" --device=0
is "$(sed -n 3,5p "$TMP/out" | cut -c1-44 | tr -s ' ' | tr '\n' '|')" \
    " TensorFlow (BFC allocator)| growth, TensorFlow 2.00 MiB fits | preallocated 13.97 GiB fits |" \
    "a TensorFlow profile: TensorFlow's modes first"
grep -q "TensorFlow's default: the card less its reserve" "$TMP/out"
ok $? "... preallocated as TensorFlow does it"

# 3. A RAPIDS user with an RMM log: which memory resource?
gms run "$RMM" --format=json
is "$(json_str policy)" no-cache "RMM log: run replays RMM's default resource (cuda_memory_resource: no caching)"
gms tune "$RMM"
case $(sed -n 3p "$TMP/out") in "  rmm."*) r=0 ;; *) r=1 ;; esac
ok $r "... tune leads with an RMM call ($(sed -n 3p "$TMP/out" | cut -c1-40)...)"
gms compare "$RMM" --format=json
is "$(json_str framework)" RMM "... compare: RMM's resources"
case $(json_str winner) in rmm-*|cuda-async*|no-cache) r=0 ;; *) r=1 ;; esac
ok $r "... its winner is an RMM resource ($(json_str winner))"

# 4. A CI engineer: a gate on fragmentation and on a saved baseline, by exit status
gms check "$RESNET" --max-fragmentation=20%
is "$rc" 0 "CI: 14.9% fragmentation passes a 20% gate"
gms check "$RESNET" --max-fragmentation=10% --format=tap
is "$rc $(sed -n 1p "$TMP/out")" "1 1..1" "... fails a 10% gate: exit 1, TAP"
"$GPUMEMSIM" run "$RESNET" --format=json >"$TMP/base.json"
gms check "$RESNET" --alloc-conf=max_split_size_mb:64 --baseline="$TMP/base.json"
is "$rc" 1 "... a setting that reserves more than the saved baseline fails"

# 5. A what-if is not a failure to reproduce
gms run "$RESNET" --alloc-conf=expandable_segments:True --format=json
grep -q '"comparable":'"$TAB"'false' "$TMP/out"; ok $? "what-if under another setting: not comparable"
grep -q 'NOT reproduced' "$TMP/out"; ok $((! $?)) "... and never 'NOT reproduced'"

# 6. A distributed-training user: which rank runs out, and on which card it all fits
gms run --ranks "$TOP_SRCDIR/t/data/ranks" --format=json
is "$(json_str policy)" caching "ranks of a PyTorch job: run under PyTorch's allocator"
gms plan --ranks "$TOP_SRCDIR/t/data/ranks"
bad=$(sed -n '/the capacity every rank needs/,/^$/p' "$TMP/out" | sed '1d;$d' |
    sed 's/^  \(.*[^ ]\)  *[0-9.]* [KMG]iB .*/\1/' | while read -r p; do
	case $p in no-cache|ideal) ;; *) pytorch_policy "$p" || echo "$p" ;; esac
done)
is "$bad" "" "... plan --ranks: PyTorch's policies"

# 7. The largest batch a card holds, from two small recordings
S=$TOP_SRCDIR/t/data/scale
gms plan --at 64 "$S/xfmr-seq-64.pickle.gz" --at 128 "$S/xfmr-seq-128.pickle.gz" --gpus=T4 --policy=caching
grep -q '^  T4          14.74 GiB  4214 (13.90 GiB) \*$' "$TMP/out"
ok $? "largest value: T4 holds length 4214 under caching"

# 8. A report reader: the page of the OOM snapshot says the OOM first, and a PyTorch winner
gms report "$SNAP" -o "$TMP/r.html"
first=$(grep -n -m 1 'class="verdict' "$TMP/r.html" | cut -d: -f1)
oom=$(grep -n 'id="recorded-oom"' "$TMP/r.html" | cut -d: -f1)
is "$first" "$oom" "report: the recorded OOM is the page's first verdict"
winner=$(sed -n 's/.*Winner: <strong>\([^<]*\)<.*/\1/p' "$TMP/r.html" | head -n 1)
pytorch_policy "$winner"; ok $? "... its winner is a PyTorch setting ($winner)"

done_testing
