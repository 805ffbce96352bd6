#!/bin/sh
# t/cli-ranks.sh - the ranks of one distributed job (issue 35): per-rank
# recordings given as files or a directory, each rank's run, and the job's
# answer (the worst rank, the spread, who runs out first, what the worst
# holds that the least does not). Hand-worked ranks under the ideal policy
# (reserved = live, so every number is the live bytes), and a real
# pipeline-parallel job recorded on the H200 (t/data/ranks, from
# t/data/gen/record_ranks.py), each rank against its own memory_stats(),
# and a DDP job's profiles, whose ranks only their contents say.
. "${TOP_SRCDIR:-.}/t/lib.sh"

HAND=$TOP_SRCDIR/t/data/ranks/hand
PP=$TOP_SRCDIR/t/data/ranks
MiB=1048576

# rank_vals KEY: KEY of each rank's run, in rank order (the "ranks" array's
# objects are the only ones three tabs deep holding run keys).
rank_vals() {
	sed -n "s/^$TAB$TAB$TAB\"$1\":$TAB\\([^,]*\\),\\{0,1\\}\$/\\1/p" "$TMP/out" | tr '\n' ' ' |
	    sed 's/ $//'
}

# facts RANK KEY: the recording's memory_stats() value.
facts() {
	sed -n "s/^  \"$2\": \\([0-9]*\\),\\{0,1\\}\$/\\1/p" "$PP/facts/pp-rank$1.facts.json"
}

# Hand-worked: rank 0 peaks at 300 MiB live, rank 1 at 600 MiB, rank 2 at
# 550 MiB; ideal reserves exactly what is live.
gms run --ranks "$HAND" --policy=ideal --format=json
is "$rc $(rank_vals rank) / $(rank_vals peak_reserved)" \
    "0 0 1 2 / $((300 * MiB)) $((600 * MiB)) $((550 * MiB))" \
    "a directory: every rank's run, by the rank in its file's name"
is "$(json_in job worst_rank) $(json_in job peak_reserved) $(json_in job least_rank) $(json_in job spread)" \
    "1 $((600 * MiB)) 0 $((300 * MiB))" \
    "the job: the worst rank is 1 (600 MiB), the least 0: a spread of 300 MiB"
is "$(json_in job ooms) $(json_in job first_oom)" "0 null" "uncapped, nobody runs out"
gms run --ranks "$HAND" --policy=ideal
is "$(grep '^JOB' "$TMP/out")" \
    "JOB: the worst rank is 1, 600.00 MiB reserved at its peak; the least, rank 0, 300.00 MiB: a spread of 300.00 MiB (50.0% of the worst)" \
    "text: the job's paragraph"
grep -q '^What rank 1 holds that rank 0 does not, by call stack:$' "$TMP/out"
ok $? "text: the worst rank against the least, by stack"

# Under 500 MiB a rank: rank 2 asks for 550 MiB at its first event (0 of 2),
# rank 1 for its second 300 MiB at event 5 of 8; rank 0 fits. Rank 2 runs
# out first by the ranks' common clock though rank 1 peaks higher.
gms run --ranks "$HAND" --policy=ideal --capacity=500MiB --format=json
is "$rc $(sed -n "s/^$TAB$TAB$TAB\"oom\":$TAB\(.\).*/\1/p" "$TMP/out" | tr '\n' ' ')" \
    "0 n { { " "500 MiB: ranks 1 and 2 run out (oom null for rank 0, an object for 1 and 2)"
is "$(json_in job ooms) $(json_in job worst_rank) $(json_in job least_rank)" "2 2 0" \
    "the worst is the first to run out, rank 2; the least, rank 0"
is "$(json_deep job first_oom rank) $(json_deep job first_oom event) $(json_deep job first_oom events)" \
    "2 0 2" "first_oom: rank 2 at event 0 of 2"
gms run --ranks "$HAND" --policy=ideal --capacity=500MiB --fail-on-oom
is "$rc $(grep '^JOB' "$TMP/out" | cut -c1-85)" \
    "1 JOB: 2 of 3 ranks run out of memory; the first is rank 2, at event 0 of 2, 0% through" \
    "--fail-on-oom: exit 1 when any rank runs out, and the text says who first"
gms run --ranks "$HAND" --policy=ideal --capacity=600MiB --fail-on-oom
is "$rc $(grep -c "  fits  $HAND/" "$TMP/out") $(grep -c '^every rank fits in 600.00 MiB$' "$TMP/out")" \
    "0 3 1" "600 MiB: every rank fits (exit 0)"

gms run --ranks "$HAND" --policy=ideal --capacity=575MiB --fail-on-oom --format=json
is "$rc $(json_in job ooms) $(json_in job worst_rank) $(json_in job least_rank)" "1 1 1 0" \
    "575 MiB: rank 1 alone runs out (600 MiB), rank 2 fits (550): exit 1 for one rank"

# --placements: each rank under that many placements too (ideal places no
# segments: every placement of a rank is its run)
gms run --ranks "$HAND" --policy=ideal --capacity=575MiB --placements=4 --fail-on-oom --format=json
is "$rc $(json_in job ooms_any_placement) $(sed -n "s/^$TAB*\"count\":$TAB\([0-9]*\),/\1/p" "$TMP/out" | tr '\n' ' ')" \
    "1 1 0 4 0 " "--placements: rank 1 runs out under all 4 of its placements, the others under none"

# report --ranks: the worst rank's page, a row for every rank, compared with
# the least rank
gms report --ranks "$HAND" --policies=ideal --capacity=575MiB -o "$TMP/job.html"
sed -n '/<section id="ranks">/,/<\/section>/p' "$TMP/job.html" >"$TMP/ranks.html"
is "$rc $(grep -c '^<tr><td class="l">rank [02]</td>.*<td>fits</td>' "$TMP/ranks.html") $(grep -c '^<tr class="worst"><td class="l">rank 1</td><td>300.00 MiB</td>.*<td>OOM at event 5</td>' "$TMP/ranks.html")" \
    "0 2 1" "report: every rank a row, rank 1 the worst (out of memory at its event 5)"
grep -q 'This page is <code>rank 1</code>.s (after); here it is beside <code>rank 0</code> (before)' "$TMP/job.html"
ok $? "report: the page is rank 1's, compared with rank 0's"

# compare --ranks: each policy's worst rank. Under 575 MiB every policy runs
# out on rank 1; ideal reserves what is live, 300 MiB at rank 1's event 5.
gms compare --ranks "$HAND" --capacity=575MiB --policies=ideal,no-cache --format=json
is "$rc $(rank_vals worst_rank) / $(rank_vals peak_reserved) / $(json_top least_memory)" \
    "0 1 1 / $((300 * MiB)) $((300 * MiB)) / \"no-cache\"" \
    "compare: rank 1 the worst under each policy; none fits, no-cache (not ideal, the bound) named"
gms compare --ranks "$HAND" --policies=ideal,no-cache,caching
is "$rc $(grep -c '^  [a-z-]* *1 *600.00 MiB  300.00 MiB  none$' "$TMP/out") $(grep '^least memory' "$TMP/out" | cut -d' ' -f3)" \
    "0 2 no-cache" "compare: uncapped, ideal and no-cache reserve rank 1's 600 MiB"
gms compare --ranks "$PP" --policies=caching,preallocate
grep -q '^  preallocate  not run: rank 0: preallocate needs a limit to reserve' "$TMP/out"
ok $? "compare: a policy the recordings cannot run is a row that says why"
# how the winner of one trace is picked has nothing to pick among the ranks'
# worst: refused, never taken and ignored (it once answered alike, exit 0)
for o in --by=memory --by=balanced --time-bound=1%; do
	check_fail 2 "gpumemsim: error: ${o%%=*} goes with one trace, not --ranks (give it one rank's file without --ranks)" \
	    compare --ranks "$HAND" "$o"
done

# tune --ranks: tuned on the worst rank (1, here), every rank then run with
# the setting: what tune says of rank 1's file alone, and what run --ranks
# says of the job with it.
gms tune "$HAND/job-rank1.json" --format=json
alone=$(sed -n "s/^$TAB$TAB$TAB\"alloc_conf\":$TAB\"\(.*\)\",\{0,1\}\$/\1/p" "$TMP/out" | head -n 1)
gms tune --ranks "$HAND" --format=json
is "$rc $(json_top tuned_rank) $(json_top alloc_conf)" "0 1 \"$alone\"" \
    "tune: tuned on rank 1, the worst; its setting is tune's on rank 1's file"
after=$(json_in job_after peak_reserved) before=$(json_in job_before peak_reserved)
gms run --ranks "$HAND" --alloc-conf="$alone" --format=json
is "$after $before" "$(json_in job peak_reserved) $((700 * MiB))" \
    "tune: the job with it is what run --ranks says (the recorded settings: 700 MiB)"

# check --ranks: every check for every rank, named after it; exit 1 when one
# fails. 575 MiB: rank 1 (600 MiB) does not fit.
gms check --ranks "$HAND" --policy=ideal --must-fit=575MiB --format=tap
is "$rc $(grep -c '^ok' "$TMP/out") $(grep '^not ok' "$TMP/out")" \
    "1 2 not ok 2 - rank 1 must_fit: does not fit in 575.00 MiB" \
    "check: rank 1's must_fit fails, ranks 0 and 2 pass (exit 1)"
gms check --ranks "$HAND" --policy=ideal --must-fit=575MiB
is "$(head -n 1 "$TMP/out")" "check 3 ranks of one job: policy ideal, capacity unlimited" \
    "check: the text names the job"
gms check --ranks "$HAND" --policy=ideal --must-fit=600MiB --max-peak-reserved=600MiB --format=json
is "$rc $(json_top passed) $(json_top failed) $(grep -c "^$TAB$TAB$TAB\"rank\":" "$TMP/out")" "0 true 0 3" \
    "check: 600 MiB, every rank passes both checks; JSON lists the ranks"
check_fail 2 "gpumemsim: error: --baseline goes with one trace or --at, not --ranks (give it one rank's file without --ranks)" \
    check --ranks "$HAND" --baseline="$HAND/job-rank0.json"

# Files named in any order, with the rank elsewhere in the name; without a
# rank in every name, the order given.
cp "$HAND/job-rank0.json" "$TMP/snap_2.json"
cp "$HAND/job-rank1.json" "$TMP/snap_0.json"
gms run --ranks "$TMP/snap_2.json" "$TMP/snap_0.json" --policy=ideal --format=json
is "$rc $(rank_vals rank) / $(rank_vals peak_reserved) $(json_top ranks_from)" \
    "0 0 2 / $((600 * MiB)) $((300 * MiB)) \"names\"" "snap_N: the rank before the extension"
cp "$HAND/job-rank2.json" "$TMP/other.json"
gms run --ranks "$TMP/snap_2.json" "$TMP/other.json" --policy=ideal --format=json
is "$rc $(rank_vals rank) / $(rank_vals peak_reserved) $(json_top ranks_from)" \
    "0 0 1 / $((300 * MiB)) $((550 * MiB)) \"order\"" "a name without a rank: the order given"
check_fail 3 "gpumemsim: error: rank 0 is named twice: $TMP/snap_0.json and $HAND/job-rank0.json" \
    run --ranks "$TMP/snap_0.json" "$HAND/job-rank0.json"
check_fail 3 "gpumemsim: error: -: the ranks are files (standard input cannot be one, it is read once)" \
    run --ranks "$HAND/job-rank0.json" -
mkdir "$TMP/empty"
check_fail 3 "gpumemsim: error: $TMP/empty: no traces in this directory (snapshots .pickle, traces .json or .jsonl, RMM logs .csv, profiles .pb)" \
    run --ranks "$TMP/empty"
check_fail 2 "gpumemsim: error: --by-site goes with one trace, not --ranks (give it one rank's file without --ranks)" \
    run --ranks "$HAND" --by-site
check_fail 2 "gpumemsim: error: more than one trace given" run "$HAND/job-rank0.json" "$HAND/job-rank1.json"
printf '{"format":"gpumemsim-trace","version":1,"events":[{"op":"free","id":7}]}\n' >"$TMP/rank_1.json"
gms run --ranks "$HAND/job-rank0.json" "$TMP/rank_1.json"
case "$rc $(head -n 1 "$TMP/err")" in
"3 gpumemsim: error: rank 1: $TMP/rank_1.json: "*) ok 0 "a bad rank's error names its rank and its file" ;;
*) ok 1 "a bad rank's error names its rank and its file: $(head -n 1 "$TMP/err")" ;;
esac

# plan --ranks: the capacity every rank needs is the neediest rank's (rank
# 1's 600 MiB under ideal); a GPU fits the job when it fits every rank. On
# 1100 MiB less 512 MiB of context (588 MiB) rank 1 runs out at its event 5
# while rank 2 (550 MiB) fits; on 1200 MiB (688 MiB) all fit, rank 1 with the
# least headroom, 88 MiB.
gms plan --ranks "$HAND" --policies=ideal --gpus=1100MiB,1200MiB --format=json
job() { sed -n "/^$TAB\"job\":/,\$p" "$TMP/out" | sed -n "s/^$TAB*\"$1\":$TAB\([^,]*\),\{0,1\}\$/\1/p" |
    tr '\n' ' ' | sed 's/ $//'; }
is "$rc $(job min_capacity) $(job rank)" "0 $((600 * MiB)) 1" \
    "plan: the job needs rank 1's 600 MiB a GPU"
is "$(job fits) / $(job first_oom_rank) $(job oom_event) / $(job headroom)" \
    "false true / 1 5 / $((88 * MiB))" \
    "plan: 1100 MiB, rank 1 runs out at event 5; 1200 MiB, all fit with 88 MiB to spare"
gms plan --ranks "$HAND" --policies=ideal --gpus=1100MiB,1200MiB
is "$rc $(grep -c '^  1100MiB .*rank 1 OOM @5$' "$TMP/out") $(grep -c '^  1200MiB .*all fit +88.00 MiB$' "$TMP/out")" \
    "0 1 1" "plan: the GPU table, a cell for the whole job"
check_fail 2 "gpumemsim: error: give --ranks or --at, not both" \
    plan --ranks --at 1 "$HAND/job-rank0.json" --at 2 "$HAND/job-rank1.json"

# A real pipeline-parallel job (4 stages of a 12-layer decoder; rank 3 holds
# the LM head and the loss), each rank recorded in a process of its own on
# the H200: every rank's run equals its memory_stats().
gms run --ranks "$PP" --format=json
want_r="" want_a="" want_d=""
for r in 0 1 2 3; do
	want_r="$want_r $(facts $r reserved_bytes.all.peak)"
	want_a="$want_a $(facts $r allocated_bytes.all.peak)"
	want_d="$want_d $(facts $r num_device_alloc)"
done
is "$rc $(rank_vals peak_reserved)" "0$want_r" "every rank's peak reserved is its recording's"
is "$(rank_vals peak_allocated)" "${want_a# }" "... its peak allocated"
is "$(rank_vals device_allocs)" "${want_d# }" "... its device allocations"
is "$(json_in job worst_rank) $(json_in job peak_reserved) $(json_in job least_rank)" \
    "3 $(facts 3 reserved_bytes.all.peak) 1" \
    "the worst rank is the one holding the head (3); the least, the first of two equal middles (1)"
is "$(json_in job spread)" "$(($(facts 3 reserved_bytes.all.peak) - $(facts 1 reserved_bytes.all.peak)))" \
    "the spread: rank 3's peak less rank 1's"
is "$(json_in job observed) $(json_in job reproduced)" "4 4" "4 of 4 ranks reproduced exactly"
gms run --ranks "$PP"
grep -q '^observed: 4 of 4 ranks reproduced exactly$' "$TMP/out"
ok $? "text: 4 of 4 reproduced"
# what rank 3 holds beyond rank 1, by stack: the head's logits (32000 x 4 x
# 256 floats, 125 MiB a micro-batch, four of them) grew most
grep -A3 '^What grew, by stack' "$TMP/out" | grep -q 'addmm'
ok $? "the stacks that grew start with the head's matmul (addmm)"
# plan: the job needs what its neediest rank's own plan says
gms plan "$PP/pp-rank3.pickle.gz" --policies=caching,ideal --gpus=L4 --format=json
alone=$(sed -n "s/^$TAB$TAB$TAB\"min_capacity\":$TAB\([0-9]*\),\{0,1\}\$/\1/p" "$TMP/out" | tr '\n' ' ')
gms plan --ranks "$PP" --policies=caching,ideal --gpus=L4 --format=json
is "$rc $(job min_capacity) $(job rank)" "0 $(echo $alone) 3 3" \
    "plan: every rank needs rank 3's own smallest capacity, under each policy"
is "$(job fits)" "true true" "plan: an L4 fits every rank"
# A real process group on the one GPU: DDP over gloo at world size 2 (each
# rank its own process and allocator on the shared card; rank 1's sequences
# twice rank 0's) and FSDP over NCCL at world size 1. Given the driver's
# addresses every rank is its recording (the placement model cannot know
# where the other rank's process sits on the card: rank 0 misses a segment
# there, doc/placement.md).
for job in ddp fsdp; do
	gms run --ranks "$PP/$job" --placement=recorded --format=json
	want="" n=0
	for f in "$PP/$job/facts/"*.facts.json; do
		want="$want $(sed -n 's/^  "reserved_bytes.all.peak": \([0-9]*\),\{0,1\}$/\1/p' "$f")"
		n=$((n + 1))
	done
	is "$rc $(rank_vals peak_reserved) / $(json_in job reproduced)" "0${want} / $n" \
	    "$job: every rank's peak reserved is its recording's, $n of $n reproduced"
done
gms run --ranks "$PP/fsdp"
is "$(head -n 1 "$TMP/out") / $(grep '^observed' "$TMP/out")" \
    "1 rank (ranks from the files' names), caching, capacity unlimited / observed: 1 of 1 rank reproduced exactly" \
    "FSDP at world size 1: one rank, reproduced under the placement model too"
# the same files by name, in any order, are the same job
gms run --ranks "$PP/pp-rank3.pickle.gz" "$PP/pp-rank0.pickle.gz" "$PP/pp-rank2.pickle.gz" \
    "$PP/pp-rank1.pickle.gz" --format=json
is "$rc $(rank_vals rank)" "0 0 1 2 3" "files in any order: ranks from their names"

# info --ranks: the live bytes side by side.  Hand-worked: live peaks of
# 300, 600 and 550 MiB; the pipeline's ranks against memory_stats()'s
# requested_bytes.all.peak (the program's own bytes, before the allocator).
gms info --ranks "$HAND" --format=json
is "$rc $(rank_vals rank) / $(rank_vals peak_live) / $(json_in job largest_rank) $(json_in job least_rank) $(json_in job spread)" \
    "0 0 1 2 / $((300 * MiB)) $((600 * MiB)) $((550 * MiB)) / 1 0 $((300 * MiB))" \
    "info --ranks: each rank's live peak, the largest (rank 1) and the spread"
gms info --ranks "$PP" --format=json
want=
for r in 0 1 2 3; do
	want="$want $(sed -n 's/^  "requested_bytes.all.peak": \([0-9]*\),\{0,1\}$/\1/p' "$PP/facts/pp-rank$r.facts.json")"
done
is "$rc$want / $(json_in job largest_rank)" "0 $(rank_vals peak_live) / 3" \
    "info --ranks: every pipeline rank's live peak is its requested_bytes.all.peak; rank 3 the largest"
gms info --ranks "$HAND"
is "$(grep '^JOB' "$TMP/out")" \
    "JOB: the largest live peak is rank 1's, 600.00 MiB (event 5 of 8); the least, rank 0's, 300.00 MiB: a spread of 300.00 MiB (50.0% of the largest)" \
    "info --ranks text: rank 1 peaks at its event 5 of 8 (its note says so), 300 MiB above rank 0"

# The rank from a file's contents: a DDP job (gloo, world size 2, both ranks
# on the one card) profiled on every rank with profile_memory=True, written
# by tensorboard_trace_handler as HOST_PID.TIME.pt.trace.json
# (t/data/gen/record_ranks_profile.py): the names say pids 534 and 535, the
# profiles' distributedInfo ranks 0 and 1; each rank's peak reserved is its
# memory_stats() (t/data/ranks/profile/facts).
PROF=$PP/profile
P0=$PROF/vm_534.1796403419977886576.pt.trace.json.gz
P1=$PROF/vm_535.1796403419979232242.pt.trace.json.gz
pfact() {	# RANK KEY
	sed -n "s/^ \"$2\": \([0-9]*\),\{0,1\}\$/\1/p" "$PROF/facts/facts-rank$1.json"
}
gms run --ranks "$P1" "$P0" --format=json
is "$rc $(rank_vals rank) / $(rank_vals peak_reserved) / $(rank_vals device_allocs) $(json_top ranks_from)" \
    "0 0 1 / $(pfact 0 peak_reserved) $(pfact 1 peak_reserved) / $(pfact 0 device_allocs) $(pfact 1 device_allocs) \"contents\"" \
    "profiles named by pid: ranks from their distributedInfo, each its memory_stats()"
gms run --ranks "$PROF"
is "$(head -n 1 "$TMP/out") / $(grep '^JOB' "$TMP/out" | cut -c1-36) / $(grep '^observed' "$TMP/out")" \
    "2 ranks (ranks from the files' contents), caching, capacity unlimited / JOB: the worst rank is 1, 256.00 MiB / observed: 2 of 2 ranks reproduced exactly" \
    "text: the ranks' source, rank 1 the worst (its sequences twice rank 0's), both reproduced"
# "rank" in every name still wins; a rank said twice by contents is refused
cp "$P0" "$TMP/job-rank7.pt.trace.json.gz"
cp "$P1" "$TMP/job-rank5.pt.trace.json.gz"
gms run --ranks "$TMP/job-rank7.pt.trace.json.gz" "$TMP/job-rank5.pt.trace.json.gz" --format=json
is "$rc $(rank_vals rank) / $(rank_vals peak_reserved) $(json_top ranks_from)" \
    "0 5 7 / $(pfact 1 peak_reserved) $(pfact 0 peak_reserved) \"names\"" \
    "rank7/rank5 in the names: ranks from the names"
cp "$P0" "$TMP/a.pt.trace.json.gz"
cp "$P0" "$TMP/b.pt.trace.json.gz"
check_fail 3 "gpumemsim: error: rank 0 is named twice: $TMP/a.pt.trace.json.gz and $TMP/b.pt.trace.json.gz" \
    run --ranks "$TMP/a.pt.trace.json.gz" "$TMP/b.pt.trace.json.gz"
gms plan --ranks "$PROF" --format=json
is "$rc $(json_top ranks_from)" '0 "contents"' "plan --ranks: ranks from the contents too"

# File names with control characters are shown with '?' (issue 55: an
# escape sequence and a newline were printed as they are)
mkdir -p "$TMP/esc"
cp "$TOP_SRCDIR/t/data/ranks/hand/job-rank0.json" "$TMP/esc/job-rank0-$(printf '\033')[31m.json"
cp "$TOP_SRCDIR/t/data/ranks/hand/job-rank1.json" "$TMP/esc/job-rank1-a$(printf '\nb').json"
for c in run info; do
	gms $c --ranks "$TMP/esc"
	is "$rc $(tr -d '\n' <"$TMP/out" | grep -c "$(printf '\033')") $(grep -c 'esc/job-rank0-?\[31m.json$' "$TMP/out") $(grep -c 'esc/job-rank1-a?b.json$' "$TMP/out")" \
	    "0 0 1 1" "$c --ranks: an escape and a newline in file names shown as '?'"
done
# a stack's frames with an escape and a tab: '?' in --folded (whose lines
# are frames joined by ';', then a space and the bytes)
printf '{"format":"gpumemsim-trace","version":1}\n{"op":"alloc","id":1,"size":8,"stack":"a\\u001b[31m.py:1 f\\tx\\nmain.py:2 g\\n"}\n' >"$TMP/esc.jsonl"
gms run "$TMP/esc.jsonl" --folded
is "$rc $(cat "$TMP/out")" "0 main.py:2 g;a?[31m.py:1 f?x 8" "run --folded: control characters in frames as '?'"

# One file twice, under two names, is one recording (issue 55: with ranks
# in the order given it was two ranks of one job)
cp "$HAND/job-rank0.json" "$TMP/order-a.json"
ln -s "$TMP/order-a.json" "$TMP/order-b.json"
check_fail 3 "gpumemsim: error: $TMP/order-a.json and $TMP/order-b.json are one file: each rank is a recording of its own" \
    run --ranks "$TMP/order-a.json" "$TMP/order-b.json"

done_testing

