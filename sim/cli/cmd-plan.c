/*
 * cmd-plan.c - `gpumemsim plan TRACE`: the smallest capacity each policy
 * needs, and which GPU models the trace fits on.  Given recordings at
 * several values (--at) instead: the largest value that fits each GPU, or
 * with --value, the plan of the job built at that value.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan.h"
#include "analysis/ranks.h"
#include "analysis/scale-plan.h"
#include "sim/batch.h"
#include "sim/cli/cli.h"
#include "traces/tracemem.h"
#include "sim/gms.h"
#include "sim/gpus.h"

/* --ranks: every rank's plan and the job's. */
static int
plan_ranks(struct cli_args *a, const struct plan_report *tmpl, const struct trace_opts *topts,
    int threads)
{
	struct rank_set set;
	struct ranks_plan rp = { 0 };
	char *cause = NULL, *text;
	int err;

	if (a->given[OPT_AT] || a->given[OPT_VALUE])
		return cli_usage_error(a->cmd, "--ranks plans recorded ranks: it does not go "
		    "with --at or --value");
	if ((err = ranks_collect(a->argv, a->argc, &set, &cause)) < 0 ||
	    (err = ranks_plan_run(&set, tmpl, topts, threads, &rp, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		ranks_plan_free(&rp);
		ranks_free(&set);
		return gms_exit_code(err);
	}
	if (a->v[OPT_FORMAT].choice == 1) {
		cli_print_json(a, ranks_plan_json(&rp));
	} else {
		text = ranks_plan_text(&rp);
		fputs(text, a->report);
		free(text);
	}
	ranks_plan_free(&rp);
	ranks_free(&set);
	return EXIT_DONE;
}

int
cmd_plan(struct cli_args *a)
{
	struct trace_opts topts;
	struct plan_report rep = { .checkpoints = 1 };
	struct cli_policies pols = { 0 };
	struct trace_mem *m = NULL;
	struct cli_scaled sc = { 0 };
	struct scale_plan sp = { 0 };
	char *cause = NULL;
	int threads = (int)a->v[OPT_JOBS].n, rc;
	const struct gpu_model *g;
	size_t i;

	if (a->given[OPT_GPU] && a->given[OPT_GPUS])
		return cli_usage_error(a->cmd, "give --gpu (one model) or --gpus (a list), not both");
	if ((rc = cli_placement_usage(a)) != 0)
		return rc;
	rep.overhead = a->v[OPT_CONTEXT_OVERHEAD].size;
	if (a->given[OPT_PLACEMENTS])
		rep.placements = (size_t)a->v[OPT_PLACEMENTS].n;
	cli_trace_opts(a, &topts);
	if ((rc = cli_policies(a, NULL, &pols)) != 0)
		goto out;
	rep.gpus = gms_calloc(CLI_GPUS_MAX, sizeof(*rep.gpus));
	if (a->given[OPT_GPUS]) {
		for (i = 0; i < a->v[OPT_GPUS].ngpus; i++)
			rep.gpus[rep.ngpus++] = a->v[OPT_GPUS].gpus[i];
	} else if (a->given[OPT_GPU]) {
		rep.gpus[rep.ngpus++] = a->v[OPT_GPU].gpu;
	} else {
		for (g = gpu_catalogue; g->name != NULL && rep.ngpus < CLI_GPUS_MAX; g++)
			rep.gpus[rep.ngpus++] = g;
	}
	rep.npols = pols.n;
	rep.pols = gms_calloc(pols.n ? pols.n : 1, sizeof(*rep.pols));
	for (i = 0; i < pols.n; i++)
		rep.pols[i] = (struct plan_policy){ .label = pols.ents[i].label,
		    .ops = pols.ents[i].ops, .opts = pols.ents[i].opts, .nopts = pols.ents[i].nopts,
		    .placement = cli_placement(a) };
	if (a->given[OPT_RANKS]) {
		rc = plan_ranks(a, &rep, &topts, threads);
		goto out;
	}
	if ((rc = cli_load_trace(a, &topts, 0, &sc, &m)) != 0)
		goto out;
	if (m == NULL) {	/* recordings at values, no --value: each GPU's largest */
		if (rep.placements > 1) {
			rc = cli_usage_error(a->cmd, "--placements plans one trace: give --value "
			    "(or run each value's plan)");
			goto out;
		}
		sp = (struct scale_plan){ .model = sc.model, .pols = rep.pols, .npols = rep.npols,
		    .gpus = rep.gpus, .ngpus = rep.ngpus, .overhead = rep.overhead };
		if ((rc = scale_plan_run(&sp, threads, &cause)) < 0) {
			cli_error("%s", cause);
			free(cause);
			rc = gms_exit_code(rc);
			goto out;
		}
		if (a->v[OPT_FORMAT].choice == 1) {
			cli_print_json(a, scale_plan_json(&sp));
		} else {
			char *text = scale_plan_text(&sp);

			fputs(text, a->report);
			free(text);
		}
		rc = EXIT_DONE;
		goto out;
	}
	if ((rc = plan_run(m, &rep, threads, &cause)) < 0) {
		cli_error("%s", cause);
		free(cause);
		rc = gms_exit_code(rc);
		goto out;
	}
	if (a->v[OPT_FORMAT].choice == 1)
		cli_print_report(a, plan_json(&rep), NULL, trace_mem_header(m));
	else
		cli_print_report(a, NULL, plan_text(&rep), trace_mem_header(m));
	rc = EXIT_DONE;
out:
	scale_plan_free(&sp);
	cli_scaled_free(&sc);
	plan_free(&rep);
	free(rep.pols);
	free(rep.gpus);
	trace_mem_free(m);
	cli_policies_free(&pols);
	return rc;
}
