/*
 * groundtruth-placements.c - --placements against PyTorch runs that
 * disagreed (issue 17).  The shared ground truth ran each trace's default
 * setting twice: in fresh processes (`runs`) and in one that had reserved
 * before (`address_runs`), whose driver placed segments elsewhere; for
 * synth-kvcache-10 the two disagree on peak reserved or the OOM event in six
 * of seven runs.  Both real outcomes of every such pair, and of every other
 * run, must fall inside the range of 16 placements: peak reserved within
 * [min, max], an OOM event within the placements' OOM events, and a run
 * that fitted only where some placement fits.
 *
 * And real runs with hidden reservations: replay/hidden_probe.py reran
 * every default run on the H200 three times beside reservations made
 * through the driver API, drawn independently of gpumemsim's own
 * (t/data/placement/hidden-probe.json, 168 runs, 7 of them with another
 * outcome than the fresh run): 167 fall inside the range of 16 placements
 * (the one outside is synth-kvcache-10 in 1480597504 bytes, seed 1: peak
 * 1472200704, the placements' lowest 1474297856), and all 168 inside 32.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/placements.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "t/gtload.h"
#include "t/tap.h"

#define N 16

static uint64_t
oom_of(const cJSON *run, const char *key)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(run, key);

	if (cJSON_IsObject(o))
		return gt_u64(o, "event") + 1;
	return cJSON_IsNumber(o) ? gt_u64(run, key) + 1 : 0;
}

/* Is the outcome (peak, OOM event + 1 or 0) inside p's range? */
static int
inside(const struct placements *p, uint64_t peak, uint64_t oom)
{
	if (peak < p->peak_min || peak > p->peak_max)
		return 0;
	if (oom == 0)
		return p->ooms < p->n;
	return p->ooms > 0 && oom - 1 >= p->oom_first && oom - 1 <= p->oom_last;
}

/* Is it inside the range of p's first k placements (seeds 0 .. k-1)? */
static int
inside_first(const struct placements *p, size_t k, uint64_t peak, uint64_t oom)
{
	int fits = 0, at = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < k; i++) {
		const struct placement_run *r = &p->runs[i];

		lo = GMS_MIN(lo, r->peak_reserved);
		hi = GMS_MAX(hi, r->peak_reserved);
		fits |= !r->oomed;
		at |= r->oomed && oom != 0 && r->oom_event <= oom - 1;
		at |= (r->oomed && oom != 0 && r->oom_event >= oom - 1) << 1;
	}
	if (peak < lo || peak > hi)
		return 0;
	return oom == 0 ? fits : at == 3;
}

/* The hidden-reservation runs: inside 16 placements and 32. */
static void
hidden_runs(void)
{
	cJSON *rows = gt_load("t/data/placement/hidden-probe.json"), *row, *prev = NULL;
	struct placements p = { 0 };
	int n = 0, in16 = 0, in32 = 0, outside16_known = 0;

	cJSON_ArrayForEach(row, rows) {
		const char *trace = cJSON_GetObjectItemCaseSensitive(row, "trace")->valuestring;
		uint64_t limit = gt_u64(row, "limit"), peak = gt_u64(row, "peak_reserved");
		uint64_t oom = oom_of(row, "oom_event");
		int a, b;

		/* rows come three seeds to a run: one range for the three */
		if (prev == NULL || strcmp(trace, cJSON_GetObjectItemCaseSensitive(prev,
		    "trace")->valuestring) != 0 || gt_u64(prev, "limit") != limit) {
			char *path = gt_sample_path(trace), *cause = NULL;
			struct run_spec spec = { .path = path, .policy = &policy_caching,
			    .capacity = limit, .device = -1, .stop_at_oom = limit != 0 };

			placements_free(&p);
			if (placements_run(&spec, 2 * N, 2, &p, &cause) < 0) {
				printf("Bail out! %s\n", cause);
				exit(1);
			}
			free(path);
		}
		prev = row;
		a = inside_first(&p, N, peak, oom);
		b = inside(&p, peak, oom);
		n++;
		in16 += a;
		in32 += b;
		if (!a && strcmp(trace, "synth-kvcache-10") == 0 && limit == 1480597504 &&
		    gt_u64(row, "seed") == 1)
			outside16_known++;
		if (!b)
			diag("%s, limit %llu, seed %llu: outside 32 placements' range", trace,
			    (unsigned long long)limit, (unsigned long long)gt_u64(row, "seed"));
	}
	placements_free(&p);
	diag("real runs beside hidden reservations inside the range: %d of %d (16 placements), "
	    "%d of %d (32)", in16, n, in32, n);
	is_u64((uint64_t)n, 168, "every hidden-reservation run tried");
	is_u64((uint64_t)in16, 167, "167 of 168 inside the range of 16 placements");
	is_u64((uint64_t)outside16_known, 1, "the one outside is the documented one");
	is_u64((uint64_t)in32, 168, "all 168 inside the range of 32");
	cJSON_Delete(rows);
}

int
main(void)
{
	cJSON *gt = gt_load("t/data/pytorch.json"), *trace, *arun;
	int pairs = 0, pairs_in = 0, outcomes = 0, outcomes_in = 0;

	cJSON_ArrayForEach(trace, cJSON_GetObjectItemCaseSensitive(gt, "address_runs")) {
		const cJSON *runs = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(gt, "runs"),
		    trace->string), "(default)");
		char *path = gt_sample_path(trace->string);

		cJSON_ArrayForEach(arun, trace) {
			uint64_t limit = gt_u64(arun, "limit"), fresh_peak = 0, fresh_oom = 0;
			uint64_t peak = gt_u64(arun, "peak_reserved"), oom = oom_of(arun, "oom_event");
			struct run_spec spec = { .path = path, .policy = &policy_caching,
			    .capacity = limit, .device = -1, .stop_at_oom = limit != 0 };
			struct placements p;
			const cJSON *run;
			char *cause = NULL;
			int a, b;

			cJSON_ArrayForEach(run, runs)
				if (gt_u64(run, "limit") == limit) {
					fresh_peak = gt_u64(run, "peak_reserved");
					fresh_oom = oom_of(run, "oom");
				}
			if (placements_run(&spec, N, 2, &p, &cause) < 0) {
				printf("Bail out! %s\n", cause);
				return 1;
			}
			a = inside(&p, fresh_peak, fresh_oom);
			b = inside(&p, peak, oom);
			outcomes += 2;
			outcomes_in += a + b;
			if (fresh_peak != peak || fresh_oom != oom) {
				pairs++;
				pairs_in += a && b;
				ok(a && b, "%s, limit %llu: PyTorch's two runs (peak %llu, OOM %s%llu; "
				    "peak %llu, OOM %s%llu) inside %d placements' range (peak %llu .. "
				    "%llu, %zu OOM at %llu .. %llu)", trace->string,
				    (unsigned long long)limit, (unsigned long long)fresh_peak,
				    fresh_oom ? "" : "none ", (unsigned long long)(fresh_oom ?
				    fresh_oom - 1 : 0), (unsigned long long)peak, oom ? "" : "none ",
				    (unsigned long long)(oom ? oom - 1 : 0), N,
				    (unsigned long long)p.peak_min, (unsigned long long)p.peak_max,
				    p.ooms, (unsigned long long)p.oom_first,
				    (unsigned long long)p.oom_last);
			} else if (!a) {
				diag("%s, limit %llu: the real outcome is outside the range",
				    trace->string, (unsigned long long)limit);
			}
			/* placement 0 is the model's prediction, the run without --placements */
			{
				struct run_output out;

				if (run_simulate(&spec, &out, &cause) < 0) {
					printf("Bail out! %s\n", cause);
					return 1;
				}
				ok(out.res.peak_reserved == p.runs[0].peak_reserved &&
				    out.res.peak_reserved == p.model.res.peak_reserved &&
				    out.res.oomed == p.runs[0].oomed &&
				    (!out.res.oomed || out.res.oom.event == p.runs[0].oom_event), "%s, limit %llu: placement 0 is the "
				    "model's prediction", trace->string, (unsigned long long)limit);
				run_output_free(&out);
			}
			placements_free(&p);
		}
		free(path);
	}
	diag("pairs of PyTorch runs that disagree: %d, both outcomes inside the range: %d",
	    pairs, pairs_in);
	diag("real outcomes inside the range of %d placements: %d of %d", N, outcomes_in,
	    outcomes);
	ok(pairs >= 6, "the ground truth has the six disagreeing pairs (%d)", pairs);
	is_u64((uint64_t)outcomes_in, (uint64_t)outcomes, "every real outcome is inside the range");
	cJSON_Delete(gt);
	hidden_runs();
	return tap_done();
}
