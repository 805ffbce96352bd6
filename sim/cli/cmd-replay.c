/*
 * cmd-replay.c - `gpumemsim replay`: a trace's policy run over a real GPU
 * (replay/), the simulation's prediction beside what the GPU did, and
 * whether they agree.  Exit 2 when the CUDA backend was not built.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "replay/replay.h"
#include "sim/cli/cli.h"
#include "sim/gms.h"
#include "sim/policy.h"
#include "analysis/report.h"
#include "traces/tracemem.h"

static int
agrees(const struct replay_result *r)
{
	return r->agree_reserved && r->agree_allocs && r->agree_frees && r->agree_oom &&
	    r->agree_resim;
}

int
cmd_replay(struct cli_args *a)
{
	struct trace_opts topts;
	struct replay_spec spec = { 0 };
	struct replay_result r, base;
	struct replay_gpu g = { 0 };
	struct trace_mem *m = NULL;
	struct cli_policies pols = { 0 };
	int baseline = a->given[OPT_NO_CACHE_BASELINE] > 0;
	int strict = a->given[OPT_FAIL_ON_MISMATCH] > 0;
	int gpu = a->given[OPT_CUDA_DEVICE] ? (int)a->v[OPT_CUDA_DEVICE].n : 0;
	int have_r = 0, have_base = 0, rc, err;
	char *cause = NULL;
	cJSON *o;

	cli_trace_opts(a, &topts);
	spec.capacity = a->given[OPT_CAPACITY] ? a->v[OPT_CAPACITY].size : 0;
	spec.touch = a->given[OPT_TOUCH] > 0;
	if ((rc = cli_policies(a, "caching", &pols)) != 0)
		goto done;
	spec.policy = pols.ents[0].ops;
	spec.opts = pols.ents[0].opts;
	spec.nopts = pols.ents[0].nopts;
	/* The GPU first: without one, there is nothing to read the trace for. */
	if ((err = replay_cuda_open(gpu, &g, &cause)) < 0 ||
	    (err = trace_mem_load(a->argv[0], &topts, &m, &cause)) < 0)
		goto fail;
	spec.mem = m;
	if ((err = replay_run(&spec, &g, &r, &cause)) < 0)
		goto fail;
	have_r = 1;
	if (baseline) {
		struct replay_spec bs = spec;

		bs.policy = &policy_no_cache;
		bs.opts = NULL;
		bs.nopts = 0;
		if ((err = replay_run(&bs, &g, &base, &cause)) < 0)
			goto fail;
		have_base = 1;
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "trace", trace_mem_header(m)->name);
		cJSON_AddStringToObject(o, "gpu", g.name);
		cJSON_AddNumberToObject(o, "gpu_index", g.index);
		cJSON_AddNumberToObject(o, "gpu_total", (double)g.total);
		cJSON_AddStringToObject(o, "versions", g.versions);
		cJSON_AddStringToObject(o, "policy", spec.policy->name);
		if (spec.capacity)	/* null when unlimited, as run's JSON */
			cJSON_AddNumberToObject(o, "capacity", (double)spec.capacity);
		else
			cJSON_AddNullToObject(o, "capacity");
		cJSON_AddBoolToObject(o, "touch", spec.touch);
		cJSON_AddItemToObject(o, "result", report_replay_json(&r));
		if (have_base)
			cJSON_AddItemToObject(o, "baseline", report_replay_json(&base));
		cli_print_json(a, o);
	} else {
		report_replay_text(a->report, trace_mem_header(m)->name, &g, spec.policy->name,
		    spec.capacity, spec.touch, &r, have_base ? &base : NULL);
	}
	rc = strict && !agrees(&r) ? EXIT_CHECK : EXIT_DONE;
	goto out;
fail:
	cli_error("%s", cause);
	free(cause);
	rc = gms_exit_code(err);
out:
	if (have_r)
		replay_result_free(&r);
	if (have_base)
		replay_result_free(&base);
	if (g.close != NULL)
		g.close(g.ctx);
	trace_mem_free(m);
done:
	cli_policies_free(&pols);
	return rc;
}
