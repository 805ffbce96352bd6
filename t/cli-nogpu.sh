#!/bin/sh
# t/cli-nogpu.sh - jobs recorded without a GPU (issue 56), replayed against
# what PyTorch's own allocator did with the same jobs on a GPU.  The fixtures
# (t/data/nogpu, made by t/data/gen/nogpu_all.sh on an H100 with PyTorch
# 2.11): each job was run for real (memory_stats() kept in facts.json) and
# recorded in another process with CUDA hidden, by `python -m gpumemsim
# record --gpu=H100`, which allocated nothing on any GPU.
# Exercises traces/input.c (the native reader), the caching policy and
# analysis/entry-*.c on traces no GPU made.
. "${TOP_SRCDIR:-.}/t/lib.sh"

N=$TOP_SRCDIR/t/data/nogpu
need_python3 "to read facts.json"
fact() {	# JOB KEY: what PyTorch's allocator recorded for the job
	json_file "$N/facts.json" jobs "$1" "$2"
}
# off SIM REAL: the simulation's error against the real value, in 0.01 %
off() {
	python3 -c 'import sys; s, r = int(sys.argv[1]), int(sys.argv[2]); print(round(abs(s - r) * 10000 / r))' "$1" "$2"
}

# What a recording cannot see, it says, with the range PyTorch's own peak
# was measured in on real jobs with the same ops unmodelled (the op memory
# table's "uncertainty", written into the recording by python -m gpumemsim
# record).  Here a recording given each kind of header by hand: a stated 3 %,
# none stated, and one from before recordings said (no line at all); the
# real recordings' ranges are checked against the real runs further down.
hdr() {	# NAME SOURCE-JSON-TO-MERGE: gpt2-128's recording with its source amended
	python3 -c 'import gzip, json, sys
lines = gzip.open(sys.argv[1], "rt").read().splitlines()
h = json.loads(lines[0]); h["source"].update(json.loads(sys.argv[3]))
h["source"] = {k: v for k, v in h["source"].items() if v != "drop"}
with gzip.open(sys.argv[2], "wt") as f:
    f.write("\n".join([json.dumps(h)] + lines[1:]) + "\n")' "$N/gpt2-128.nogpu.jsonl.gz" "$TMP/$1.jsonl.gz" "$2"
}
hdr said '{"uncertainty": 0.03, "uncertainty_why": "cuDNN workspaces", "assumed": {"the end test": 16}}'
gms run "$TMP/said.jsonl.gz" --format=json
p=$(json_top peak_reserved)
range=$(python3 -c 'import sys; p, s = int(sys.argv[1]), 2 << 20
print("[%d, %d]" % (int(p * 0.97) // s * s, -(-int(p * 1.03) // s) * s))' "$p")
is "$(json_top peak_reserved_range)" "$range" "a recording that states 3 %: the range around its peak reserved, whole segments out"
is "$(json_deep incomplete recorded_without_gpu uncertainty)" 0.03 "... and says so in incomplete"
gms run "$TMP/said.jsonl.gz"
grep -q "^RECORDED WITHOUT A GPU: nogpu_jobs stands for the H100-80GB; PyTorch's peak reserved is expected within 3% of the caching replay's (cuDNN workspaces)$" "$TMP/out"
ok $? "... in the text: the card, the range, why"
grep -q "^  assumed: the end test (16 times)$" "$TMP/out"; ok $? "... and what it assumed"
lo=${range#[}; lo=${lo%%,*}
grep -q "^  on the GPU .* $lo B  to .*: where PyTorch's own is expected$" "$TMP/out"
ok $? "... the range beside its peak reserved"
gms run "$TMP/said.jsonl.gz" --policy=grow-only --format=json
is "$rc" 0 "grow-only replays it"
is "$(json_top peak_reserved_range)" "" "no range for another policy than the one it was measured on"
gms check "$TMP/said.jsonl.gz" --must-fit=L4
grep -q "^RECORDED WITHOUT A GPU: " "$TMP/out"; ok $? "check says it too"
hdr none '{"uncertainty": null, "uncertainty_why": "aten.foo: not modelled"}'
gms run "$TMP/none.jsonl.gz"
grep -q "^RECORDED WITHOUT A GPU: nogpu_jobs stands for the H100-80GB; no range is stated for PyTorch's peak reserved (aten.foo: not modelled)$" "$TMP/out"
ok $? "a recording with an op no real job measured: no range, and why"
grep -q "on the GPU" "$TMP/out"; is "$?" 1 "... and no range line"
hdr old '{"uncertainty": "drop", "uncertainty_why": "drop", "assumed": "drop"}'
gms run "$TMP/old.jsonl.gz" --format=json
is "$(json_top incomplete)" null "a recording from before recordings said: nothing added"

# scale takes them as it takes GPU recordings (issue 57): GPT-2 recorded
# without a GPU at 128 and 256 gives PyTorch's own peak at 512, and a value
# between two recordings, 256 from 128 and 512
gms scale --at 128 "$N/gpt2-128.nogpu.jsonl.gz" --at 256 "$N/gpt2-256.nogpu.jsonl.gz" --value 512 --format=json
is "$(sed -n "s/^$TAB$TAB$TAB\"peak_reserved\":$TAB\([0-9]*\),*/\1/p" "$TMP/out")" "$(fact gpt2-512 peak_reserved)" \
    "scale from two recordings made without a GPU: PyTorch's peak reserved at 512"
# Between 128 and 512 it is not: the bias gradients' reductions stage
# across thread blocks from 1024 rows on (kernels.py), so the recording at
# 512 has buffers the one at 128 lacks, and the alignment cannot place them
# (the backward's allocations share one frame).  scale says its sizes have
# no form and keeps the larger: above PyTorch's, never below.
gms scale --at 128 "$N/gpt2-128.nogpu.jsonl.gz" --at 512 "$N/gpt2-512.nogpu.jsonl.gz" --value 256 --format=json
p=$(sed -n "s/^$TAB$TAB$TAB\"peak_reserved\":$TAB\([0-9]*\),*/\1/p" "$TMP/out")
[ "$p" -gt "$(fact gpt2-256 peak_reserved)" ]
ok $? "... between 128 and 512 (a kernel's threshold between them): above PyTorch's at 256 ($p)"
[ "$(sed -n "s/^$TAB$TAB$TAB$TAB\"no form\":$TAB\([0-9]*\),*/\1/p" "$TMP/out")" -gt 0 ]
ok $? "... and says which sizes have no form"
is "$(sed -n "s/^$TAB$TAB$TAB\"record_at_value\":$TAB\"\(.*\)\",*/\1/p" "$TMP/out")" "H100-80GB" \
    "... and that a recording at 256 itself, for the H100 they stood for, is exact"
gms scale --at 128 "$N/gpt2-128.nogpu.jsonl.gz" --at 512 "$N/gpt2-512.nogpu.jsonl.gz" --value 256
grep -q "^    recorded without a GPU: a recording at 256 itself (python -m gpumemsim record --gpu=H100-80GB, the job at 256) is exact where these sizes follow no form" "$TMP/out"
ok $? "... in the text too, with the command"
gms scale --at 64 "$TOP_SRCDIR/t/data/scale/xfmr-seq-64.pickle.gz" --at 256 "$TOP_SRCDIR/t/data/scale/xfmr-seq-256.pickle.gz" --value 512
is "$rc $(grep -c 'recorded without a GPU' "$TMP/out")" "0 0" "... never for recordings made on a GPU"

# the binary points at the package's command, in its help and when asked
gms --help
grep -q '^  python -m gpumemsim record --gpu=H100 -o job.jsonl.gz train.py' "$TMP/out"
ok $? "--help shows the package's record command"
gms record train.py
is "$rc" 2 "gpumemsim record: a usage error (exit 2)"
grep -q "^gpumemsim: error: 'record' runs a PyTorch script, and is the Python package's: python -m gpumemsim record --gpu=NAME" "$TMP/err"
ok $? "... that says how to run it"

# the recording says what made it, and is a PyTorch job to every command
T=$N/gpt2-512.nogpu.jsonl.gz
gms convert "$T" "$TMP/h.jsonl"
h=$(sed -n 1p "$TMP/h.jsonl")
case $h in *'"from":"recorded without a GPU'*) r=0 ;; *) r=1 ;; esac
ok $r "the header says it was recorded without a GPU"
case $h in *'"gpu":"H100-80GB"'*'"steps":2'*) r=0 ;; *) r=1 ;; esac
ok $r "... the GPU it stood for and its two optimizer steps"
is "$(grep -c '"op":"mark","label":"step [12]"' "$TMP/h.jsonl")" 2 "... a mark per optimizer step"
gms info "$T"
is "$(sed -n 3p "$TMP/out")" "  recorded        without a GPU, as an H100-80GB would run it (pytorch 2.11.0+cu130)" \
    "info says it was recorded without a GPU, as which card, with which PyTorch"
gms compare "$T" --format=json
is "$(json_top framework | tr -d '"')" PyTorch "compare: PyTorch's allocator, from the recording's source"
gms tune "$T"
is "$(sed -n 3p "$TMP/out" | cut -c1-26)" "  PYTORCH_CUDA_ALLOC_CONF=" "tune answers in PyTorch's setting"

# the transformers: peak reserved equal to PyTorch's, byte for byte (GPT-2
# fp32 and bf16 autocast with tied embeddings, a peft LoRA, a Llama-style
# decoder in bf16 with SDPA, BERT and ViT-S where the kernels' own buffers
# fall as they did), peak allocated within 0.2 %
for j in gpt2-128 gpt2-256 gpt2-512 gpt2-bf16-256 gpt2-bf16-512 lora-256 lora-512 \
    llama-512 llama-1024 vit-16 vit-48; do
	gms run "$N/$j.nogpu.jsonl.gz" --format=json
	is "$(json_top peak_reserved)" "$(fact "$j" peak_reserved)" \
	    "$j recorded without a GPU: peak reserved is PyTorch's on the H100"
	e=$(off "$(json_top peak_allocated)" "$(fact "$j" peak_allocated)")
	[ "$e" -le 20 ]; ok $? "... peak allocated within 0.2% of PyTorch's (off by $e/10000)"
done

# within the issue's bounds: 1 % for the transformers, 3 % for the
# convolution net (cuDNN's workspaces are not recorded); BERT and ViT at 24
# and 48 were run for the first time after the kernel rules were written
for j in llama-256:100 bert-16:100 bert-24:100 bert-32:100 bert-48:100 bert-64:100 \
    vit-24:100 vit-32:100 vit-64:100 resnet50-16:300 resnet50-32:300 resnet50-64:300; do
	gms run "$N/${j%:*}.nogpu.jsonl.gz" --format=json
	e=$(off "$(json_top peak_reserved)" "$(fact "${j%:*}" peak_reserved)")
	[ "$e" -le "${j#*:}" ]
	ok $? "${j%:*}: peak reserved within $((${j#*:} / 100))% of PyTorch's (off by $e/10000)"
done

# Every recording says how far from PyTorch's own its peak reserved may
# fall, and PyTorch's own on the H100 is in that range for each job that
# states one, generate() at three prompt lengths among them (its
# end-of-sequence test assumed "not yet": each ran to max_new_tokens, as for
# real; every op it met is modelled, so 1 %).
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["jobs"]
print("\n".join(j for j in sorted(d) if d[j].get("recorded") and "peak_reserved" in d[j]))' \
    "$N/facts.json" > "$TMP/jobs"
while read -r j; do
	gms run "$N/$j.nogpu.jsonl.gz" --format=json
	r=$(json_top peak_reserved_range); real=$(fact "$j" peak_reserved)
	lo=${r#[}; lo=${lo%%,*}; hi=${r##*, }; hi=${hi%]}
	[ -n "$r" ] && [ "$lo" -le "$real" ] && [ "$real" -le "$hi" ]
	ok $? "$j: PyTorch's peak reserved ($real) in the range its recording states ($r)"
done < "$TMP/jobs"
gms run "$N/generate-64.nogpu.jsonl.gz"
grep -q "^RECORDED WITHOUT A GPU: nogpu_jobs stands for the H100-80GB; PyTorch's peak reserved is expected within 1% of the caching replay's (the largest error of a recording's peak reserved against PyTorch's on the real jobs with every op modelled: " "$TMP/out"
ok $? "generate(): every op it met modelled, so a range of 1 %"
grep -q "^  assumed: generate(): no sequence ends at an end-of-sequence token, so each runs to max_new_tokens (or max_length), the most memory it can take (16 times)$" "$TMP/out"
ok $? "... and that it assumed each sequence runs to max_new_tokens, once per new token"
for s in 128 256; do
	is "$(fact generate-$s recorded_printed)" "$(fact generate-$s printed)" \
	    "generate() at a $s-token prompt, recorded without a GPU: as long an output as for real"
done

# Three capacities around each job's real peak (t/data/gen/nogpu_caps.py:
# 90, 97 and 103 % of it, whole 2 MiB, run for real on the H100 under
# set_per_process_memory_fraction, 26 jobs): the replay of the recording
# under the same limit agrees when it fits where the real run fitted, with
# as many retries (the cache released to retry), or runs out asking for what
# PyTorch asked, with the bytes allocated then within 1 % of what PyTorch's
# message said.  The runs where it does not are named, so that any change,
# better or worse, is seen (doc/ACCURACY.md says why each parts).
python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))["jobs"]
unit = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
for j in sorted(d):
    for s in sorted(d[j], key=int):
        c = d[j][s]
        o = c.get("oom")
        if o:
            m = re.search(r"Of the allocated memory ([0-9.]+) (.iB) is allocated", c["outcome"])
            print(j, s, c["limit"], "oom", o["request"], int(float(m.group(1)) * unit[m.group(2)]))
        else:
            print(j, s, c["limit"], "fits", c["num_alloc_retries"], "-")' \
    "$N/caps.json" > "$TMP/caps"
runs=0 agree=0 same_end=0 missed=
while read -r j s limit real what allocated; do
	gms run "$N/$j.nogpu.jsonl.gz" --capacity="${limit}B" --format=json
	runs=$((runs + 1))
	sim=$(json_top oom)
	if [ "$real" = fits ]; then
		[ "$sim" = null ] && same_end=$((same_end + 1))
		got="$sim $(json_top alloc_retries)" want="null $what"
	else
		[ "$sim" != null ] && same_end=$((same_end + 1))
		e=$(off "$(json_in oom allocated)" "$allocated" 2>/dev/null)
		got="$(json_in oom size) $([ "${e:-99999}" -le 100 ] && echo within)" want="$what within"
	fi
	if [ "$got" = "$want" ]; then agree=$((agree + 1)); else missed="$missed $j@$s"; fi
done < "$TMP/caps"
is "$runs $same_end" "78 75" \
    "under 78 limits (26 jobs at 90, 97 and 103 % of their peaks): 75 replays run out where PyTorch ran out, or fit where it fitted"
is "$agree" 68 "... 68 of them exactly: the same request, or the same number of cache releases"
is "$missed" " bert-16@90 bert-48@97 bert-64@97 gpt2-bf16-256@90 gpt2-bf16-256@97 resnet50-16@90 resnet50-64@90 resnet50-64@97 vit-16@90 vit-16@97" \
    "... the ten that part, by name"
# Why they part: real runs' allocator events (t/data/nogpu/events, from
# nogpu_events.py and nogpu_caps.py's KEEP) aligned with the recordings.
# gpt2-256 up to its OOM at 90 %: the recording's 24 more 512 B blocks are
# memory-efficient attention's seed and offset (made on the CPU by the real
# kernel; recordings made since leave them out), and its 12 more of 3 and 12
# MiB are sums autograd's engine adds in place on the card (doc/ACCURACY.md)
align() {
	python3 "$TOP_SRCDIR/t/data/gen/nogpu_align.py" "$N/events/$1.events.json.gz" "$N/$2.nogpu.jsonl.gz" |
	    sed -n "1,${3}p" | tr -s ' '
}
is "$(align gpt2-256-cap90 gpt2-256 4)" "real 959 allocations before its OOM (205852672 B), recording 1007
 512 B: real 27, recording 51
 3145728 B: real 209, recording 221
 12582912 B: real 168, recording 180" "gpt2-256 at 90 %, aligned with the H100's events: where the recording has more blocks"
is "$(align gpt2-bf16-256 gpt2-bf16-256 4)" "real 1691 allocations, recording 1717
 512 B: real 90, recording 78
 3145728 B: real 110, recording 134
 3195392 B: real 12, recording 0" \
    "gpt2-bf16-256 (its peaks exact, its limits not): 24 more blocks of 3 MiB, 12 of 3195392 B it misses"

# the cuBLAS workspaces the dispatcher never sees: one per thread that ran a
# matmul (the forward's, the autograd engine's), 32 MiB each on sm90
is "$(gzip -dc "$T" | grep -c '"size":33554432,.*"note":"aten\.[a-z]*mm\.default: cuBLAS workspace')" 2 \
    "two 32 MiB cuBLAS workspaces (the forward's thread and the backward's)"
# what kernels allocate inside themselves, from their rules (kernels.py), as
# often as the real run's snapshot had them: BERT at batch 32, the bias
# gradients' staging buffer ([4096, 768] summed over its rows) and the
# attention backward's dQ workspace
T=$N/bert-32.nogpu.jsonl.gz
is "$(gzip -dc "$T" | grep -c '"size":25165824,.*"note":"aten.sum.dim_IntList: the reduction.s staging buffer')" 60 \
    "BERT-32: 60 staging buffers of 25165824 B for its bias gradients, as on the H100"
is "$(gzip -dc "$T" | grep -c '"size":12595200,.*"note":"aten._scaled_dot_product_efficient_attention_backward.default: dQ.s workspace')" 12 \
    "... and 12 attention backward workspaces of 12595200 B"
gms plan "$N/llama-1024.nogpu.jsonl.gz" --gpus=L4,A100-40GB --format=json
is "$rc" 0 "plan tabulates GPUs for a job that never ran on one"


# The recording's answers near the card's limit (t/data/gen/nogpu_fit.sh,
# fit.json: HF GPT-2 at length 1024, batch 80 and 40, run for real on the
# H100 with the whole card, and recorded with CUDA hidden as an H100).
fit() {	# JOB KEY
	json_file "$N/fit.json" jobs "$1" "$2"
}
# a job that dies of it: its recording ends in the OOM PyTorch raised
gms run "$N/fit-die.nogpu.jsonl.gz" --gpu=H100-80GB --format=json
is "$(json_top peak_reserved)" "$(fit die peak_reserved)" \
    "a job that ran out of the H100: its recording's peak reserved is PyTorch's"
is "$(json_in oom size)" "$(fit die oom_request)" "... and it runs out asking for what PyTorch asked (960 MiB)"
is "$(gzip -dc "$N/fit-die.nogpu.jsonl.gz" | grep -c '"op":"oom","id":[0-9]*,"size":1006632960,')" 1 \
    "... the recording keeps the OOM the job died of"
# a batch finder (halve on OutOfMemoryError): the recording raised it where
# the card did, so the job went on at the batch it went on at for real
is "$(fit find recorded_printed)" "$(fit find printed)" \
    "the finder recorded without a GPU ran out at the batch it ran out at for real, and went on at 40"
gms run "$N/fit-find.nogpu.jsonl.gz" --gpu=H100-80GB --format=json
is "$(json_top peak_reserved)" "$(fit find peak_reserved)" \
    "... its recording peaks where the real run did"
is "$(gzip -dc "$N/fit-find.nogpu.jsonl.gz" | grep -c '"op":"oom"')" 1 "... through the one OOM it caught"
# under a limit: batch 8 fits 24 GiB, as it did for real (16 ran out)
gms run "$N/fit-8.nogpu.jsonl.gz" --capacity=24GiB --format=json
is "$(json_top oom)" null "batch 8 fits 24 GiB in the replay of its recording"
e=$(off "$(json_top peak_reserved)" "$(fit largest-8 peak_reserved)")
[ "$e" -le 2 ]; ok $? "... its peak reserved within 0.02% of the real run's under that limit (off by $e/10000)"
[ "$(fit largest-16 num_ooms)" -ge 1 ]; ok $? "... where batch 16 ran out for real"

done_testing
