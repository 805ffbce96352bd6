/*
 * groundtruth-pytorch.c - the caching policy against what PyTorch 2.11's real
 * allocator did on an H200 (t/data/pytorch.json, from shared/data):
 *
 *  1. given each recorded run's own segment addresses (address_runs), every
 *     default-setting run is reproduced exactly: peak reserved, the OOM event
 *     (or none), and the numbers of segments reserved and released;
 *  2. with the placement model (the driver's rules measured on the H200,
 *     doc/placement.md), peak reserved and the OOM event equal at least 98%
 *     of the default-setting `runs` (issue 17), and run by run as
 *     t/data/expect/pytorch-default.txt records (any change fails);
 *  3. with the trace's own segment_alloc events as addresses, each recorded
 *     trace reproduces its recording: the same segment sizes before the same
 *     events, and the observed peak reserved.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/gtload.h"
#include "t/tap.h"
#include "traces/trace.h"

/* The OOM event of a run: index + 1, or 0 for none. */
static uint64_t
oom_of(const cJSON *run)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(run, "oom");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(run, "oom_event");

	if (cJSON_IsObject(o))
		return gt_u64(o, "event") + 1;
	if (cJSON_IsNumber(e))
		return (uint64_t)e->valuedouble + 1;
	return 0;
}

/* Replay a sample trace over dev; flags as sim_create's. */
static void
replay(const char *name, struct device *dev, unsigned flags, struct sim_result *res)
{
	char *path, *cause = NULL;
	struct trace_reader *r;
	struct sim *s;

	path = gt_sample_path(name);
	if (trace_open(path, &r, &cause) < 0 ||
	    (s = sim_create(&policy_caching, NULL, dev, flags, &cause)) == NULL ||
	    sim_replay(s, r, &cause) < 0) {
		printf("Bail out! %s: %s\n", path, cause);
		exit(1);
	}
	sim_result(s, res);
	sim_destroy(s);
	trace_close(r);
	free(path);
}

static void
address_runs(const cJSON *gt)
{
	const cJSON *trace, *run, *seg;
	struct sim_result res;
	struct device *dev;
	uint64_t allocs, frees, limit;
	int i;

	cJSON_ArrayForEach(trace, cJSON_GetObjectItemCaseSensitive(gt, "address_runs")) {
		i = 0;
		cJSON_ArrayForEach(run, trace) {
			limit = gt_u64(run, "limit");
			dev = device_recorded_create(limit);
			allocs = frees = 0;
			cJSON_ArrayForEach(seg, cJSON_GetObjectItemCaseSensitive(run, "segments")) {
				const char *kind = cJSON_GetArrayItem(seg, 0)->valuestring;

				if (strcmp(kind, "a") == 0) {
					device_recorded_push(dev,
					    (uint64_t)cJSON_GetArrayItem(seg, 1)->valuedouble,
					    (uint64_t)cJSON_GetArrayItem(seg, 2)->valuedouble);
					allocs++;
				} else {
					frees++;
				}
			}
			replay(trace->string, dev, 0, &res);
			is_u64(res.peak_reserved, gt_u64(run, "peak_reserved"),
			    "recorded addresses: %s run %d (limit %llu): peak reserved",
			    trace->string, i, (unsigned long long)limit);
			is_u64(res.oomed ? res.oom.event + 1 : 0, oom_of(run),
			    "recorded addresses: %s run %d: OOM event (+1, 0 = none)", trace->string, i);
			is_u64(res.device_allocs, allocs,
			    "recorded addresses: %s run %d: segments reserved", trace->string, i);
			is_u64(res.device_frees, frees,
			    "recorded addresses: %s run %d: segments released", trace->string, i);
			{
				struct device_recorded_stats st;

				device_recorded_stats(dev, &st);
				is_u64(st.diverged, 0, "recorded addresses: %s run %d: every segment "
				    "had its recorded size, in order", trace->string, i);
			}
			device_destroy(dev);
			i++;
		}
	}
}

static void
model_runs(const cJSON *gt)
{
	const cJSON *trace, *run;
	struct gt_expect *expect = gt_expect_open("pytorch-default");
	struct sim_result res;
	struct device *dev;
	int total = 0, agree = 0, i;
	uint64_t limit;

	cJSON_ArrayForEach(trace, cJSON_GetObjectItemCaseSensitive(gt, "runs")) {
		i = 0;
		cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(trace, "(default)")) {
			limit = gt_u64(run, "limit");
			dev = device_sim_create(limit);
			replay(trace->string, dev, 0, &res);
			total++;
			agree += res.peak_reserved == gt_u64(run, "peak_reserved") &&
			    (res.oomed ? res.oom.event + 1 : 0) == oom_of(run);
			gt_expect_result(expect, "(default)", trace->string, i, run, &res);
			device_destroy(dev);
			i++;
		}
	}
	gt_expect_close(expect);
	diag("placement model: %d of %d default-setting runs reproduced (%.1f%%)",
	    agree, total, 100.0 * agree / (total ? total : 1));
	ok(total >= 56, "every default-setting run was tried (%d)", total);
	ok(agree * 100 >= total * 98, "at least 98%% of the default runs reproduced (%d of %d)",
	    agree, total);
}

static void
own_recordings(void)
{
	static const char *const names[] = {
		"resnet50-train-b32", "resnet50-train-b32-prefetch", "gpt2-train-varlen-bf16",
	};
	struct device_recorded_stats st;
	struct sim_result res;
	struct trace_reader *r;
	struct device *dev;
	char *path, *cause = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		dev = device_recorded_create(0);
		replay(names[i], dev, SIM_FEED_RECORDED, &res);
		device_recorded_stats(dev, &st);
		path = gt_sample_path(names[i]);
		if (trace_open(path, &r, &cause) < 0) {
			printf("Bail out! %s\n", cause);
			exit(1);
		}
		ok(res.observed_segments > 0, "%s: the trace records its segments (%llu)",
		    names[i], (unsigned long long)res.observed_segments);
		is_u64(res.segment_mismatches, 0, "%s: every simulated segment has the recorded "
		    "size, before the same event", names[i]);
		is_u64(res.device_allocs, res.observed_segments, "%s: as many segments as recorded",
		    names[i]);
		is_u64(st.used, res.observed_segments, "%s: every recorded address was used",
		    names[i]);
		is_u64(res.peak_reserved, gt_u64(trace_header(r)->observed, "peak_reserved"),
		    "%s: observed peak reserved", names[i]);
		is_u64(res.peak_allocated, gt_u64(trace_header(r)->observed, "peak_allocated"),
		    "%s: observed peak allocated", names[i]);
		is_u64(res.peak_requested, gt_u64(trace_header(r)->observed, "peak_requested"),
		    "%s: observed peak requested", names[i]);
		trace_close(r);
		free(path);
		device_destroy(dev);
	}
}

int
main(void)
{
	cJSON *gt = gt_load("t/data/pytorch.json");

	address_runs(gt);
	model_runs(gt);
	own_recordings();
	cJSON_Delete(gt);
	return tap_done();
}
