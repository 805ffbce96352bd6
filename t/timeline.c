/*
 * timeline.c - analysis/timeline.c against PyTorch's real allocator: for
 * every sample with recorded addresses, the uncapped default run's reserved
 * bytes at every change (t/data/pytorch.json, `reserved_timeline`) are
 * exactly the reserved column of our every-change timeline; and an envelope
 * of a few rows still holds the real peak, at the real event it was reached.
 *
 * The timeline was recorded in a different run from the addresses; where the
 * driver placed segments differently in the two (their peaks differ: only
 * synth-kvcache-10, 1520435200 against 1543503872 bytes) the addresses cannot
 * give that timeline, and the envelope is checked against the address run's
 * own peak instead.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "analysis/timeline.h"
#include "sim/device.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "t/gtload.h"
#include "t/tap.h"
#include "traces/trace.h"

/* Replay name over the uncapped run's recorded segments into tl. */
static void
replay(const char *name, const cJSON *addr_run, struct timeline *tl)
{
	char *path = gt_sample_path(name), *cause = NULL;
	struct device *dev = device_recorded_create(0);
	struct trace_reader *r;
	const cJSON *seg;
	struct sim *s;

	cJSON_ArrayForEach(seg, cJSON_GetObjectItemCaseSensitive(addr_run, "segments"))
		if (strcmp(cJSON_GetArrayItem(seg, 0)->valuestring, "a") == 0)
			device_recorded_push(dev, (uint64_t)cJSON_GetArrayItem(seg, 1)->valuedouble,
			    (uint64_t)cJSON_GetArrayItem(seg, 2)->valuedouble);
	if (trace_open(path, &r, &cause) < 0 ||
	    (s = sim_create(&policy_caching, NULL, dev, 0, &cause)) == NULL) {
		printf("Bail out! %s: %s\n", path, cause);
		exit(1);
	}
	sim_set_sampler(s, timeline_sample, tl);
	if (sim_replay(s, r, &cause) < 0) {
		printf("Bail out! %s: %s\n", path, cause);
		exit(1);
	}
	sim_destroy(s);
	trace_close(r);
	device_destroy(dev);
	free(path);
}

/* The uncapped default run of runs[name]. */
static const cJSON *
uncapped(const cJSON *gt, const char *name)
{
	const cJSON *run;

	cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(gt, "runs"), name),
	    "(default)"))
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(run, "limit")))
			return run;
	return NULL;
}

static void
check_trace(const cJSON *gt, const cJSON *addr_runs)
{
	const char *name = addr_runs->string;
	const cJSON *real = cJSON_GetObjectItemCaseSensitive(uncapped(gt, name), "reserved_timeline");
	const cJSON *row = real ? real->child : NULL;
	struct timeline all, env;
	uint64_t prev = 0, mismatches = 0, first = UINT64_MAX, peak = 0, peak_event = 0, max = 0;
	uint64_t max_event = 0;
	size_t i, changes = 0;

	uint64_t addr_peak = gt_u64(addr_runs->child, "peak_reserved");

	if (!ok(real != NULL, "%s: the fixture has a reserved timeline", name))
		return;
	timeline_init(&all, 0);
	timeline_init(&env, 50);
	replay(name, addr_runs->child, &all);
	replay(name, addr_runs->child, &env);
	if (addr_peak != gt_u64(uncapped(gt, name), "peak_reserved")) {
		diag("%s: the timeline's run reserved %llu at its peak, the address run %llu: "
		    "the driver placed them differently", name,
		    (unsigned long long)gt_u64(uncapped(gt, name), "peak_reserved"),
		    (unsigned long long)addr_peak);
		for (i = 0; i < env.n; i++)
			max = GMS_MAX(max, env.rows[i].reserved);
		ok(env.n <= 50, "%s: an envelope of 50 points has %zu rows", name, env.n);
		is_u64(max, addr_peak, "%s: the envelope keeps the address run's peak", name);
		goto out;
	}
	/* every change of reserved, in order, against the real ones */
	for (i = 0; i < all.n; i++) {
		if (all.rows[i].reserved == prev)
			continue;
		prev = all.rows[i].reserved;
		changes++;
		if (row == NULL || (uint64_t)cJSON_GetArrayItem(row, 0)->valuedouble !=
		    all.rows[i].event ||
		    (uint64_t)cJSON_GetArrayItem(row, 1)->valuedouble != all.rows[i].reserved) {
			mismatches++;
			if (first == UINT64_MAX)
				first = all.rows[i].event;
		}
		if (row != NULL)
			row = row->next;
	}
	is_u64(changes, (uint64_t)cJSON_GetArraySize(real), "%s: as many reserved changes as "
	    "PyTorch made", name);
	is_u64(mismatches, 0, "%s: each at the same event, to the same bytes (first differing "
	    "at event %lld)", name, first == UINT64_MAX ? -1LL : (long long)first);
	cJSON_ArrayForEach(row, real) {
		if ((uint64_t)cJSON_GetArrayItem(row, 1)->valuedouble > peak) {
			peak = (uint64_t)cJSON_GetArrayItem(row, 1)->valuedouble;
			peak_event = (uint64_t)cJSON_GetArrayItem(row, 0)->valuedouble;
		}
	}
	for (i = 0; i < env.n; i++) {
		if (env.rows[i].reserved > max) {
			max = env.rows[i].reserved;
			max_event = env.rows[i].event;
		}
	}
	ok(env.n <= 50, "%s: an envelope of 50 points has %zu rows", name, env.n);
	is_u64(max, peak, "%s: the envelope keeps the real peak reserved", name);
	is_u64(max_event, peak_event, "%s: at the event it was first reached", name);
out:
	timeline_free(&all);
	timeline_free(&env);
}

/*
 * Envelopes that do not share their buckets (the ranks of a job, each on the
 * common clock: plot --ranks) are merged by event, each series carried
 * forward to the next row of its own, none cut at the other's last row.
 */
static void
check_unshared(void)
{
	struct timeline_row ra[] = { { .event = 0, .reserved = 1 }, { .event = 10, .reserved = 2 },
	    { .event = 20, .reserved = 3 } };
	struct timeline_row rb[] = { { .event = 0, .reserved = 5 }, { .event = 15, .reserved = 6 },
	    { .event = 30, .reserved = 7 } };
	struct timeline a = { .points = 3, .rows = ra, .n = 3 }, b = { .points = 3, .rows = rb,
	    .n = 3 };
	struct timeline *tls[2] = { &a, &b };
	const char *labels[2] = { "a", "b" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ok(f != NULL && timeline_write_csv(f, tls, labels, 2) == 0, "two envelopes written");
	fclose(f);
	is_str(text, "event,t_us,live,a_allocated,a_reserved,b_allocated,b_reserved\n"
	    "0,,0,0,1,0,5\n10,,0,0,2,0,5\n15,,0,0,2,0,6\n20,,0,0,3,0,6\n30,,0,0,3,0,7\n",
	    "envelopes of their own buckets: merged by event, each carried to its next row, "
	    "the longer not cut at the shorter's end");
	free(text);
}

int
main(void)
{
	cJSON *gt = gt_load("t/data/pytorch.json"), *t;

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(gt, "address_runs"))
		check_trace(gt, t);
	cJSON_Delete(gt);
	check_unshared();
	return tap_done();
}
