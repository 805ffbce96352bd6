/*
 * checkpoint.c - runs continued from a checkpoint (sim/checkpoint.h) equal
 * runs from the first event: on the bundled ResNet-50 and GPT-2 recordings,
 * for every policy that can be continued, at capacities from below the live
 * peak to above the uncapped peak, the continued run's answer (fits, the OOM
 * event, peak reserved, device calls, retries) is the from-scratch run's;
 * and a capacity below the first point's asks is not answered there.
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
one(const char *rel, const char *policy)
{
	struct trace_opts topts = { .device = -1 };
	char *path = tap_srcpath(rel), *cause = NULL;
	const struct policy_ops *ops = policy_find(policy, NULL);
	struct trace_mem *m;
	struct sim_result r0, a, b = { 0 };
	struct ckpt *c;
	uint64_t lo, hi, cap;
	int k, answered = 0, same = 0, n = 0, ra, rb;

	if (trace_mem_load(path, &topts, &m, &cause) < 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	c = ckpt_start(&(struct run_spec){ .mem = m, .policy = ops });
	ok(c != NULL, "%s %s: checkpoints made", rel, policy);
	is_u64((uint64_t)ckpt_uncapped(c, &r0), 1, "%s %s: the run without a limit fits", rel,
	    policy);
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
	trace_mem_free(m);
	free(path);
}

int
main(void)
{
	static const char *const policies[] = { "caching", "grow-only", "no-cache", "ideal" };
	size_t i;

	setenv("GMS_CHECKPOINTS", "always", 1);
	for (i = 0; i < 4; i++) {
		one("traces/resnet50-train-b32.json", policies[i]);
		one("traces/gpt2-train-varlen-bf16.jsonl.gz", policies[i]);
	}
	return tap_done();
}
