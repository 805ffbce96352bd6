#!/bin/sh
# bench/shapes.sh - the commands on the shapes users have (issue 34): each
# bundled real trace (ResNet-50 training, its prefetching two-stream run,
# GPT-2 with variable lengths, a KV-cache server) tiled to EVENTS events
# (default 1M) as JSON Lines, each copy's ids and times after the last and
# what the recording leaves allocated freed at each copy's end (the segments
# the recording observed kept in the first copy alone: a copy was never run);
# `run`, `plan` and `tune` timed on each (GNU time: wall seconds, max RSS);
# then an RMM log (t/data/rmm/random-1.csv: two threads, several streams)
# tiled the same way, each copy's pointers 2^40 higher and what it leaves
# allocated freed at its end, through run, plan,
# tune and compare (RMM's resources: its own default set).
#   bench/shapes.sh [EVENTS]
# SHAPES_KEEP=DIR keeps each tiled trace there (DIR/NAME.jsonl, DIR/rmm-random-1.csv).
# The issue's targets on the tiled ResNet-50 at 1M events, 2 cores: plan
# <= 1.5 s, tune <= 1 s.
set -eu
cd "$(dirname "$0")/.."
make -s gpumemsim
events=${1:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gms-shapes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for t in resnet50-train-b32.json resnet50-train-b32-prefetch.json \
    gpt2-train-varlen-bf16.jsonl.gz synth-kvcache-10.json; do
	name=${t%%.*}
	./gpumemsim convert "traces/$t" "$tmp/one.jsonl" >/dev/null
	# copies until EVENTS: ids offset past the largest, times past the last
	awk -v want="$events" -v name="$name" '
		NR == 1 { next }
		{ line[++n] = $0
		  if (match($0, /"id":[0-9]+/)) { v = substr($0, RSTART + 5, RLENGTH - 5) + 0; if (v > maxid) maxid = v
			# what the recording leaves allocated, freed at the end of
			# each copy (live memory bounded, as in a long job)
			if ($0 ~ /"op":"alloc"/) left[v] = 1; else if ($0 ~ /"op":"free"/) delete left[v] }
		  if (match($0, /"t_us":[0-9]+/)) { v = substr($0, RSTART + 7, RLENGTH - 7) + 0
			if (v > maxt) maxt = v; if (mint == "" || v < mint) mint = v } }
		END {
			printf "{\"format\":\"gpumemsim-trace\",\"version\":1,\"name\":\"%s-tiled\"}\n", name
			for (k = 0; out < want; k++) {
				for (i = 1; i <= n && out < want; i++) {
					s = line[i]
					# observed segments: of the recording, not of a copy
					if (k > 0 && s ~ /"op":"segment_/)
						continue
					if (match(s, /"id":[0-9]+/))
						s = substr(s, 1, RSTART + 4) (substr(s, RSTART + 5, RLENGTH - 5) + k * (maxid + 1)) substr(s, RSTART + RLENGTH)
					if (match(s, /"t_us":[0-9]+/))
						s = substr(s, 1, RSTART + 6) sprintf("%.0f", substr(s, RSTART + 7, RLENGTH - 7) + k * (maxt - mint + 1000)) substr(s, RSTART + RLENGTH)
					print s; out++
				}
				for (v in left)
					if (out < want) {
						printf "{\"op\":\"free\",\"id\":%d,\"t_us\":%.0f}\n", v + k * (maxid + 1), maxt + 500 + k * (maxt - mint + 1000)
						out++
					}
			}
		}' "$tmp/one.jsonl" >"$tmp/t.jsonl"
	[ -n "${SHAPES_KEEP:-}" ] && cp "$tmp/t.jsonl" "$SHAPES_KEEP/$name.jsonl"
	for cmd in run plan tune; do
		/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim $cmd "$tmp/t.jsonl" \
		    >"$tmp/out" 2>&1 || { sed 's/^/# /' "$tmp/out" | head -n 3; }
		read -r secs kib <"$tmp/time"
		printf "%-30s %-5s %9d events %7.2f s %8.1f MiB max RSS\n" "$name" "$cmd" "$events" \
		    "$secs" "$(echo "$kib" | awk '{ print $1 / 1024 }')"
	done
done
# the RMM log: copies with pointers and times past the last (mawk has no
# strtonum: hex by hand)
awk -F, -v want="$events" '
	function hex2num(s,   i, v) {
		v = 0
		s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function num2hex(v,   s, d) {
		s = ""
		while (v > 0) { d = v % 16; s = substr("0123456789abcdef", d + 1, 1) s; v = (v - d) / 16 }
		return "0x" (s == "" ? "0" : s)
	}
	NR == 1 { header = $0; next }
	{ line[++n] = $0; split($0, f, ","); if (f[2] + 0 > maxt) maxt = f[2] + 0
	  # what the log leaves allocated: freed at the end of each copy, so
	  # that live memory stays bounded as in a long job
	  if (f[3] == "allocate") left[f[4]] = $0; else if (f[3] == "free") delete left[f[4]] }
	END {
		print header
		for (k = 0; out < want; k++) {
			for (i = 1; i <= n && out < want; i++) {
				split(line[i], f, ",")
				printf "%s,%.6f,%s,%s,%s,%s\n", f[1], f[2] + k * (maxt + 0.001), f[3],
				    num2hex(hex2num(f[4]) + k * 1099511627776), f[5], f[6]
				out++
			}
			for (p in left) {
				if (out >= want)
					break
				split(left[p], f, ",")
				printf "%s,%.6f,free,%s,%s,%s\n", f[1], maxt + 0.0005 + k * (maxt + 0.001),
				    num2hex(hex2num(f[4]) + k * 1099511627776), f[5], f[6]
				out++
			}
		}
	}' t/data/rmm/random-1.csv >"$tmp/rmm.csv"
[ -n "${SHAPES_KEEP:-}" ] && cp "$tmp/rmm.csv" "$SHAPES_KEEP/rmm-random-1.csv"
for cmd in run plan tune compare; do
	cap=--capacity=80GiB
	[ "$cmd" = plan ] && cap=--gpu=H100-SXM	# plan searches the capacity itself
	/usr/bin/env time -f "%e %M" -o "$tmp/time" ./gpumemsim $cmd "$tmp/rmm.csv" $cap \
	    >"$tmp/out" 2>&1 || { sed 's/^/# /' "$tmp/out" | head -n 3; }
	read -r secs kib <"$tmp/time"
	printf "%-30s %-7s %9d events %7.2f s %8.1f MiB max RSS\n" "rmm-random-1" "$cmd" "$events" \
	    "$secs" "$(echo "$kib" | awk '{ print $1 / 1024 }')"
done
