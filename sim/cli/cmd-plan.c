/*
 * cmd-plan.c - `gpumemsim plan TRACE`: the smallest capacity each policy
 * needs and which GPU models fit (analysis/entry-plan.c); for recordings at
 * values, each GPU's largest value, or the plan of the job built at one;
 * for the ranks of a job, the capacity every rank needs.
 */
#include "config.h"

#include <stdlib.h>

#include "analysis/entries.h"
#include "sim/cli/cli.h"
#include "sim/gpus.h"

int
cmd_plan(struct cli_args *a)
{
	struct plan_request rq = { .placement = cli_placement(a), .threads = (int)a->v[OPT_JOBS].n,
	    .overhead = a->v[OPT_CONTEXT_OVERHEAD].size,
	    .placements = a->given[OPT_PLACEMENTS] ? (size_t)a->v[OPT_PLACEMENTS].n : 0 };
	const struct gpu_model *gpus[CLI_GPUS_MAX], *g;
	struct plan_answer ans;
	struct cli_policies pols = { 0 };
	struct entry_policy *ep = NULL;
	char *cause = NULL;
	int json = a->v[OPT_FORMAT].choice == 1, rc;

	if (a->given[OPT_GPU] && a->given[OPT_GPUS])
		return cli_usage_error(a->cmd, "give --gpu (one model) or --gpus (a list), not both");
	if ((rc = cli_placement_usage(a)) != 0)
		return rc;
	if (a->in->kind == INPUTS_SCALED && a->in->mem == NULL && rq.placements > 1)
		return cli_usage_error(a->cmd, "--placements plans one trace: give --value "
		    "(or run each value's plan)");
	rq.gpus = gpus;
	if (a->given[OPT_GPUS] || a->given[OPT_GPU]) {
		rq.ngpus = a->given[OPT_GPUS] ? a->v[OPT_GPUS].ngpus : 1;
		for (size_t i = 0; i < rq.ngpus; i++)
			gpus[i] = a->given[OPT_GPUS] ? a->v[OPT_GPUS].gpus[i] : a->v[OPT_GPU].gpu;
	} else {
		for (g = gpu_catalogue; g->name != NULL && rq.ngpus < CLI_GPUS_MAX; g++)
			gpus[rq.ngpus++] = g;
	}
	if ((rc = cli_policies(a, CLI_POLICY_SET, &pols)) != 0)
		goto out;
	rq.pols = ep = cli_entry_policies(&pols);
	rq.npols = pols.n;
	if ((rc = entry_plan(a->in, &rq, &ans, &cause)) < 0)
		rc = cli_fail(rc, cause);
	else
		cli_print(a, json ? entry_plan_json(&ans) : NULL, json ? NULL : entry_plan_text(&ans));
	entry_plan_free(&ans);
out:
	free(ep);
	cli_policies_free(&pols);
	return rc;
}
