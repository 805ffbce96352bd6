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

#include "sim/scenario.h"
#include "sim/share.h"
#include "replay/replay.h"
#include "replay/share-gpu.h"
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

/* --- a scenario of several jobs (share's), one process each on the GPU ----- */

static int
cuda_open(void *arg, struct replay_gpu *g, char **cause)
{
	return replay_cuda_open((int)(intptr_t)arg, g, cause);
}

static int
cuda_ballast(void *arg, uint64_t keep, char **cause)
{
	return replay_cuda_ballast((int)(intptr_t)arg, keep, cause);
}

static void
cuda_unballast(void *arg)
{
	(void)arg;
	replay_cuda_unballast();
}

static void
replay_share_cuda(int index, struct replay_share_gpu *gpu)
{
	*gpu = (struct replay_share_gpu){ .open = cuda_open, .ballast = cuda_ballast,
	    .unballast = cuda_unballast, .arg = (void *)(intptr_t)index };
}

/* A job's outcome, in a word or a few. */
static const char *
outcome(const struct share_result *r, size_t k, char *buf, size_t len)
{
	const struct share_job_result *j = &r->jobs[k];

	if (j->oomed && r->ooms[j->oom].event < 0)
		snprintf(buf, len, "could not start (%s)", r->ooms[j->oom].what);
	else if (j->oomed)
		snprintf(buf, len, "out of memory at event %lld", (long long)r->ooms[j->oom].event);
	else if (!j->started)
		snprintf(buf, len, "not started");
	else
		snprintf(buf, len, "fits");
	return buf;
}

static int
same_outcome(const struct share_result *a, const struct share_result *b, size_t k)
{
	char x[64], y[64];

	return strcmp(outcome(a, k, x, sizeof(x)), outcome(b, k, y, sizeof(y))) == 0;
}

static int
replay_scenario(struct cli_args *a)
{
	struct share_specs s;
	struct share_scenario sc;
	struct share_result pred = { 0 }, real = { 0 };
	struct replay_share_gpu gpu;
	int index = (int)a->v[OPT_CUDA_DEVICE].n, rc, err, all = 1;
	char *cause = NULL, x[64], y[64], sz[2][32];
	cJSON *o, *jobs, *it;
	size_t k;

	if (!replay_cuda_built()) {
		cli_error("replay support not built; reconfigure with --with-cuda");
		return EXIT_USAGE;
	}
	if ((rc = cli_share_scenario(a, "replay", &s, &sc)) != 0)
		goto out;
	replay_share_cuda(index, &gpu);
	if ((err = share_run(&sc, NULL, &pred, &cause)) < 0 ||
	    (err = replay_share(&sc, &gpu, &real, &cause)) < 0) {
		cli_error("%s", cause);
		rc = gms_exit_code(err);
		goto out;
	}
	for (k = 0; k < sc.njobs; k++)
		all &= same_outcome(&pred, &real, k) &&
		    pred.jobs[k].peak_reserved == real.jobs[k].peak_reserved;
	if (a->v[OPT_FORMAT].choice == 1) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "predicted", share_json(&sc, &pred));
		cJSON_AddItemToObject(o, "replayed", share_json(&sc, &real));
		jobs = cJSON_AddArrayToObject(o, "jobs");
		for (k = 0; k < sc.njobs; k++) {
			it = cJSON_CreateObject();
			cJSON_AddStringToObject(it, "name", sc.jobs[k].name);
			cJSON_AddBoolToObject(it, "same_outcome", same_outcome(&pred, &real, k));
			cJSON_AddBoolToObject(it, "same_peak_reserved",
			    pred.jobs[k].peak_reserved == real.jobs[k].peak_reserved);
			cJSON_AddItemToArray(jobs, it);
		}
		cJSON_AddBoolToObject(o, "agree", all);
		cli_print_json(a, o);
	} else {
		fprintf(a->report, "%zu jobs, one process each, on GPU %d brought down to %s "
		    "(%s of context each in the prediction)\n\n", sc.njobs, index,
		    gms_fmt_size(sc.total, sz[0], sizeof(sz[0])),
		    gms_fmt_size(sc.context, sz[1], sizeof(sz[1])));
		fprintf(a->report, "  %-24s  %-30s  %-30s\n", "job", "predicted", "replayed");
		for (k = 0; k < sc.njobs; k++) {
			char p[96], q[96];

			snprintf(p, sizeof(p), "%s, %s", outcome(&pred, k, x, sizeof(x)),
			    gms_fmt_size(pred.jobs[k].peak_reserved, sz[0], sizeof(sz[0])));
			snprintf(q, sizeof(q), "%s, %s", outcome(&real, k, y, sizeof(y)),
			    gms_fmt_size(real.jobs[k].peak_reserved, sz[1], sizeof(sz[1])));
			fprintf(a->report, "  %-24s  %-30s  %-30s%s\n", sc.jobs[k].name, p, q,
			    same_outcome(&pred, &real, k) && pred.jobs[k].peak_reserved ==
			    real.jobs[k].peak_reserved ? "" : "  DIFFERS");
		}
		fprintf(a->report, "\n  %s\n", all ? "the GPU did what the simulation said" :
		    "the GPU and the simulation differ");
	}
	rc = !all && a->given[OPT_FAIL_ON_MISMATCH] ? EXIT_CHECK : EXIT_DONE;
out:
	free(cause);
	share_result_free(&pred);
	share_result_free(&real);
	cli_share_free(&s, &sc);
	return rc;
}

/*
 * A trace's replay and a scenario's take different options; one the mode at
 * hand would ignore is refused, since a replay that silently skipped the
 * --touch or --device-log asked for would look like a run that had them.
 */
static int
mode_options(struct cli_args *a, int scenario)
{
	static const enum cli_opt trace_only[] = { OPT_TOUCH, OPT_DEVICE_LOG,
		OPT_NO_CACHE_BASELINE, OPT_POLICY, OPT_OPTION, OPT_ALLOC_CONF, OPT_NONE };
	static const enum cli_opt scenario_only[] = { OPT_GPU, OPT_CONTEXT_OVERHEAD,
		OPT_NONE };
	const enum cli_opt *o;

	if (scenario && a->argc > 0)
		return cli_usage_error(a->cmd, "give a trace or --job/--scenario, not both");
	for (o = scenario ? trace_only : scenario_only; *o != OPT_NONE; o++)
		if (a->given[*o])
			return cli_usage_error(a->cmd, scenario ? "--%s goes with a trace, "
			    "not --job/--scenario" : "--%s goes with --job/--scenario, not a "
			    "trace", cli_optdefs[*o].name);
	return 0;
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
	int strict = a->given[OPT_FAIL_ON_MISMATCH] > 0, log = a->given[OPT_DEVICE_LOG] > 0;
	int scenario = a->given[OPT_SCENARIO] || a->given[OPT_JOB];
	int gpu = (int)a->v[OPT_CUDA_DEVICE].n;
	int have_r = 0, have_base = 0, rc, err;
	char *cause = NULL;
	cJSON *o, *res;

	if ((rc = mode_options(a, scenario)) != 0)
		return rc;
	if (scenario)
		return replay_scenario(a);
	if (a->argc != 1)
		return cli_usage_error(a->cmd, "no trace given (or --job/--scenario: several jobs)");
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
		cJSON_AddItemToObject(o, "result", res = report_replay_json(&r));
		if (log)
			cJSON_AddItemToObject(res, "device_calls", report_replay_calls_json(&r));
		if (have_base) {
			cJSON_AddItemToObject(o, "baseline", res = report_replay_json(&base));
			if (log)
				cJSON_AddItemToObject(res, "device_calls",
				    report_replay_calls_json(&base));
		}
		cli_print_json(a, o);
	} else {
		report_replay_text(a->report, trace_mem_header(m)->name, &g, spec.policy->name,
		    spec.capacity, spec.touch, &r, have_base ? &base : NULL);
		if (log)
			report_replay_calls_text(a->report, &r);
	}
	rc = strict && !agrees(&r) ? EXIT_CHECK : EXIT_DONE;
	goto out;
fail:
	rc = cli_fail(err, cause);
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
