/*
 * checkpoint.c - runs continued from a checkpoint (sim/checkpoint.h) equal
 * runs from the first event: on the bundled ResNet-50 and GPT-2 recordings,
 * for every policy that can be continued, at capacities from below the live
 * peak to above the uncapped peak, the continued run's answer (fits, the OOM
 * event, peak reserved, device calls, retries) is the from-scratch run's;
 * a capacity below the first point's asks is not answered there; and a job
 * that asks its most before the first point (the recording tiled 16 times,
 * as a long training run) is kept at no point.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/checkpoint.h"
#include "sim/gms.h"
#include "sim/run.h"
#include "t/tap.h"
#include "traces/tracemem.h"

static int
scratch(const struct trace_mem *m, const struct policy_ops *ops, uint64_t capacity,
    struct sim_result *res)
{
	struct run_spec spec = { .mem = m, .policy = ops, .capacity = capacity, .stop_at_oom = 1 };
	struct run_output out;
	char *cause = NULL;
	int rc = run_simulate(&spec, &out, &cause);

	if (rc == 0) {
		*res = out.res;
		rc = !out.res.oomed;
	}
	run_output_free(&out);
	free(cause);
	return rc;
}

static void
one(const char *rel, struct trace_mem *m, const char *policy)
{
	const struct policy_ops *ops = policy_find(policy, NULL);
	struct sim_result r0, a, b = { 0 };
	struct ckpt_first first;
	struct ckpt *c;
	uint64_t lo, hi, cap;
	int k, answered = 0, same = 0, n = 0, ra, rb;

	is_u64((uint64_t)ckpt_first(&(struct run_spec){ .mem = m, .policy = ops }, &first), 1,
	    "%s %s: the run without a limit fits", rel, policy);
	r0 = first.res;
	is_u64((uint64_t)scratch(m, ops, 0, &b), 1, "%s %s: so does the run in one piece", rel,
	    policy);
	ok(r0.peak_reserved == b.peak_reserved && r0.peak_asked == b.peak_asked &&
	    r0.device_allocs == b.device_allocs && r0.peak_allocated == b.peak_allocated,
	    "%s %s: its first pass is that run (peak %llu, asked %llu, %llu device calls)", rel,
	    policy, (unsigned long long)b.peak_reserved, (unsigned long long)b.peak_asked,
	    (unsigned long long)b.device_allocs);
	ok(first.serves && first.asks[0] < r0.peak_asked, "%s %s: its asks grow past the first "
	    "point", rel, policy);
	c = ckpt_start(&(struct run_spec){ .mem = m, .policy = ops }, &first);
	ok(c != NULL, "%s %s: checkpoints made", rel, policy);
	ckpt_wait(c);
	lo = r0.peak_live;
	hi = r0.peak_asked + 64 * GMS_MiB;
	/* 32 capacities from the live peak up, 2 MiB steps below and above the
	   top (growth doubles its regions: its asks reach the top early) */
	for (k = 0; k < 32; k++, n++) {
		cap = k < 16 ? lo + (hi - lo) * (uint64_t)k / 16 : k < 24 ?
		    r0.peak_asked - (uint64_t)(k - 16) * 2 * GMS_MiB :
		    r0.peak_asked + (uint64_t)(k - 24) * 2 * GMS_MiB;
		ra = ckpt_fits(c, cap, &a);
		rb = scratch(m, ops, cap, &b);
		if (ra < 0)
			continue;
		answered++;
		same += ra == rb && a.oomed == b.oomed && a.oom.event == b.oom.event &&
		    a.peak_reserved == b.peak_reserved && a.device_allocs == b.device_allocs &&
		    a.device_frees == b.device_frees && a.alloc_retries == b.alloc_retries &&
		    a.peak_allocated == b.peak_allocated;
		if (ra != rb || a.oom.event != b.oom.event || a.peak_reserved != b.peak_reserved)
			diag("%s %s at %llu: continued %d@%llu peak %llu, from the start %d@%llu "
			    "peak %llu", rel, policy, (unsigned long long)cap, ra,
			    (unsigned long long)a.oom.event, (unsigned long long)a.peak_reserved, rb,
			    (unsigned long long)b.oom.event, (unsigned long long)b.peak_reserved);
	}
	ok(answered >= 8, "%s %s: %d of %d capacities answered from a point", rel, policy,
	    answered, n);
	is_u64((uint64_t)same, (uint64_t)answered, "%s %s: each as the run from the first event",
	    rel, policy);
	ok(ckpt_fits(c, lo / 4, &a) < 0, "%s %s: below every point's asks: not answered",
	    rel, policy);
	ckpt_end(c);
}

static struct trace_mem *
load(const char *rel)
{
	struct trace_opts topts = { .device = -1 };
	char *path = tap_srcpath(rel), *cause = NULL;
	struct trace_mem *m;

	if (trace_mem_load(path, &topts, &m, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	free(path);
	return m;
}

/*
 * m tiled 16 times, each copy's ids past the last; what a copy leaves
 * allocated freed at its end (a long job's live memory bounded) or kept
 * (growing with each copy).
 */
static struct trace_mem *
tile(const struct trace_mem *m, int bounded)
{
	struct trace_mem *t = trace_mem_new("tiled", trace_mem_header(m));
	struct trace_event ev;
	uint64_t maxid = 0, *live;
	size_t i, n = trace_mem_count(m), nlive = 0, k, j;
	char *cause = NULL;

	live = gms_calloc(n + 1, sizeof(*live));
	for (i = 0; i < n; i++) {
		trace_mem_event(m, i, &ev);
		if (ev.op == TRACE_ALLOC)
			live[nlive++] = ev.id;
		if (ev.op == TRACE_FREE)
			for (j = 0; j < nlive; j++)
				if (live[j] == ev.id)
					live[j] = live[--nlive];
		if ((ev.op == TRACE_ALLOC || ev.op == TRACE_FREE) && ev.id > maxid)
			maxid = ev.id;
	}
	for (k = 0; k < 16; k++) {
		for (i = 0; i < n; i++) {
			trace_mem_event(m, i, &ev);
			if (ev.op == TRACE_ALLOC || ev.op == TRACE_FREE)
				ev.id += k * (maxid + 1);
			if (trace_mem_append(t, &ev, &cause) < 0)
				break;
		}
		for (j = 0; j < nlive && bounded; j++) {
			ev = (struct trace_event){ .op = TRACE_FREE, .id = live[j] + k * (maxid + 1) };
			if (trace_mem_append(t, &ev, &cause) < 0)
				break;
		}
	}
	if (cause != NULL) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	free(live);
	return t;
}

/* A job that asks its most before the first point is kept at none. */
static void
kept_nowhere(const char *rel, struct trace_mem *t, const char *policy)
{
	const struct policy_ops *ops = policy_find(policy, NULL);
	struct ckpt_first first;

	is_u64((uint64_t)ckpt_first(&(struct run_spec){ .mem = t, .policy = ops }, &first), 1,
	    "%s %s: the run without a limit fits", rel, policy);
	ok(first.asks[0] == first.res.peak_asked && !first.serves,
	    "%s %s: asks its most (%llu) before the first point", rel, policy,
	    (unsigned long long)first.res.peak_asked);
	ok(ckpt_start(&(struct run_spec){ .mem = t, .policy = ops }, &first) == NULL,
	    "%s %s: kept at no point", rel, policy);
}

int
main(void)
{
	static const char *const policies[] = { "caching", "no-cache", "ideal" };
	struct trace_mem *resnet = load("traces/resnet50-train-b32.json");
	struct trace_mem *gpt2 = load("traces/gpt2-train-varlen-bf16.jsonl.gz");
	struct trace_mem *t;
	size_t i;

	setenv("GMS_CHECKPOINTS", "always", 1);
	for (i = 0; i < 3; i++) {
		one("traces/resnet50-train-b32.json", resnet, policies[i]);
		one("traces/gpt2-train-varlen-bf16.jsonl.gz", gpt2, policies[i]);
	}
	/* growth doubles its regions: on one recording its asks reach the top
	   before the first point; on a job whose live memory grows, later */
	kept_nowhere("traces/resnet50-train-b32.json", resnet, "grow-only");
	t = tile(resnet, 0);
	one("resnet50-train-b32 tiled, growing", t, "grow-only");
	one("resnet50-train-b32 tiled, growing", t, "caching");
	trace_mem_free(t);
	t = tile(resnet, 1);
	kept_nowhere("resnet50-train-b32 tiled, bounded", t, "caching");
	kept_nowhere("resnet50-train-b32 tiled, bounded", t, "grow-only");
	trace_mem_free(t);
	trace_mem_free(resnet);
	trace_mem_free(gpt2);
	return tap_done();
}
